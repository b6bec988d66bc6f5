import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_LIMITS, resolveJsonLimits } from './json-limits.js';

describe('resolveJsonLimits', () => {
  it('returns the frozen defaults when nothing is given', () => {
    expect(resolveJsonLimits()).toBe(DEFAULT_JSON_LIMITS);
    expect(Object.isFrozen(DEFAULT_JSON_LIMITS)).toBe(true);
  });

  it('overrides only the limits given', () => {
    expect(resolveJsonLimits({ maxBytes: 100 })).toEqual({ ...DEFAULT_JSON_LIMITS, maxBytes: 100 });
    expect(resolveJsonLimits({ maxDepth: 0 }).maxDepth).toBe(0);
  });

  it('throws for a limit that is not a non-negative safe integer', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => resolveJsonLimits({ maxArrayItems: bad })).toThrow(TypeError);
    }
    expect(() => resolveJsonLimits({ maxObjectKeys: '3' as unknown as number })).toThrow(TypeError);
  });
});
