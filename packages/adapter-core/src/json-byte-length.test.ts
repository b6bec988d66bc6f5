import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonByteLength } from './json-byte-length.js';

const utf8 = new TextEncoder();

describe('jsonByteLength', () => {
  it('equals the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonByteLength(value)).toBe(utf8.encode(JSON.stringify(value)).length);
      }),
      { numRuns: 1000 },
    );
  });

  it('counts escapes, controls and astral characters exactly', () => {
    const value = { 'k"\\': ['\b\t\n\f\r', '\u0000\u001f', '€', '😀', -0, 1e21, 0.1, true, null, {}] };
    expect(jsonByteLength(value)).toBe(utf8.encode(JSON.stringify(value)).length);
  });

  it('stops early once past the limit', () => {
    const big = Array.from({ length: 10_000 }, () => 'x'.repeat(100));
    // The full encoding is 1,030,001 bytes; the walk stops after the brackets, commas and one item.
    expect(jsonByteLength(big)).toBe(1_030_001);
    const measured = jsonByteLength(big, 1_000);
    expect(measured).toBeGreaterThan(1_000);
    expect(measured).toBeLessThan(10_200);
  });
});
