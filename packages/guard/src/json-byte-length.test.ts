import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonByteLength, jsonNumberLength, jsonStringByteLength } from './json-byte-length.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');
// Any UTF-16 code unit (lone surrogates included), and the characters JSON escapes.
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
  fc.constantFrom('"', '\\', '\b', '\t', '\n', '\f', '\r', '\u0000', '\u001f', '\u007f', '\u0080', '\u07ff', '\u0800', '😀', '\ud800', '\udfff'),
);

describe('jsonStringByteLength', () => {
  it('is the UTF-8 length of JSON.stringify(text) for any UTF-16 text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: codeUnit, maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string()), (text) => {
        expect(jsonStringByteLength(text)).toBe(utf8(JSON.stringify(text)));
      }),
      { numRuns: 3_000 },
    );
  });

  it('counts each kind of character as JSON.stringify writes it', () => {
    expect(jsonStringByteLength('')).toBe(2);
    expect(jsonStringByteLength('abc')).toBe(5);
    expect(jsonStringByteLength('"\\')).toBe(6);
    expect(jsonStringByteLength('\n\u0001')).toBe(2 + 2 + 6);
    expect(jsonStringByteLength('é€😀')).toBe(2 + 2 + 3 + 4);
    expect(jsonStringByteLength('\ud800x')).toBe(2 + 6 + 1);
  });
});

describe('jsonNumberLength', () => {
  it('is the length of JSON.stringify(number) for every finite number (property), at most 25', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.integer({ min: -(2 ** 53), max: 2 ** 53 })), (number) => {
        expect(jsonNumberLength(number)).toBe(JSON.stringify(number).length);
        expect(jsonNumberLength(number)).toBeLessThanOrEqual(25);
      }),
      { numRuns: 3_000 },
    );
    for (const number of [0, -0, 9, 10, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, 1e21, 1e-7, 5e-324, -1.2345678901234567e-6, Number.MAX_VALUE]) {
      expect(jsonNumberLength(number)).toBe(JSON.stringify(number).length);
    }
    expect(jsonNumberLength(-1.2345678901234567e-6)).toBe(25);
  });
});

describe('jsonByteLength', () => {
  it('is Buffer.byteLength(JSON.stringify(value)) for arbitrary JSON values (property)', () => {
    const json = fc.oneof(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }));
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonByteLength(value)).toBe(utf8(JSON.stringify(value)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts a shared subtree once per occurrence, as the text repeats it', () => {
    const shared = { text: 'x'.repeat(100) };
    const value = [shared, shared, { a: shared }];
    expect(jsonByteLength(value)).toBe(utf8(JSON.stringify(value)));
  });

  it('stops soon after passing stopAfter', () => {
    const value = Array.from({ length: 100 }, () => 'x'.repeat(1_000));
    const total = utf8(JSON.stringify(value));
    expect(total).toBe(100_301);
    // The brackets and commas (101), then one string (1002) pass the limit.
    const partial = jsonByteLength(value, 1_000);
    expect(partial).toBe(1_103);
    expect(jsonByteLength(value, total)).toBe(total);
  });

  it('walks 100,000 levels of nesting without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(jsonByteLength(deep)).toBe(200_001);
  });
});
