import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWellFormedIdentifier, MAX_PROVIDER_ID_LENGTH, MAX_TOOL_NAME_LENGTH } from './is-well-formed-identifier.js';

describe('isWellFormedIdentifier', () => {
  it('allows ids and names of up to 256 code units', () => {
    expect(MAX_PROVIDER_ID_LENGTH).toBe(256);
    expect(MAX_TOOL_NAME_LENGTH).toBe(256);
    expect(isWellFormedIdentifier('c', 256)).toBe(true);
    expect(isWellFormedIdentifier('c'.repeat(256), 256)).toBe(true);
    expect(isWellFormedIdentifier('c'.repeat(257), 256)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['a number', 7],
    ['null', null],
    ['undefined', undefined],
    ['an array', ['call_1']],
    ['a lone high surrogate', 'call_\ud800'],
    ['a lone low surrogate', '\udc00call'],
  ])('refuses %s', (_label, value) => {
    expect(isWellFormedIdentifier(value, 256)).toBe(false);
  });

  it('accepts astral characters as well-formed surrogate pairs', () => {
    expect(isWellFormedIdentifier('call_😀', 256)).toBe(true);
  });

  it('property: true exactly for 1 to maxLength code units that encode to UTF-8 losslessly', () => {
    // Half surrogates mixed with any code point: some pair up, most stay lone.
    const unit = fc.oneof(fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), fc.integer({ min: 1, max: 10 }), (text, maxLength) => {
        const lossless = new TextDecoder().decode(new TextEncoder().encode(text)) === text;
        expect(isWellFormedIdentifier(text, maxLength)).toBe(text.length >= 1 && text.length <= maxLength && lossless);
      }),
    );
  });
});
