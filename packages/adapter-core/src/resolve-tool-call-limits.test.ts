import { DEFAULT_JSON_LIMITS } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_ARGUMENT_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
  resolveToolCallLimits,
  type ToolCallLimitOptions,
} from './resolve-tool-call-limits.js';

describe('resolveToolCallLimits', () => {
  it('defaults to 64 calls, 1 MiB of arguments and the guard limits', () => {
    expect(DEFAULT_MAX_TOOL_CALLS).toBe(64);
    expect(DEFAULT_MAX_ARGUMENT_BYTES).toBe(1_048_576);
    const limits = resolveToolCallLimits();
    expect(limits).toEqual({
      maxCalls: 64,
      maxArgumentBytes: 1_048_576,
      argumentLimits: { ...DEFAULT_JSON_LIMITS, maxBytes: 1_048_576 },
    });
    expect(Object.isFrozen(limits)).toBe(true);
    expect(Object.isFrozen(limits.argumentLimits)).toBe(true);
  });

  it('takes every bound a host sets, and ties argumentLimits.maxBytes to maxArgumentBytes', () => {
    const limits = resolveToolCallLimits({
      maxCalls: 2,
      maxArgumentBytes: 100,
      argumentLimits: { maxDepth: 3, maxArrayItems: 4, maxObjectKeys: 5, maxStringLength: 6, maxTotalNodes: 7 },
    });
    expect(limits).toEqual({
      maxCalls: 2,
      maxArgumentBytes: 100,
      argumentLimits: { maxBytes: 100, maxDepth: 3, maxArrayItems: 4, maxObjectKeys: 5, maxStringLength: 6, maxTotalNodes: 7 },
    });
  });

  it('ignores a maxBytes slipped into argumentLimits: maxArgumentBytes is the one byte bound', () => {
    const options = { maxArgumentBytes: 100, argumentLimits: { maxBytes: 5 } } as ToolCallLimitOptions;
    expect(resolveToolCallLimits(options).argumentLimits.maxBytes).toBe(100);
  });

  it.each([
    ['maxCalls', { maxCalls: 0 }],
    ['maxCalls', { maxCalls: 1.5 }],
    ['maxArgumentBytes', { maxArgumentBytes: -1 }],
    ['maxArgumentBytes', { maxArgumentBytes: Number.POSITIVE_INFINITY }],
    ['argumentLimits.maxDepth', { argumentLimits: { maxDepth: Number.NaN } }],
    ['argumentLimits.maxTotalNodes', { argumentLimits: { maxTotalNodes: 2 ** 53 } }],
  ])('throws a TypeError naming %s when it is not a positive safe integer', (name, options) => {
    expect(() => resolveToolCallLimits(options)).toThrow(new TypeError(`${name} must be a positive safe integer`));
  });
});
