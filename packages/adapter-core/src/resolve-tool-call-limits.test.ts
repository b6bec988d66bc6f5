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

  it('throws a TypeError for a maxBytes slipped into argumentLimits: maxArgumentBytes is the one byte bound', () => {
    // Read as absent, it would leave the host believing in a tighter bound than the one applied.
    const options = { maxArgumentBytes: 100, argumentLimits: { maxBytes: 5 } } as ToolCallLimitOptions;
    expect(() => resolveToolCallLimits(options)).toThrow(
      new TypeError('argumentLimits.maxBytes is not an option: the byte bound of parsed arguments is maxArgumentBytes'),
    );
  });

  it.each<[string, unknown]>([
    ['a string', 'maxCalls=2'],
    ['an array', [2]],
    ['null', null],
    ['a class instance', new Map([['maxCalls', 2]])],
  ])('throws a TypeError for options that are %s', (_label, options) => {
    expect(() => resolveToolCallLimits(options as ToolCallLimitOptions)).toThrow(/^tool call limit options must be a plain object/);
  });

  it.each<[string, unknown]>([
    ['a string', 'x'],
    ['an array', [3]],
    ['null', null],
    ['a number', 3],
    ['a class instance', new Date(0)],
  ])('throws a TypeError for argumentLimits that is %s', (_label, argumentLimits) => {
    const options = { argumentLimits } as ToolCallLimitOptions;
    expect(() => resolveToolCallLimits(options)).toThrow(/^argumentLimits must be a plain object/);
  });

  it('throws a TypeError naming an option it does not know, at either level', () => {
    expect(() => resolveToolCallLimits({ maxCall: 2 } as ToolCallLimitOptions)).toThrow(
      new TypeError('tool call limit options has no option "maxCall" (known: maxCalls, maxArgumentBytes, argumentLimits)'),
    );
    expect(() => resolveToolCallLimits({ argumentLimits: { maxDeph: 2 } } as ToolCallLimitOptions)).toThrow(
      /^argumentLimits has no option "maxDeph"/,
    );
  });

  it('reads a bound given as undefined, and argumentLimits given as undefined or without a prototype, as unset', () => {
    const argumentLimits = Object.assign(Object.create(null) as object, { maxDepth: 3 });
    expect(resolveToolCallLimits({ maxCalls: undefined, argumentLimits: undefined } as unknown as ToolCallLimitOptions)).toEqual(resolveToolCallLimits());
    expect(resolveToolCallLimits({ argumentLimits }).argumentLimits.maxDepth).toBe(3);
  });

  it.each([
    ['maxCalls', { maxCalls: 0 }],
    ['maxCalls', { maxCalls: 1.5 }],
    ['maxArgumentBytes', { maxArgumentBytes: -1 }],
    ['maxArgumentBytes', { maxArgumentBytes: Number.POSITIVE_INFINITY }],
    ['argumentLimits.maxDepth', { argumentLimits: { maxDepth: Number.NaN } }],
    ['argumentLimits.maxTotalNodes', { argumentLimits: { maxTotalNodes: 2 ** 53 } }],
    ['maxCalls', { maxCalls: '8' }],
    ['argumentLimits.maxDepth', { argumentLimits: { maxDepth: null } }],
  ])('throws a TypeError naming %s when it is not a positive safe integer', (name, options) => {
    expect(() => resolveToolCallLimits(options as ToolCallLimitOptions)).toThrow(new TypeError(`${name} must be a positive safe integer`));
  });
});
