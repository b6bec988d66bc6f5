import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { geminiFixtures } from './__fixtures__/gemini-interactions-fixtures.js';

const folder = new URL('./__fixtures__/', import.meta.url);

describe('Gemini fixtures', () => {
  for (const [name, value] of Object.entries(geminiFixtures)) {
    it(`${name} matches the SDK-typed source`, () => {
      const expected = `${JSON.stringify(value, null, 2)}\n`;
      if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(new URL(name, folder), expected);
      expect(readFileSync(new URL(name, folder), 'utf8')).toBe(expected);
    });
  }
});
