import { describe, expect, it, vi } from 'vitest';
import { checkUntrustedValue, copyUntrustedValue } from './check-untrusted-value.js';
import { DEFAULT_JSON_LIMITS, resolveJsonLimits, type JsonLimits } from './json-limits.js';
import { parseUntrustedJson } from './parse-untrusted-json.js';
import { scanJsonText } from './scan-json-text.js';

describe('resolveJsonLimits', () => {
  it('returns the frozen defaults when nothing is given', () => {
    expect(resolveJsonLimits()).toBe(DEFAULT_JSON_LIMITS);
    expect(Object.isFrozen(DEFAULT_JSON_LIMITS)).toBe(true);
  });

  it('overrides only the limits given', () => {
    expect(resolveJsonLimits({ maxBytes: 100 })).toEqual({ ...DEFAULT_JSON_LIMITS, maxBytes: 100 });
    expect(resolveJsonLimits({ maxDepth: 0 }).maxDepth).toBe(0);
  });

  it('fills a limit given as undefined from the defaults, not from the guard', () => {
    // `exactOptionalPropertyTypes` keeps TypeScript callers from writing this; JavaScript callers
    // and spreads of optional settings do.
    const unset = { maxBytes: undefined, maxDepth: 3 } as unknown as Partial<JsonLimits>;
    expect(resolveJsonLimits(unset)).toEqual({ ...DEFAULT_JSON_LIMITS, maxDepth: 3 });
    const own: JsonLimits = { maxBytes: 16, maxDepth: 2, maxArrayItems: 3, maxObjectKeys: 4, maxStringLength: 5, maxTotalNodes: 6 };
    expect(resolveJsonLimits(unset, own)).toEqual({ ...own, maxDepth: 3 });
    expect(resolveJsonLimits(undefined, own)).toEqual(own);
    expect(resolveJsonLimits({}, own)).toEqual(own);
  });

  it('throws for a default that is not a non-negative safe integer', () => {
    const broken = { ...DEFAULT_JSON_LIMITS, maxTotalNodes: -1 };
    expect(() => resolveJsonLimits(undefined, broken)).toThrow(TypeError);
    expect(resolveJsonLimits({ maxTotalNodes: 7 }, broken).maxTotalNodes).toBe(7);
  });

  it('throws for a limit that is not a non-negative safe integer', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => resolveJsonLimits({ maxArrayItems: bad })).toThrow(TypeError);
    }
    expect(() => resolveJsonLimits({ maxObjectKeys: '3' as unknown as number })).toThrow(TypeError);
  });
});

describe('resolveJsonLimits: invalid limits (fuzzing review)', () => {
  it('names the limit and the value given', () => {
    expect(() => resolveJsonLimits({ maxBytes: '10' as unknown as number })).toThrow(/maxBytes .*"10"/);
    expect(() => resolveJsonLimits({ maxDepth: Number.NaN })).toThrow(/maxDepth .*NaN/);
    expect(() => resolveJsonLimits({ maxTotalNodes: null as unknown as number })).toThrow(/maxTotalNodes .*null/);
  });

  it('throws a TypeError for limits that are not an object', () => {
    for (const limits of ['x', 5, null, true]) {
      expect(() => resolveJsonLimits(limits as unknown as Partial<JsonLimits>), String(limits)).toThrow(TypeError);
    }
  });
});

describe('resolveJsonLimits: unknown limits (configuration review)', () => {
  it('refuses a member that is no limit, naming it, instead of keeping the default', () => {
    expect(() => resolveJsonLimits({ maxByte: 10 } as unknown as Partial<JsonLimits>)).toThrow(
      new TypeError(
        'JSON limits: unknown limit "maxByte" (known limits: maxBytes, maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes)',
      ),
    );
    const own: JsonLimits = { maxBytes: 16, maxDepth: 2, maxArrayItems: 3, maxObjectKeys: 4, maxStringLength: 5, maxTotalNodes: 6 };
    expect(() => resolveJsonLimits({ maxDepth: 3, max_total_nodes: 7 } as unknown as Partial<JsonLimits>, own)).toThrow(/"max_total_nodes"/);
  });

  it('refuses it from every entry point that takes limits, whatever the input', () => {
    const misspelt = { maxByte: 10 } as unknown as Partial<JsonLimits>;
    expect(() => parseUntrustedJson('{"a":1}', misspelt)).toThrow(/unknown limit "maxByte"/);
    expect(() => scanJsonText('{"a":1}', misspelt)).toThrow(/unknown limit "maxByte"/);
    expect(() => checkUntrustedValue({ a: 1 }, misspelt)).toThrow(/unknown limit "maxByte"/);
    expect(() => copyUntrustedValue({ a: 1 }, misspelt)).toThrow(/unknown limit "maxByte"/);
    // Every real limit name is still accepted, resolved limits included.
    expect(resolveJsonLimits({ ...DEFAULT_JSON_LIMITS })).toEqual(DEFAULT_JSON_LIMITS);
  });
});

