import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
import { parseUntrustedJson } from './parse-untrusted-json.js';
import { scanJsonText } from './scan-json-text.js';

// scanJsonText is exported: it resolves and checks its limits as parseUntrustedJson does (README
// "Limits"), and answers any input, never throwing on it (fuzzing review).
describe('scanJsonText: limits', () => {
  it('takes the defaults for limits left out, given as undefined or partial', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(scanJsonText('[1]')).toBeNull();
    expect(scanJsonText('[1]', undefined)).toBeNull();
    expect(scanJsonText(deep(DEFAULT_JSON_LIMITS.maxDepth))).toBeNull();
    expect(scanJsonText(deep(DEFAULT_JSON_LIMITS.maxDepth + 1))?.rule).toBe('max_depth');
    expect(scanJsonText('[[1]]', { maxDepth: 1 })).toEqual({ rule: 'max_depth', path: '/0' });
    expect(scanJsonText('[1,2]', { maxArrayItems: 1 })).toEqual({ rule: 'max_array_items', path: '' });
  });

  it('enforces maxBytes on the UTF-8 length first, as parseUntrustedJson does', () => {
    expect(scanJsonText('["é"]', { maxBytes: 6 })).toBeNull();
    expect(scanJsonText('["é"]', { maxBytes: 5 })).toEqual({ rule: 'max_bytes', path: '' });
    expect(scanJsonText('[1, 2, 3', { maxBytes: 2 })).toEqual({ rule: 'max_bytes', path: '' });
  });

  it('throws a TypeError naming the limit for a limit that is not a non-negative safe integer', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const [limits, name] of [
      [{ maxDepth: Number.NaN }, 'maxDepth'],
      [{ maxDepth: '1' }, 'maxDepth'],
      [{ maxTotalNodes: -1 }, 'maxTotalNodes'],
      [{ maxStringLength: 1.5 }, 'maxStringLength'],
      [{ ...DEFAULT_JSON_LIMITS, maxDepth: Number.NaN }, 'maxDepth'],
    ] as const) {
      const run = () => scanJsonText(deep, limits as unknown as Partial<JsonLimits>);
      expect(run, name).toThrow(TypeError);
      expect(run, name).toThrow(new RegExp(`\\b${name}\\b`));
    }
    expect(() => scanJsonText('[1]', 'x' as unknown as Partial<JsonLimits>)).toThrow(TypeError);
  });
});

describe('scanJsonText: input', () => {
  it('answers malformed_json at the root for anything but a string, as parseUntrustedJson answers a non-text input', () => {
    for (const input of [5, null, undefined, true, {}, ['[1]'], new String('[1]'), new TextEncoder().encode('[1]')]) {
      expect(scanJsonText(input as string), String(input)).toEqual({ rule: 'malformed_json', path: '' });
    }
  });

  it('agrees with parseUntrustedJson on any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        const parsed = parseUntrustedJson(text);
        expect(scanJsonText(text)).toEqual(parsed.ok ? null : parsed.violation);
      }),
      { numRuns: 500 },
    );
  });
});
