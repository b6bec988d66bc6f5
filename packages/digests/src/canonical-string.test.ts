import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalString } from './index.js';

describe('canonicalString', () => {
  it('is the canonical text of a well-formed string, and undefined for anything else', () => {
    expect(canonicalString('plain')).toBe('"plain"');
    expect(canonicalString('quote " backslash \\ newline \n nul \u0000 é 😀')).toBe(
      '"quote \\" backslash \\\\ newline \\n nul \\u0000 é 😀"',
    );
    expect(canonicalString(`lone ${String.fromCharCode(0xd800)}`)).toBeUndefined();
    for (const other of [null, undefined, 7, true, {}, [], new String('x')]) expect(canonicalString(other)).toBeUndefined();
  });

  it('agrees with canonicalize on every string', () => {
    const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
    const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: codeUnit }));
    fc.assert(
      fc.property(anyText, (text) => {
        let expected: string | undefined;
        try {
          expected = canonicalize(text);
        } catch {
          expected = undefined;
        }
        expect(canonicalString(text)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
