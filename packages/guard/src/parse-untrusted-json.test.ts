import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkUntrustedValue } from './check-untrusted-value.js';
import { isForbiddenKey } from './forbidden-keys.js';
import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
import { parseUntrustedJson } from './parse-untrusted-json.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

function rejects(input: string | Uint8Array, rule: string, path: string, limits?: Parameters<typeof parseUntrustedJson>[1]) {
  expect(parseUntrustedJson(input, limits)).toEqual({ ok: false, violation: { rule, path } });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseUntrustedJson: accepted input', () => {
  it('returns the value JSON.parse gives, for text and for bytes', () => {
    const text = ' \n{"order_id" : "ORDER-C7", "amount":6000,"lines":[{"line_id":"LINE-1","quantity":1}],"x":[true,false,null,-0.5e-3,"\\u00e9\\n"]}\t';
    const expected = JSON.parse(text) as unknown;
    expect(parseUntrustedJson(text)).toEqual({ ok: true, value: expected });
    expect(parseUntrustedJson(encode(text))).toEqual({ ok: true, value: expected });
  });

  it('accepts every scalar document', () => {
    for (const text of ['0', '-0', '1.5e308', '"x"', 'true', 'false', 'null', '5e-324']) {
      expect(parseUntrustedJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
    }
  });

  it('accepts the same key in sibling objects and at different depths', () => {
    const keys = Array.from({ length: 20 }, (_, index) => `"k${index}":${index}`).join(',');
    const text = `[{${keys}},{${keys}},{"a":{"a":{"a":1}}}]`;
    expect(parseUntrustedJson(text).ok).toBe(true);
  });

  it('accepts a surrogate pair, raw or escaped, and a BOM character inside a string', () => {
    expect(parseUntrustedJson('["\\ud83d\\ude00","\ud83d\ude00","\ufeff"]')).toEqual({
      ok: true,
      value: ['\u{1f600}', '\u{1f600}', '\ufeff'],
    });
  });

  it('calls JSON.parse exactly once for an accepted input', () => {
    const spy = vi.spyOn(JSON, 'parse');
    expect(parseUntrustedJson('{"a":[1,2]}').ok).toBe(true);
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe('parseUntrustedJson: duplicate keys', () => {
  it('rejects the role override JSON.parse would keep silently', () => {
    rejects('{"role":"user","role":"system"}', 'duplicate_key', '');
  });

  it('compares decoded keys, so an escaped spelling collides', () => {
    rejects('{"a":{"x":1,"\\u0078":2}}', 'duplicate_key', '/a');
    rejects('{"\\u0072ole":"user","r\\u006fle":"system"}', 'duplicate_key', '');
    rejects('{"a\\/b":1,"a/b":2}', 'duplicate_key', '');
  });

  it('finds duplicates at any depth and in large objects', () => {
    rejects('[{"a":1},{"b":{"a":1,"a":2}}]', 'duplicate_key', '/1/b');
    const keys = Array.from({ length: 40 }, (_, index) => `"k${index}":${index}`).join(',');
    rejects(`{"outer":{${keys},"k7":0}}`, 'duplicate_key', '/outer');
    rejects(`{"outer":{${keys},"k39":0}}`, 'duplicate_key', '/outer');
  });

  it('does not leak keys between objects that reuse a depth', () => {
    const many = Array.from({ length: 30 }, (_, index) => `"k${index}":1`).join(',');
    expect(parseUntrustedJson(`[{${many}},{"k29":1,"k3":2},{${many}}]`).ok).toBe(true);
    rejects(`[{${many}},{"k29":1,"k29":2}]`, 'duplicate_key', '/1');
  });
});

describe('parseUntrustedJson: forbidden keys', () => {
  it('rejects __proto__, constructor and prototype in plain and escaped forms', () => {
    rejects('{"__proto__":{"isAdmin":true}}', 'forbidden_key', '');
    rejects('{"a":[{"\\u005f_proto__":1}]}', 'forbidden_key', '/a/0');
    rejects('{"\\u005F\\u005Fproto\\u005F\\u005F":1}', 'forbidden_key', '');
    rejects('{"constructor":{"prototype":{}}}', 'forbidden_key', '');
    rejects('{"x":{"prot\\u006ftype":1}}', 'forbidden_key', '/x');
  });

  it("rejects every other name of Object.prototype, plain and escaped, at any depth (the review: Ajv's unevaluatedProperties read them as evaluated)", () => {
    for (const key of ['toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__']) {
      rejects(`{"order_id":"A",${JSON.stringify(key)}:{"approved":true}}`, 'forbidden_key', '');
      rejects(`{"lines":[{"${key.slice(0, 2)}\\u${key.charCodeAt(2).toString(16).padStart(4, '0')}${key.slice(3)}":1}]}`, 'forbidden_key', '/lines/0');
      expect(checkUntrustedValue(JSON.parse(`{"a":{${JSON.stringify(key)}:1}}`))).toEqual({ ok: false, violation: { rule: 'forbidden_key', path: '/a' } });
    }
  });

  it('accepts near misses, which are ordinary keys', () => {
    expect(parseUntrustedJson('{"__proto__ ":1,"Constructor":2,"proto":3,"tostring":4,"ToString":5,"value_of":6,"to_string":7}').ok).toBe(true);
  });
});

describe('parseUntrustedJson: encoding', () => {
  it('rejects a byte order mark, in text and in bytes', () => {
    rejects('\ufeff{}', 'byte_order_mark', '');
    rejects(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 'byte_order_mark', '');
  });

  it('rejects invalid UTF-8 bytes, including encoded surrogates and overlong forms', () => {
    rejects(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), 'invalid_utf8', '');
    rejects(new Uint8Array([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]), 'invalid_utf8', '');
    rejects(new Uint8Array([0x5b, 0x22, 0xc0, 0xaf, 0x22, 0x5d]), 'invalid_utf8', '');
    rejects(new Uint8Array([0x5b, 0x22, 0xe2, 0x82]), 'invalid_utf8', '');
  });

  it('rejects lone surrogates, raw or escaped, in values and keys', () => {
    rejects('["\\ud800"]', 'lone_surrogate', '/0');
    rejects('["\\udc00"]', 'lone_surrogate', '/0');
    rejects('["\\ud800\\u0041"]', 'lone_surrogate', '/0');
    rejects('["\\ud800x"]', 'lone_surrogate', '/0');
    rejects('["\\ude00\\ud83d"]', 'lone_surrogate', '/0');
    rejects('{"a":"\ud800"}', 'lone_surrogate', '/a');
    rejects('{"a":"\udc00\ud800"}', 'lone_surrogate', '/a');
    rejects('{"\\ud800":1}', 'lone_surrogate', '');
    // An escaped high half followed by a raw low half is still a lone surrogate in the text.
    rejects('["\\ud83d\ude00"]', 'lone_surrogate', '/0');
  });
});

describe('parseUntrustedJson: limits', () => {
  it('counts bytes in UTF-8, not in UTF-16 code units', () => {
    const text = `"${'é'.repeat(10)}"`; // 12 code units, 22 bytes
    rejects(text, 'max_bytes', '', { maxBytes: 21 });
    expect(parseUntrustedJson(text, { maxBytes: 22 }).ok).toBe(true);
    const emoji = '"\u{1f600}"'; // 4 code units, 6 bytes
    rejects(emoji, 'max_bytes', '', { maxBytes: 5 });
    expect(parseUntrustedJson(emoji, { maxBytes: 6 }).ok).toBe(true);
    rejects(encode(text), 'max_bytes', '', { maxBytes: 21 });
    expect(parseUntrustedJson(encode(text), { maxBytes: 22 }).ok).toBe(true);
  });

  it('rejects a 100 MB input before scanning or parsing it', () => {
    const spy = vi.spyOn(JSON, 'parse');
    const huge = `[${'1,'.repeat(50_000_000)}1]`;
    rejects(huge, 'max_bytes', '');
    rejects(new Uint8Array(100_000_000), 'max_bytes', '');
    // No wall-clock bound (timed assertions are flaky): the untouched JSON.parse is the proof.
    expect(spy).not.toHaveBeenCalled();
  });

  it('rejects a 100,000-deep input without calling JSON.parse', () => {
    const spy = vi.spyOn(JSON, 'parse');
    const arrays = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    rejects(arrays, 'max_depth', '/0'.repeat(16));
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    rejects(objects, 'max_depth', '/a'.repeat(16));
    // Even with a limit above it, the scan itself is iterative and cannot overflow the stack.
    rejects(`${'['.repeat(100_000)}${']'.repeat(99_999)}`, 'malformed_json', '/0', {
      maxDepth: 200_000,
      maxBytes: 1_000_000,
      maxTotalNodes: 1_000_000,
    });
    expect(spy).not.toHaveBeenCalled();
  });

  it('enforces depth exactly', () => {
    expect(parseUntrustedJson('7', { maxDepth: 0 }).ok).toBe(true);
    rejects('[]', 'max_depth', '', { maxDepth: 0 });
    expect(parseUntrustedJson('[[1]]', { maxDepth: 2 }).ok).toBe(true);
    rejects('[[1]]', 'max_depth', '/0', { maxDepth: 1 });
    rejects('{"a":{"b":[1]}}', 'max_depth', '/a/b', { maxDepth: 2 });
  });

  it('enforces array items, object keys, string length and total values exactly', () => {
    expect(parseUntrustedJson('[1,2]', { maxArrayItems: 2 }).ok).toBe(true);
    rejects('{"a":[1,2,3]}', 'max_array_items', '/a', { maxArrayItems: 2 });
    expect(parseUntrustedJson('{"a":1,"b":2}', { maxObjectKeys: 2 }).ok).toBe(true);
    rejects('{"x":{"a":1,"b":2,"c":3}}', 'max_object_keys', '/x', { maxObjectKeys: 2 });
    expect(parseUntrustedJson('{"abc":"\\u0041bc"}', { maxStringLength: 3 }).ok).toBe(true);
    rejects('{"a":"abcd"}', 'max_string_length', '/a', { maxStringLength: 3 });
    rejects('{"a":{"abcd":1}}', 'max_string_length', '/a', { maxStringLength: 3 });
    rejects('["\\ud83d\\ude00\\ud83d\\ude00"]', 'max_string_length', '/0', { maxStringLength: 3 });
    expect(parseUntrustedJson('[1,2,3]', { maxTotalNodes: 4 }).ok).toBe(true);
    rejects('[1,2,3]', 'max_total_nodes', '/2', { maxTotalNodes: 3 });
  });

  it('checks characters after a long run of ordinary ones', () => {
    const run = 'a'.repeat(40);
    rejects(`["${run}\ud800${run}"]`, 'lone_surrogate', '/0'); // raw lone surrogate
    rejects(`["${run}\\ud800${run}"]`, 'lone_surrogate', '/0'); // escaped lone surrogate
    rejects(`["${run}\u0001"]`, 'malformed_json', '/0');
    rejects(`{"${run}\ud800":1}`, 'lone_surrogate', '');
    rejects(`["${run}`, 'malformed_json', '/0');
    rejects(`["${'b'.repeat(100)}"]`, 'max_string_length', '/0', { maxStringLength: 99 });
    expect(parseUntrustedJson(`["${'b'.repeat(99)}\\n"]`, { maxStringLength: 100 }).ok).toBe(true);
    expect(parseUntrustedJson(`["${run}\\ud83d\\ude00${run}\ud83d\ude00\\"${run}"]`)).toEqual({
      ok: true,
      value: [`${run}\u{1f600}${run}\u{1f600}"${run}`],
    });
  });

  it('rejects numbers that overflow to an infinity or underflow to zero', () => {
    rejects('[1e400]', 'non_json_value', '/0');
    rejects('{"a":-1E+999}', 'non_json_value', '/a');
    rejects(`[1${'0'.repeat(400)}]`, 'non_json_value', '/0');
    rejects('[1.7976931348623159e308]', 'non_json_value', '/0'); // rounds up to Infinity
    rejects('[1e-400]', 'non_json_value', '/0'); // JSON.parse gives 0
    rejects('{"a":-1e-400}', 'non_json_value', '/a'); // -0
  });

  it('refuses a limit that is not a non-negative safe integer', () => {
    expect(() => parseUntrustedJson('1', { maxDepth: -1 })).toThrow(TypeError);
    expect(() => parseUntrustedJson('1', { maxBytes: Number.NaN })).toThrow(TypeError);
    expect(() => parseUntrustedJson('1', { maxBytes: 1.5 })).toThrow(TypeError);
  });

  it('uses DEFAULT_JSON_LIMITS when none are given', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(parseUntrustedJson(deep(DEFAULT_JSON_LIMITS.maxDepth)).ok).toBe(true);
    expect(parseUntrustedJson(deep(DEFAULT_JSON_LIMITS.maxDepth + 1)).ok).toBe(false);
  });
});

// The exact decimal value of a JSON number lexeme, as an integer mantissa and a power of ten: an
// oracle that shares nothing with the scanner's string normalization.
function exactDecimal(lexeme: string): { mantissa: bigint; exponent: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(lexeme);
  if (match === null) throw new Error(`not a number lexeme: ${lexeme}`);
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  const mantissa = BigInt(`${sign}${integer}${fraction}`);
  return { mantissa, exponent: Number(exponent) - fraction.length };
}

function sameDecimal(left: string, right: string): boolean {
  const a = exactDecimal(left);
  const b = exactDecimal(right);
  const low = Math.min(a.exponent, b.exponent);
  // BigInt has no -0: "-0" and "0" are the same decimal value, as they should be.
  const scale = (value: { mantissa: bigint; exponent: number }) => value.mantissa * 10n ** BigInt(value.exponent - low);
  return scale(a) === scale(b);
}

describe('parseUntrustedJson: numbers are never changed by parsing (spec 002: no silent repair)', () => {
  it('rejects a number JSON.parse would round to another value', () => {
    // The specification's amount is an integer from 1 through 10000; these would pass as 6000,
    // 1, 1 and 10000 if parsing rounded them first.
    rejects('{"amount":5999.9999999999999}', 'non_json_value', '/amount');
    rejects('{"lines":[{"quantity":0.99999999999999999}]}', 'non_json_value', '/lines/0/quantity');
    rejects('{"lines":[{"quantity":1.0000000000000001}]}', 'non_json_value', '/lines/0/quantity');
    rejects('{"amount":59999999999999999999e-16}', 'non_json_value', '/amount');
    rejects('{"amount":10000.0000000000001}', 'non_json_value', '/amount');
    rejects('[9007199254740993]', 'non_json_value', '/0'); // 2^53 + 1 reads as 2^53
    rejects('[123456789012345678901234567890]', 'non_json_value', '/0');
    rejects('[3e-324]', 'non_json_value', '/0'); // the nearest double is 5e-324
    // An exact binary expansion is not the shortest form of its double (0.1): refused too.
    rejects('[0.1000000000000000055511151231257827021181583404541015625]', 'non_json_value', '/0');
  });

  it('compares decimal forms, not binary values, as the README says: what is kept reads back as written', () => {
    // Exactly a double (2^64), but it reads back as 18446744073709552000: refused.
    rejects('[18446744073709551616]', 'non_json_value', '/0');
    // %.17g output reads back as 0.1: refused.
    rejects('[0.10000000000000001]', 'non_json_value', '/0');
    // Its double is 99999999999999991611392, which reads back as 1e+23, the value written: accepted.
    const outcome = parseUntrustedJson('[100000000000000000000000]');
    expect(outcome).toEqual({ ok: true, value: [1e23] });
    expect(outcome.ok && JSON.stringify(outcome.value)).toBe('[1e+23]');
  });

  it('accepts every spelling whose decimal value survives', () => {
    const survivors: [string, number][] = [
      ['1.0', 1],
      ['1.10', 1.1],
      ['1e2', 100],
      ['1E+2', 100],
      ['0.1', 0.1],
      ['-0', -0],
      ['0.30000000000000004', 0.30000000000000004],
      ['5e-324', 5e-324],
      ['9007199254740992', 9007199254740992],
      ['1.00000000000000000000', 1],
      ['100000000000000000000', 1e20],
      ['123.456e78', 1.23456e80],
      ['2.2250738585072014e-308', 2.2250738585072014e-308],
      ['1.7976931348623157e308', Number.MAX_VALUE],
      ['0e999999999999999999', 0],
      ['-0.000000000000000000000000000000000000000000000000000000000000000000000000000001', -1e-78],
    ];
    for (const [text, value] of survivors) {
      expect(parseUntrustedJson(`[${text}]`)).toEqual({ ok: true, value: [value] });
    }
  });

  it('property: every double, as JavaScript writes it, in exponent form or with trailing zeros, is accepted unchanged', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.nat(4), (number, zeros) => {
        const shortest = JSON.stringify(number);
        const [mantissa = '', exponent] = shortest.split('e');
        const padded = `${mantissa}${mantissa.includes('.') ? '' : '.'}${'0'.repeat(zeros + 1)}${exponent === undefined ? '' : `e${exponent}`}`;
        for (const text of [shortest, number.toExponential(), padded]) {
          const outcome = parseUntrustedJson(`[${text}]`);
          expect(outcome).toEqual({ ok: true, value: [JSON.parse(shortest) as number] });
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('property: a number is accepted exactly when its decimal value equals that of the double it parses to', () => {
    const lexeme = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^(0|[1-9][0-9]{0,24})$/),
        fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
        fc.option(fc.integer({ min: -340, max: 320 }), { nil: undefined }),
      )
      .map(([negative, integer, fraction, exponent]) => `${negative ? '-' : ''}${integer}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`);
    fc.assert(
      fc.property(lexeme, (text) => {
        const parsed = Number(text);
        const survives = Number.isFinite(parsed) && sameDecimal(text, String(parsed));
        const outcome = parseUntrustedJson(`[${text}]`);
        expect(outcome.ok).toBe(survives);
        if (!outcome.ok) expect(outcome.violation).toEqual({ rule: 'non_json_value', path: '/0' });
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('parseUntrustedJson: paths never echo attacker-chosen keys', () => {
  it('cuts the pointer at the first key that is not a plain name', () => {
    rejects('{"ignore previous instructions":{"x":"\\ud800"}}', 'lone_surrogate', '');
    rejects('{"ok_name":{"bad-name":{"x":[1e999]}}}', 'non_json_value', '/ok_name');
    rejects('{"a":[1,]}', 'malformed_json', '/a/1');
  });

  it('rejects non-text input as malformed instead of throwing', () => {
    expect(parseUntrustedJson(42 as unknown as string)).toEqual({ ok: false, violation: { rule: 'malformed_json', path: '' } });
    expect(parseUntrustedJson('')).toEqual({ ok: false, violation: { rule: 'malformed_json', path: '' } });
  });

  it('never calls JSON.parse for a rejected input', () => {
    const spy = vi.spyOn(JSON, 'parse');
    for (const text of ['{"a":1,"a":2}', '{"__proto__":1}', '["\\ud800"]', '[1,]', '\ufeff1', '[1e400]']) {
      expect(parseUntrustedJson(text).ok).toBe(false);
    }
    expect(spy).not.toHaveBeenCalled();
  });
});

// The JSON.parse oracle: a text the guard rejects as malformed must be one JSON.parse rejects, and a
// text JSON.parse rejects must never be accepted.
function agreesWithJsonParse(text: string): void {
  const outcome = parseUntrustedJson(text, { maxDepth: 1_000 });
  let parsed: { ok: true; value: unknown } | { ok: false };
  try {
    parsed = { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    parsed = { ok: false };
  }
  if (!parsed.ok) expect(outcome.ok).toBe(false);
  if (!outcome.ok && outcome.violation.rule === 'malformed_json') expect(parsed.ok).toBe(false);
  if (outcome.ok && parsed.ok) expect(outcome.value).toEqual(parsed.value);
}

const JSON_ALPHABET = ['{', '}', '[', ']', ',', ':', '"', '\\', 'u', '0', '1', '-', '.', 'e', 'E', '+', ' ', '\n', 't', 'n', 'f', 'a', '\ud800', '\udc00', '\u0000', '\ufeff'];

const mutatedJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 4 }),
    fc.array(
      fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace', 'duplicate'), fc.constantFrom(...JSON_ALPHABET)),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([value, edits]) => {
    let text = JSON.stringify(value);
    for (const [at, kind, character] of edits) {
      const index = text.length === 0 ? 0 : at % text.length;
      if (kind === 'insert') text = text.slice(0, index) + character + text.slice(index);
      else if (kind === 'delete') text = text.slice(0, index) + text.slice(index + 1);
      else if (kind === 'replace') text = text.slice(0, index) + character + text.slice(index + 1);
      else text = text.slice(0, index) + text.slice(index, index + 8) + text.slice(index);
    }
    return text;
  });

describe('parseUntrustedJson: properties', () => {
  it('never throws on arbitrary strings and agrees with JSON.parse', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), agreesWithJsonParse), { numRuns: 2_000 });
    fc.assert(fc.property(fc.json(), agreesWithJsonParse), { numRuns: 1_000 });
  });

  it('never throws on mutated valid JSON and agrees with JSON.parse', () => {
    fc.assert(fc.property(mutatedJson, agreesWithJsonParse), { numRuns: 3_000 });
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const outcome = parseUntrustedJson(bytes);
        if (outcome.ok) expect(outcome.value).toEqual(JSON.parse(new TextDecoder().decode(bytes)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts exactly what the value check accepts, for any serialized JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.constantFrom(undefined, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const fromText = parseUntrustedJson(text);
        expect(fromText.ok).toBe(checkUntrustedValue(value).ok);
        if (fromText.ok) expect(fromText.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 1_000 },
    );
  });

  it('finds a duplicate however its spelling is escaped', () => {
    const escapeAll = (key: string) =>
      [...key].map((character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`).join('');
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' }), fc.jsonValue({ maxDepth: 1 }), (key, value) => {
        fc.pre(!isForbiddenKey(key) && checkUntrustedValue(value).ok);
        const escaped = JSON.stringify({ [key]: value }).replace(JSON.stringify(key), `"${escapeAll(key)}"`);
        expect(parseUntrustedJson(escaped).ok).toBe(true);
        const doubled = `{${JSON.stringify(key)}:1,"${escapeAll(key)}":2}`;
        expect(parseUntrustedJson(doubled)).toEqual({ ok: false, violation: { rule: 'duplicate_key', path: '' } });
      }),
      { numRuns: 500 },
    );
  });
});

// Limits are host configuration (README "Limits"): an invalid one is a misconfiguration and throws,
// naming the limit, whatever the input; the input itself never makes the guard throw.
const INVALID_LIMITS: [Record<string, unknown>, string][] = [
  [{ maxBytes: '10' }, 'maxBytes'],
  [{ maxBytes: -1 }, 'maxBytes'],
  [{ maxDepth: Number.NaN }, 'maxDepth'],
  [{ maxBytes: null }, 'maxBytes'],
  [{ maxArrayItems: 1.5 }, 'maxArrayItems'],
  [{ maxTotalNodes: Number.POSITIVE_INFINITY }, 'maxTotalNodes'],
  [{ maxStringLength: 2 ** 53 }, 'maxStringLength'],
  [{ maxObjectKeys: 3n }, 'maxObjectKeys'],
];

describe('parseUntrustedJson: invalid limits throw, invalid input never does (fuzzing review)', () => {
  it('throws a TypeError naming the limit, for text, bytes and input of any other kind', () => {
    for (const [limits, name] of INVALID_LIMITS) {
      for (const input of ['[1]', encode('[1]'), 42, null]) {
        const run = () => parseUntrustedJson(input as string, limits as Partial<JsonLimits>);
        expect(run, `${name} ${String(input)}`).toThrow(TypeError);
        expect(run, `${name} ${String(input)}`).toThrow(new RegExp(`\\b${name}\\b`));
      }
    }
  });

  it('throws a TypeError for limits that are not an object', () => {
    for (const limits of ['x', 5, null, true]) {
      expect(() => parseUntrustedJson('[1]', limits as unknown as Partial<JsonLimits>), String(limits)).toThrow(TypeError);
    }
  });
});

describe('parseUntrustedJson: bytes are read through the typed-array intrinsics (fuzzing review)', () => {
  /** A Uint8Array subclass whose `name` getter answers `answer`, whatever the view really is. */
  function lyingClass(overrides: Record<string, () => unknown>): typeof Uint8Array {
    class Lying extends Uint8Array {}
    for (const [name, get] of Object.entries(overrides)) Object.defineProperty(Lying.prototype, name, { get, configurable: true });
    return Lying;
  }

  it('measures a subclass by the bytes it holds, whatever its byteLength or length getter says', () => {
    const Lying = lyingClass({ byteLength: () => 1, length: () => 1 });
    const bytes = new Lying(2_000_000).fill(0x20);
    bytes[0] = 0x31;
    rejects(bytes, 'max_bytes', '', { maxBytes: 16 });
    expect(parseUntrustedJson(bytes, { maxBytes: 2_000_000 })).toEqual({ ok: true, value: 1 });
  });

  it('decodes the bytes the view holds, whatever its buffer, byteOffset or subarray say', () => {
    const decoy = encode('[1]');
    const Lying = lyingClass({ buffer: () => decoy.buffer, byteOffset: () => 0, byteLength: () => 3, length: () => 3 });
    Object.defineProperty(Lying.prototype, 'subarray', { value: () => decoy });
    const real = encode('xx{"a":2}');
    const view = new Lying(real.buffer, 2, 7);
    expect(parseUntrustedJson(view)).toEqual({ ok: true, value: { a: 2 } });
    rejects(view, 'max_bytes', '', { maxBytes: 6 });
  });

  it('answers malformed_json, never throws, for what only poses as a Uint8Array', () => {
    const posing = [
      Object.create(Uint8Array.prototype) as unknown,
      new Proxy(encode('[1]'), {}),
      new Uint16Array([0x31]),
      new DataView(new ArrayBuffer(2)),
      { byteLength: 1, 0: 0x31 },
    ];
    for (const input of posing) rejects(input as Uint8Array, 'malformed_json', '');
  });

  it('reads a Buffer and a Uint8Array of another realm as the bytes they hold', () => {
    expect(parseUntrustedJson(Buffer.from('{"a":[1]}'))).toEqual({ ok: true, value: { a: [1] } });
    const foreign = runInNewContext('new Uint8Array([0x5b, 0x31, 0x5d])') as Uint8Array;
    expect(parseUntrustedJson(foreign)).toEqual({ ok: true, value: [1] });
  });
});