// Review 4 §6: the unknown-name check ran on every call with limits other than the defaults, though
// callers resolve their limits once at start-up and pass that object to every guard call (about
// 50 ns more per call, twice on the sealed call path). A result of resolveJsonLimits is frozen and
// remembered: given back, it is returned at once, with no check; any other object is checked in full.
describe('resolveJsonLimits: resolved limits given back (hot path review)', () => {
  const own: JsonLimits = { maxBytes: 16, maxDepth: 2, maxArrayItems: 3, maxObjectKeys: 4, maxStringLength: 5, maxTotalNodes: 6 };

  it('returns a frozen result, and that very object when given it back, whatever the defaults, without reading it again', () => {
    const resolved = resolveJsonLimits({ maxBytes: 100 });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(resolved).toEqual({ ...DEFAULT_JSON_LIMITS, maxBytes: 100 });
    const keys = vi.spyOn(Object, 'keys');
    try {
      expect(resolveJsonLimits(resolved)).toBe(resolved);
      expect(resolveJsonLimits(resolved, own)).toBe(resolved);
      expect(keys).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
    }
    // Resolved under other defaults: all six limits are set, so later defaults change nothing.
    const fromOwn = resolveJsonLimits({ maxDepth: 1 }, own);
    expect(fromOwn).toEqual({ ...own, maxDepth: 1 });
    expect(resolveJsonLimits(fromOwn)).toBe(fromOwn);
    expect(resolveJsonLimits(DEFAULT_JSON_LIMITS, own)).toBe(DEFAULT_JSON_LIMITS);
    // Every entry point takes them as they are.
    expect(parseUntrustedJson('"a long string"', resolveJsonLimits({ maxStringLength: 3 }))).toMatchObject({ ok: false });
    expect(checkUntrustedValue([1, 2], resolveJsonLimits({ maxArrayItems: 2 })).ok).toBe(true);
  });

  it('lets every entry point take resolved limits without checking them again', () => {
    const resolved = resolveJsonLimits({ maxDepth: 4 });
    const keys = vi.spyOn(Object, 'keys');
    try {
      expect(parseUntrustedJson('1', resolved).ok).toBe(true);
      expect(scanJsonText('1', resolved)).toBeNull();
      expect(checkUntrustedValue(1, resolved).ok).toBe(true);
      expect(copyUntrustedValue(1, resolved).ok).toBe(true);
      expect(keys).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
    }
  });

  it('still checks in full any object it did not return, a frozen one included', () => {
    const resolved = resolveJsonLimits({ maxBytes: 100 });
    const copied = Object.freeze({ ...resolved });
    expect(resolveJsonLimits(copied)).not.toBe(copied);
    expect(resolveJsonLimits(copied)).toEqual(resolved);
    expect(() => resolveJsonLimits(Object.freeze({ ...resolved, maxDepth: -1 }))).toThrow(/maxDepth/);
    expect(() => resolveJsonLimits(Object.freeze({ ...resolved, maxByte: 10 }) as unknown as Partial<JsonLimits>)).toThrow(/unknown limit "maxByte"/);
    expect(() => resolveJsonLimits(Object.freeze({ maxDepth: undefined }) as unknown as Partial<JsonLimits>, Object.freeze({ ...own, maxDepth: Number.NaN }))).toThrow(/maxDepth/);
  });
});

// Review 2 F6 (survey of every options object): the defaults given to resolveJsonLimits were read
// limit by limit, so a misspelt member beside the six (`{ ...PACKAGE_LIMITS, maxByte: 10 }`) kept
// the package's maxBytes without a word. It is refused as a misspelt limit is.
describe('resolveJsonLimits: unknown members of the defaults (review 2 F6)', () => {
  const own: JsonLimits = { maxBytes: 16, maxDepth: 2, maxArrayItems: 3, maxObjectKeys: 4, maxStringLength: 5, maxTotalNodes: 6 };

  it('refuses a member of the defaults that is no limit, naming it', () => {
    const misspelt = { ...own, maxByte: 10 } as unknown as JsonLimits;
    expect(() => resolveJsonLimits({ maxDepth: 1 }, misspelt)).toThrow(
      new TypeError(
        'JSON limits (defaults): unknown limit "maxByte" (known limits: maxBytes, maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes)',
      ),
    );
    expect(() => resolveJsonLimits(undefined, misspelt)).toThrow(/unknown limit "maxByte"/);
  });

  it('takes its own results and DEFAULT_JSON_LIMITS as defaults without listing them, and given resolved limits ignores the defaults', () => {
    const resolvedDefaults = resolveJsonLimits(undefined, own);
    const keys = vi.spyOn(Object, 'keys');
    try {
      expect(resolveJsonLimits({ maxDepth: 1 }, resolvedDefaults)).toEqual({ ...own, maxDepth: 1 });
      expect(resolveJsonLimits({ maxDepth: 1 }, DEFAULT_JSON_LIMITS)).toEqual({ ...DEFAULT_JSON_LIMITS, maxDepth: 1 });
      expect(keys).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
    }
    const resolved = resolveJsonLimits({ maxDepth: 1 });
    expect(resolveJsonLimits(resolved, { ...own, maxByte: 10 } as unknown as JsonLimits)).toBe(resolved);
  });
});
