import { describe, expect, it } from 'vitest';
import { INPUT_RULES, makeError } from '@toolseal/errors';
import { contractSafePointer } from './contract-safe-pointer.js';

describe('contractSafePointer', () => {
  it('keeps plain names and indexes', () => {
    expect(contractSafePointer([])).toBe('');
    expect(contractSafePointer(['lines', 0, 'line_id'])).toBe('/lines/0/line_id');
  });

  it('stops before the first unsafe segment', () => {
    expect(contractSafePointer(['lines', 'a b', 'x'])).toBe('/lines');
    expect(contractSafePointer(['a/b'])).toBe('');
    expect(contractSafePointer(['ok', ''])).toBe('/ok');
    expect(contractSafePointer(['ok', 'x'.repeat(65)])).toBe('/ok');
    expect(contractSafePointer(['ok', 1_000_000])).toBe('/ok');
    expect(contractSafePointer(['ok', -1])).toBe('/ok');
    expect(contractSafePointer(['tоken'])).toBe('');
  });

  it('keeps at most 16 segments, so the pointer is always a valid ErrorReason.field', () => {
    const pointer = contractSafePointer(Array.from({ length: 40 }, () => 'a'));
    expect(pointer).toBe('/a'.repeat(16));
    expect(makeError('INVALID_ARGUMENTS', { reasons: [{ field: pointer, rule: INPUT_RULES[0] ?? 'type' }] }).reasons).toHaveLength(1);
  });
});
