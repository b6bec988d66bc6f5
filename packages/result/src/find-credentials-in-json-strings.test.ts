import type { JsonValue } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { describe, expect, it, vi } from 'vitest';
import { findCredentialsInJsonStrings } from './find-credentials-in-json-strings.js';

// The review: a downstream object with a password is refused as `JSON.stringify(obj)`; the same
// object as `JSON.stringify(JSON.stringify(obj))` (a string literal whose content is the object's
// JSON text) must be refused too. Made-up credentials, none of them live.
const downstream = { user: 'svc-billing', password: 'Tr0ub4dor&3-prod' };
const encode = (value: unknown, times: number): string => {
  let text = JSON.stringify(value);
  for (let i = 1; i < times; i++) text = JSON.stringify(text);
  return text;
};
const twice = encode(downstream, 2);

// Both ways the function is called: with the canonical text of `data` (the pre-check decides the
// common case) and with `null` (always walks). They must agree.
function find(data: JsonValue): unknown[] {
  const text = canonicalize(data);
  if (typeof text !== 'string') throw new Error('not canonicalizable');
  const withText = findCredentialsInJsonStrings(data, text);
  expect(findCredentialsInJsonStrings(data, null)).toEqual(withText);
  return withText;
}

describe('findCredentialsInJsonStrings: JSON text of JSON text', () => {
  // Each refused before the fix? No: every one of them passed the old check (strings starting
  // with `{` or `[` only), and the password reached the model.
  const refused: [string, JsonValue, string][] = [
    ['a double-encoded object as a whole string', { text: twice }, '/data/text'],
    ["after and before JSON's whitespace", { text: `\n\t ${twice} ` }, '/data/text'],
    // The content of the literal starts with a newline: in the canonical text of `data` that is
    // `"\"\\n{`, which only the escaped quote after the opening one gives away to the pre-check.
    ['a double-encoded object with a newline first', { text: JSON.stringify(`\n${JSON.stringify(downstream)}`) }, '/data/text'],
    ['in a member of an object of data', { outer: { inner: twice } }, '/data/outer/inner'],
    ['in an array of data', { items: ['ok', twice] }, '/data/items/1'],
    ['in a member of the JSON text of a string', { text: JSON.stringify({ status: 200, body: twice }) }, '/data/text'],
    ['in an array in the JSON text of a string', { text: JSON.stringify([1, { body: [twice] }]) }, '/data/text'],
    ['a double-encoded array of objects', { text: encode([{ id: 1 }, { client_secret: 'q9Zr7Kp2Lm4Nx8Vb' }], 2) }, '/data/text'],
    // Each unwrapped literal is one of the four levels.
    ['triple-encoded (level 3)', { text: encode(downstream, 3) }, '/data/text'],
    ['quadruple-encoded (level 4)', { text: encode(downstream, 4) }, '/data/text'],
    ['a member at level 2 holding a triple-encoded object', { text: JSON.stringify({ body: encode(downstream, 3) }) }, '/data/text'],
    [
      'behind a 1 MB member',
      { text: JSON.stringify(JSON.stringify({ pad: 'p'.repeat(1 << 20), password: 'Tr0ub4dor&3-prod' })) },
      '/data/text',
    ],
  ];
  it.each(refused)('refuses a credential in JSON text of JSON text: %s', (_name, data, path) => {
    expect(find(data)).toEqual([{ rule: 'credential_value', path }]);
  });

  it('stops at the cap: past four levels the text is not read, so the work stays within four passes', () => {
    expect(find({ text: encode(downstream, 5) })).toEqual([]);
    expect(find({ text: JSON.stringify({ body: encode(downstream, 4) }) })).toEqual([]);
  });

  it('passes a double-encoded object without a credential or with a placeholder', () => {
    for (const value of [
      { user: 'svc-billing', region: 'eu-west-1', tenant: 'cedar-holdings' },
      { user: 'svc-billing', password: '<token>' },
      { headers: { Authorization: 'Bearer <token>' }, api_key: 'YOUR_API_KEY', secret: '...' },
      { password: 'short' },
    ]) {
      for (const times of [2, 3]) expect(find({ text: encode(value, times) }), encode(value, times)).toEqual([]);
    }
    // A string literal whose content is a string, a number or prose.
    for (const text of ['"plain words"', '"12345678"', '"\\"Tr0ub4dor&3-prod\\""', '""', '"null"']) {
      expect(find({ text }), text).toEqual([]);
    }
  });

  it('passes prose that starts with a quote character, without throwing', () => {
    for (const text of [
      '"Hello," she said.',
      '"Hello," she said, "the password is Tr0ub4dor&3-prod."',
      '"',
      '"\\',
      '"unterminated {"password":"Tr0ub4dor&3-prod"}',
      `"${JSON.stringify(downstream)}"`,
      ` "x" ${twice}`,
      `${twice}.`,
      `'${JSON.stringify(downstream)}'`,
    ]) {
      expect(find({ text }), text).toEqual([]);
    }
  });

  it('reads a 1 MB string of nested quotes with parsing bounded by four levels of it', () => {
    let nested = 'x';
    while (nested.length < 1 << 20) nested = JSON.stringify(nested);
    const long = [
      nested,
      '"'.repeat(1 << 20),
      '"\\'.repeat(1 << 19),
      `"${'\\"'.repeat(1 << 19)}"`,
      `${' '.repeat(1 << 20)}"`,
      `"${' '.repeat(1 << 20)}`,
      `${'\t'.repeat(1 << 20)}x`,
    ];
    // Counted, not timed (a loaded runner took 8 times as long): the text parsed is bounded by
    // four levels of each input (each level strictly shorter), and prose is never parsed.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      for (const text of long) {
        parse.mockClear();
        expect(find({ text })).toEqual([]);
        const parsed = parse.mock.calls.reduce((sum, [argument]) => sum + String(argument).length, 0);
        // `find` calls the function twice (with and without the canonical text).
        expect(parsed).toBeLessThanOrEqual(2 * 4 * text.length);
      }
      parse.mockClear();
      // Many strings that start with a quote and are prose: rejected without a parse.
      expect(find({ items: Array.from({ length: 20_000 }, (_, i) => `"Hello," she said, ${i}.`) })).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('reads quoted dialogue (a string that starts and ends with a quote) without parsing it', () => {
    const dialogue = Array.from({ length: 2_000 }, (_, i) => `"Yes," he said. "No, ${i}."`);
    // A failed JSON.parse costs about 12 µs a string: the scan decides without one (counted, not
    // timed, so a loaded machine cannot fail it).
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(find({ items: dialogue })).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // Still found: a literal whose content opens an object after escaped whitespace.
    expect(find({ text: JSON.stringify(`\n\t ${JSON.stringify({ password: 'Tr0ub4dor&3-prod' })}`) })).toEqual([
      { rule: 'credential_value', path: '/data/text' },
    ]);
  });

  it('keeps the common case: data with no string starting with {, [ or " finds nothing', () => {
    expect(
      find({
        order_id: 'ord_20260719_000123',
        items: [{ sku: 'SKU-2044', title: 'Pour-over kettle "Gooseneck"' }],
        note: 'She said "hi" and left: {not json}',
        password_hint: 'the usual',
      }),
    ).toEqual([]);
  });
});
