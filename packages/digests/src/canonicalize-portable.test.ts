import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { canonicalize as Canonicalize } from './canonicalize.js';

// Outside Node (no global Buffer) canonicalize decodes its output with TextDecoder('utf-16le').
// Load a fresh copy of the module with Buffer hidden, so that path runs here too.
let portable: typeof Canonicalize;

beforeAll(async () => {
  vi.resetModules();
  vi.stubGlobal('Buffer', undefined);
  try {
    ({ canonicalize: portable } = await import('./canonicalize.js'));
  } finally {
    vi.unstubAllGlobals();
  }
});

afterAll(() => {
  vi.resetModules();
});

describe('canonicalize without a global Buffer', () => {
  it('loaded without Buffer', () => {
    expect(typeof globalThis.Buffer).toBe('function');
    expect(typeof portable).toBe('function');
  });

  it('gives JSON.stringify text for strings of every size, surrogate pairs included', () => {
    for (const length of [0, 1, 100, 16_383, 16_384, 16_385, 70_000, 300_000]) {
      const text = `😀${'é'.repeat(length)}\n😀`;
      expect(portable(text)).toBe(JSON.stringify(text));
    }
  });

  it('matches the canonical text of nested values', () => {
    expect(portable({ b: [1, 'é', { d: null, c: true }], a: -0 })).toBe('{"a":0,"b":[1,"é",{"c":true,"d":null}]}');
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), (value) => {
        const text = portable(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(portable(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});
