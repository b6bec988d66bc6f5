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
});
