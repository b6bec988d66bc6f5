// The guard gate's reading of RawArguments: exactly one of the two forms, or malformed_json.
import { DEFAULT_JSON_LIMITS } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { readArguments } from './read-arguments.js';

describe('readArguments', () => {
  it('reads each of the two forms', () => {
    expect(readArguments({ format: 'json_text', text: '{"a":1}' }, DEFAULT_JSON_LIMITS)).toEqual({ ok: true, value: { a: 1 } });
    expect(readArguments({ format: 'json_value', value: { a: 1 } }, DEFAULT_JSON_LIMITS)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses a mix of the two forms and any other member as malformed_json, never reading one and ignoring the other', () => {
    const malformed = { ok: false, violation: { rule: 'malformed_json', path: '' } };
    const mixes: unknown[] = [
      { format: 'json_text', text: '{"a":1}', value: { a: 2 } },
      { format: 'json_value', value: { a: 1 }, text: '{"a":2}' },
      { format: 'json_text', text: '{"a":1}', approved: true },
      { format: 'json_text' },
      { text: '{"a":1}', value: { a: 1 } },
      { format: 'json_value', text: '{"a":1}' },
      Object.assign(Object.create({ value: { a: 1 } }) as object, { format: 'json_value', other: 1 }),
      Object.assign(Object.create({ text: '{"a":1}' }) as object, { format: 'json_text', other: 1 }),
    ];
    for (const raw of mixes) expect(readArguments(raw as never, DEFAULT_JSON_LIMITS), JSON.stringify(raw)).toEqual(malformed);
  });
});
