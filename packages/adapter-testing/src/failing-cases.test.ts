import { describe, expect, it } from 'vitest';
import { failingCases } from './adapter-conformance-cases.js';

describe('failingCases', () => {
  it('runs only the cases whose name holds the text, and names each failure with its message', async () => {
    const ran: string[] = [];
    const cases = [
      { name: 'parse: one call', run: () => void ran.push('parse') },
      { name: 'format: passes', run: () => void ran.push('format ok') },
      { name: 'format: throws', run: () => { ran.push('format throws'); throw new Error('swapped'); } },
      { name: 'format: rejects', run: async () => { ran.push('format rejects'); throw 'not an error'; } },
    ];
    expect(await failingCases(cases, 'format: ')).toEqual(['format: throws: swapped', 'format: rejects: not an error']);
    expect(ran).toEqual(['format ok', 'format throws', 'format rejects']);
  });
});
