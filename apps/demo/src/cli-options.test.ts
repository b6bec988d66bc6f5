import { describe, expect, it } from 'vitest';
import { parseCliOptions } from './cli-options.js';

describe('parseCliOptions', () => {
  it('defaults to the SQLite store and text output', () => {
    expect(parseCliOptions([])).toEqual({ store: 'sqlite', json: false, help: false });
  });

  it('reads every option, in both spellings, after a pnpm "--"', () => {
    expect(parseCliOptions(['--', '--store', 'memory', '--json', '--provider=openai,gemini'])).toEqual({
      store: 'memory',
      json: true,
      help: false,
      providers: ['openai', 'gemini'],
    });
    expect(parseCliOptions(['--db', '/tmp/x.sqlite'])).toMatchObject({ store: 'sqlite', sqlitePath: '/tmp/x.sqlite' });
  });

  it.each([
    [['--store', 'mysql'], /--store must be/],
    [['--store'], /needs a value/],
    [['--provider', 'cohere'], /--provider takes/],
    [['--db', 'x', '--store', 'memory'], /--db applies to --store sqlite only/],
    [['--colour'], /unknown option/],
  ])('refuses %j with a message for the person typing', (argv, message) => {
    expect(() => parseCliOptions(argv)).toThrow(message);
  });
});
