import { describe, expect, it } from 'vitest';
import { isSha256Hex } from './sha256-hex.js';

describe('isSha256Hex', () => {
  it('accepts exactly 64 lowercase hex characters', () => {
    expect(isSha256Hex('0123456789abcdef'.repeat(4))).toBe(true);
    expect(isSha256Hex('0123456789ABCDEF'.repeat(4))).toBe(false);
    expect(isSha256Hex('a'.repeat(63))).toBe(false);
    expect(isSha256Hex('a'.repeat(65))).toBe(false);
    expect(isSha256Hex(`${'a'.repeat(64)}\n`)).toBe(false);
    expect(isSha256Hex('g'.repeat(64))).toBe(false);
    expect(isSha256Hex(42)).toBe(false);
  });

  it('refuses every code unit other than 0-9 and a-f, wherever it stands', () => {
    const hex = new Set('0123456789abcdef');
    for (let unit = 0; unit <= 0xffff; unit++) {
      const character = String.fromCharCode(unit);
      for (const at of [0, 31, 63]) {
        const candidate = `${'0'.repeat(at)}${character}${'f'.repeat(63 - at)}`;
        if (isSha256Hex(candidate) !== hex.has(character)) throw new Error(`U+${unit.toString(16)} at ${at}`);
      }
    }
    expect(isSha256Hex(`${'a'.repeat(63)}\u{1F600}`.slice(0, 64))).toBe(false);
  });
});
