import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constant-time-equal.js';

describe('constantTimeEqual', () => {
  const digest = '3a'.repeat(32);

  it('is true only for identical strings', () => {
    expect(constantTimeEqual(digest, `${digest}`)).toBe(true);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual(digest, `${digest.slice(0, 63)}b`)).toBe(false);
    expect(constantTimeEqual(digest, `b${digest.slice(1)}`)).toBe(false);
    expect(constantTimeEqual(digest, digest.toUpperCase())).toBe(false);
  });

  it('is false for different lengths, including a prefix', () => {
    expect(constantTimeEqual(digest, digest.slice(0, 63))).toBe(false);
    expect(constantTimeEqual(digest, `${digest}0`)).toBe(false);
    expect(constantTimeEqual('', digest)).toBe(false);
  });

  it('is false for anything that is not a string', () => {
    expect(constantTimeEqual(digest, undefined as unknown as string)).toBe(false);
    expect(constantTimeEqual(null as unknown as string, null as unknown as string)).toBe(false);
  });

  it('agrees with === on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });
});
