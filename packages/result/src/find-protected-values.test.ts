import type { JsonValue } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findProtectedValues, MIN_PROTECTED_VALUE_LENGTH, protectedNeedles } from './find-protected-values.js';

function find(data: JsonValue, values: readonly (string | null)[]) {
  return findProtectedValues(data, canonicalize(data), protectedNeedles(values));
}

/**
 * The same search without the text shortcut: every string, lowercased, each needle. The pointer
 * stops growing at the first segment that is not contract-safe, for every descendant too (an
 * item of an array under an unsafe key is reported at the parent, not at `/<index>`).
 */
function bruteForce(data: JsonValue, values: readonly (string | null)[], pointer = '/data', safe = true): string[] {
  const needles = protectedNeedles(values);
  // Lowercased with the final sigma folded, as the needles are: `ς` and `σ` are one letter.
  if (typeof data === 'string') return needles.some((needle) => data.toLowerCase().replaceAll('ς', 'σ').includes(needle)) ? [pointer] : [];
  if (typeof data !== 'object' || data === null) return [];
  return Object.entries(data).flatMap(([key, child]) => {
    const extend = safe && /^(?:[A-Za-z0-9_]{1,64}|0|[1-9][0-9]{0,5})$/.test(key);
    return bruteForce(child, values, extend ? `${pointer}/${key}` : pointer, extend);
  });
}

describe('protectedNeedles', () => {
  it(`keeps values of at least ${MIN_PROTECTED_VALUE_LENGTH} characters, lowercased, once each`, () => {
    expect(MIN_PROTECTED_VALUE_LENGTH).toBe(6);
    expect(protectedNeedles(['cedar', 'Tenant-Cedar', 'tenant-cedar', null, 'op-12345', 'abcde'])).toEqual(['tenant-cedar', 'op-12345']);
  });
});

