import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LONE_SURROGATE, NO_ROOM, writeJsonString } from './write-json-string.js';

const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
// Mostly escapes and surrogates, where the room accounting matters.
const tricky = fc.oneof(codeUnit, fc.constantFrom('\u0000', '\n', '"', '\\', '\u001f', 'a', '😀', '\ud800', '\udc00'));
const isWellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

function unitsOf(buffer: Uint16Array, start: number, end: number): string {
  return String.fromCharCode(...buffer.subarray(start, end));
}

describe('writeJsonString', () => {
  it('writes JSON.stringify escaping, or reports NO_ROOM, never writing past the buffer', () => {
    fc.assert(
      fc.property(fc.string({ unit: tricky, maxLength: 24 }), fc.nat({ max: 4 }), fc.nat({ max: 200 }), (text, offset, extra) => {
        // The caller guarantees text.length + 3 units; anything up to the worst case is possible.
        const size = offset + text.length + 3 + (extra % (5 * text.length + 1));
        const buffer = new Uint16Array(size);
        const result = writeJsonString(buffer, offset, text);
        if (!isWellFormed(text) && result === LONE_SURROGATE) return;
        if (result === NO_ROOM) {
          // Conservative by at most 4 units (it reserves 6 for every escape, short ones need 2).
          expect(size).toBeLessThan(offset + JSON.stringify(text).length + 1 + 4);
          return;
        }
        expect(isWellFormed(text)).toBe(true);
        // At least one unit stays free for the caller's colon or comma.
        expect(result).toBeLessThan(size);
        expect(unitsOf(buffer, offset, result)).toBe(JSON.stringify(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('never needs more than 6 units per code unit plus 3', () => {
    fc.assert(
      fc.property(fc.string({ unit: tricky, maxLength: 24 }), (text) => {
        const buffer = new Uint16Array(text.length * 6 + 3);
        const result = writeJsonString(buffer, 0, text);
        expect(result).not.toBe(NO_ROOM);
        expect(result === LONE_SURROGATE).toBe(!isWellFormed(text));
      }),
    );
  });

  it('fits exactly when the escaped text plus one unit fits', () => {
    const text = 'a\u0001b';
    const escaped = JSON.stringify(text); // "a\u0001b" with quotes: 10 units
    expect(writeJsonString(new Uint16Array(escaped.length + 1), 0, text)).toBe(escaped.length);
    expect(writeJsonString(new Uint16Array(escaped.length), 0, text)).toBe(NO_ROOM);
  });
});
