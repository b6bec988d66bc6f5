import fc from 'fast-check';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { checkDigester, checkIdentifier, checkOptionNames, checkSha256Hex, checkStorableText } from './check-store-input.js';
import { StoreInputError } from './store-input-error.js';

function accepts(value: string): boolean {
  try {
    checkStorableText('field', value, 10_000);
    return true;
  } catch (error) {
    if (!StoreInputError.isInstance(error)) throw error;
    return false;
  }
}

describe('checkStorableText', () => {
  it('accepts exactly the strings UTF-8 and PostgreSQL text hold unchanged (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), (anything, valid) => {
        const roundTrips = new TextDecoder('utf-8', { fatal: false }).decode(new TextEncoder().encode(anything)) === anything;
        expect(accepts(anything)).toBe(roundTrips && !anything.includes('\u0000'));
        expect(accepts(valid)).toBe(!valid.includes('\u0000'));
      }),
    );
    expect(accepts('\uD83D\uDE00')).toBe(true);
    expect(accepts('\uD83D')).toBe(false);
    expect(accepts('\uDE00\uD83D')).toBe(false);
    expect(accepts('a\u0000b')).toBe(false);
  });

  it('checks type and length', () => {
    expect(() => checkIdentifier('key', 'x'.repeat(257))).toThrow(StoreInputError);
    expect(() => checkIdentifier('key', '')).toThrow(StoreInputError);
    expect(() => checkIdentifier('key', 7)).toThrow(StoreInputError);
    expect(checkIdentifier('key', 'x'.repeat(256))).toHaveLength(256);
  });
});

describe('checkSha256Hex', () => {
  it('accepts only 64 lowercase hexadecimal characters', () => {
    expect(checkSha256Hex('digest', 'a'.repeat(64))).toBe('a'.repeat(64));
    for (const bad of ['A'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), ` ${'a'.repeat(63)}`, null]) {
      expect(() => checkSha256Hex('digest', bad)).toThrow(StoreInputError);
    }
  });
});

describe('checkOptionNames (configuration review)', () => {
  it('refuses a member whose name is not a known option, naming it in the StoreInputError field', () => {
    let thrown: unknown;
    try {
      checkOptionNames({ path: 'x', busyTimeoutMS: 5 }, ['path', 'busyTimeoutMs']);
    } catch (error) {
      thrown = error;
    }
    expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('busyTimeoutMS');
    expect(String(thrown)).toContain('busyTimeoutMS: is not an option (known options: path, busyTimeoutMs)');
    expect(() => checkOptionNames({ path: 'x' }, ['path', 'busyTimeoutMs'])).not.toThrow();
  });
});

describe('checkDigester', () => {
  // Review 4 §7: `keyed` was checked here and read again by each store for `auditLog.keyed`.
  it('returns the digester with the keyed value it checked, read once', () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(3) });
    expect(checkDigester(digester)).toEqual({ digester, keyed: true });
    expect(checkDigester(createDigester()).keyed).toBe(false);
    let reads = 0;
    const flipping = {
      digestTagged: digester.digestTagged,
      digestText: digester.digestText,
      get keyed(): unknown {
        reads += 1;
        return reads === 1;
      },
    };
    const checked = checkDigester(flipping);
    expect(checked.keyed).toBe(true);
    expect(checked.digester).toBe(flipping);
    expect(reads).toBe(1);
    expect(Object.isFrozen(checked)).toBe(true);
  });
});
