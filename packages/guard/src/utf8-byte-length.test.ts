import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8ByteLength, utf8LengthWithin } from './utf8-byte-length.js';

const encoder = new TextEncoder();

describe('utf8ByteLength', () => {
  it('equals the encoded length for any UTF-16 string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts 1, 2, 3 and 4 byte characters', () => {
    expect(utf8ByteLength('a')).toBe(1);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('\u{1f600}')).toBe(4);
    expect(utf8ByteLength('\ud800')).toBe(3);
  });

  it('stops as soon as the limit is passed', () => {
    expect(utf8ByteLength('é'.repeat(1_000), 10)).toBe(12);
  });
});

describe('utf8LengthWithin', () => {
  it('agrees with the encoded length at and around the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), fc.nat(400), (text, limit) => {
        expect(utf8LengthWithin(text, limit)).toBe(encoder.encode(text).length <= limit);
      }),
      { numRuns: 2_000 },
    );
  });
});