describe('findProtectedValues', () => {
  it('finds a protected value inside business text, case-insensitively, at the string it is in', () => {
    const data = { note: '{"access_token":"x","tenant_id":"TENANT-CEDAR-SECRET"}', lines: [{ memo: 'ok' }, { memo: 'see rcpt-internal-5' }] };
    expect(find(data, ['tenant-cedar-secret', 'rcpt-internal-5'])).toEqual([
      { rule: 'protected_value', path: '/data/note' },
      { rule: 'protected_value', path: '/data/lines/1/memo' },
    ]);
  });

  it('ignores values shorter than the threshold (a tenant named "cedar" is an ordinary word)', () => {
    expect(find({ note: 'Cedar wood' }, ['cedar', 'a'])).toEqual([]);
  });

  it('searches string values only: keys, numbers and booleans never match', () => {
    expect(find({ amount_total: 1234567, order_ref: 'x', flag: true }, ['amount_total', '123456', 'order_ref'])).toEqual([]);
  });

  it('finds values that the canonical text escapes, and values beyond ASCII', () => {
    expect(find({ note: 'key "k\\\\1" here' }, ['"k\\\\1"'])).toEqual([{ rule: 'protected_value', path: '/data/note' }]);
    expect(find({ note: 'line\nbreak-key' }, ['\nbreak-key'])).toEqual([{ rule: 'protected_value', path: '/data/note' }]);
    expect(find({ note: 'Sujet ÉLODIE-42 ici' }, ['élodie-42'])).toEqual([{ rule: 'protected_value', path: '/data/note' }]);
  });

  it('reads TAG characters as the ASCII they mirror (review: a tenant id spelled in them passed), and leaves a flag a flag', () => {
    const tags = (text: string) => [...text].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');
    expect(find({ note: `see ${tags('TENANT-CEDAR-SECRET')} here` }, ['tenant-cedar-secret'])).toEqual([
      { rule: 'protected_value', path: '/data/note' },
    ]);
    // Scotland's flag: a black flag, TAG letters `gbsct` and the cancel tag. No protected value is in it.
    const scotland = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}';
    expect(find({ note: `Edinburgh ${scotland}` }, ['tenant-cedar-secret'])).toEqual([]);
  });

  it('never echoes an unsafe key in the path', () => {
    expect(find({ 'bad key': { inner: 'op-0001-abcdef' } }, ['op-0001-abcdef'])).toEqual([{ rule: 'protected_value', path: '/data' }]);
  });

  it('property: the text shortcut finds exactly what a full walk finds', () => {
    const unit = fc.constantFrom('a', 'B', 'x', '-', '1', '"', '\\', '\n', 'é', 'É', 'Σ', 'σ', 'ς', ' ', 'K', '\u212a', 'k');
    const text = fc.string({ unit, maxLength: 10 });
    const data = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit, maxLength: 6 }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(data, fc.array(fc.string({ unit, minLength: 6, maxLength: 8 }), { maxLength: 3 }), (value, values) => {
        const found = find(value, values).map((violation) => violation.path);
        expect(found).toEqual(bruteForce(value, values));
      }),
      { numRuns: 2_000 },
    );
    // Values planted in the data (in another case), so that hits are common.
    fc.assert(
      fc.property(text, fc.string({ unit, minLength: 6, maxLength: 8 }), text, fc.boolean(), (before, value, after, upper) => {
        const planted = `${before}${upper ? value.toUpperCase() : value}${after}`;
        const found = find({ list: [planted, before], note: planted }, [value]).map((violation) => violation.path);
        expect(found).toEqual(bruteForce({ list: [planted, before], note: planted }, [value]));
      }),
      { numRuns: 2_000 },
    );
  });

  it('finds a number that is a protected value (a numeric id), never one that merely contains it', () => {
    const data = { customer_no: 900100200, amount: 19001002001, lines: [{ ref: 7700112233 }], price: 12.5 };
    expect(find(data, ['900100200', '7700112233'])).toEqual([
      { rule: 'protected_value', path: '/data/customer_no' },
      { rule: 'protected_value', path: '/data/lines/0/ref' },
    ]);
    // Without the canonical text, the walk decides alone, the same way.
    expect(findProtectedValues(data, null, protectedNeedles(['900100200']))).toEqual([{ rule: 'protected_value', path: '/data/customer_no' }]);
    expect(find({ amount: 1000000 }, ['100000'])).toEqual([]);
  });

  it('reports an item of an array under an unsafe key at the parent pointer (the pointer stops growing there)', () => {
    // A counterexample the property below once drew, when its oracle let the pointer grow again.
    const data = { 'é': ['xx secret-1 yy'] };
    expect(find(data, ['secret-1']).map((violation) => violation.path)).toEqual(['/data']);
    expect(bruteForce(data, ['secret-1'])).toEqual(['/data']);
  });

  it('property: with a longer text around data, or no text at all, it still finds exactly what a full walk finds', () => {
    // Verification passes the whole model result text (or nothing) where it has no text of data alone.
    const unit = fc.constantFrom('a', 'B', '-', '1', '"', '\\', 'é', 'É', 'ς', ' ');
    const text = fc.string({ unit, maxLength: 10 });
    const data = fc.dictionary(fc.string({ unit, maxLength: 4 }), fc.oneof(text, fc.array(text, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(data, fc.array(fc.string({ unit, minLength: 6, maxLength: 8 }), { maxLength: 3 }), text, (value, values, around) => {
        const needles = protectedNeedles(values);
        const expected = bruteForce(value, values);
        const surrounding = `{"data":${canonicalize(value)},"note":${JSON.stringify(around)}}`;
        expect(findProtectedValues(value, surrounding, needles).map((violation) => violation.path)).toEqual(expected);
        expect(findProtectedValues(value, null, needles).map((violation) => violation.path)).toEqual(expected);
      }),
      { numRuns: 1_000 },
    );
  });
});
