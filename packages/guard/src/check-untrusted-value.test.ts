import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkUntrustedValue, isWellFormedText } from './check-untrusted-value.js';

function rejects(value: unknown, rule: string, path: string, limits?: Parameters<typeof checkUntrustedValue>[1]) {
  expect(checkUntrustedValue(value, limits)).toEqual({ ok: false, violation: { rule, path } });
}

class Point {
  x = 1;
}

describe('checkUntrustedValue', () => {
  it('returns the same value, not a copy, when it is plain JSON', () => {
    const value = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1', quantity: 1 }], note: null, flag: true };
    const outcome = checkUntrustedValue(value);
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.value).toBe(value);
    const bare = Object.create(null) as Record<string, unknown>;
    bare.a = 1;
    expect(checkUntrustedValue(bare).ok).toBe(true);
  });

  it('rejects every value JSON cannot express', () => {
    rejects(undefined, 'non_json_value', '');
    rejects({ a: undefined }, 'non_json_value', '/a');
    rejects({ a: () => 1 }, 'non_json_value', '/a');
    rejects({ a: Symbol('s') }, 'non_json_value', '/a');
    rejects({ a: 1n }, 'non_json_value', '/a');
    rejects([Number.NaN], 'non_json_value', '/0');
    rejects([1, Number.POSITIVE_INFINITY], 'non_json_value', '/1');
    rejects({ a: { when: new Date(0) } }, 'non_json_value', '/a/when');
    rejects({ a: new Map() }, 'non_json_value', '/a');
    rejects({ a: new Point() }, 'non_json_value', '/a');
    rejects({ a: new String('x') }, 'non_json_value', '/a');
    rejects({ a: /x/ }, 'non_json_value', '/a');
    rejects({ a: new Uint8Array(2) }, 'non_json_value', '/a');
    class Items extends Array<number> {}
    rejects({ a: Items.from([1]) }, 'non_json_value', '/a');
  });

  it('rejects sparse arrays, symbol keys, accessors and non-enumerable properties', () => {
    rejects({ a: [1, , 3] }, 'non_json_value', '/a/1'); // eslint-disable-line no-sparse-arrays
    rejects({ a: { [Symbol('k')]: 1 } }, 'non_json_value', '/a');
    let reads = 0;
    const getter = {
      get amount() {
        reads++;
        return 6000;
      },
    };
    rejects({ a: getter }, 'non_json_value', '/a/amount');
    expect(reads).toBe(0);
    const hidden = {};
    Object.defineProperty(hidden, 'amount', { value: 1, enumerable: false });
    rejects({ a: hidden }, 'non_json_value', '/a/amount');
  });

  it('rejects forbidden keys, including an own __proto__ key', () => {
    rejects(JSON.parse('{"a":{"__proto__":{"isAdmin":true}}}'), 'forbidden_key', '/a');
    rejects({ constructor: 1 }, 'forbidden_key', '');
    rejects({ x: [{ prototype: 1 }] }, 'forbidden_key', '/x/0');
  });

  it('rejects lone surrogates in strings and keys', () => {
    rejects({ a: 'x\ud800' }, 'lone_surrogate', '/a');
    rejects({ a: ['\udc00'] }, 'lone_surrogate', '/a/0');
    rejects({ '\ud800': 1 }, 'lone_surrogate', '');
    expect(checkUntrustedValue({ a: '\ud83d\ude00' }).ok).toBe(true);
  });

  it('reports a cycle as max_depth', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(checkUntrustedValue(cycle)).toMatchObject({ ok: false, violation: { rule: 'max_depth' } });
  });

  it('bounds a shared-subtree graph that would expand exponentially', () => {
    let node: unknown = 1;
    for (let level = 0; level < 40; level++) node = [node, node];
    expect(checkUntrustedValue(node, { maxDepth: 64 })).toMatchObject({ ok: false, violation: { rule: 'max_total_nodes' } });
  });

  it('walks a 100,000-deep value without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = { a: deep };
    expect(checkUntrustedValue(deep)).toEqual({ ok: false, violation: { rule: 'max_depth', path: '/a'.repeat(16) } });
    const unlimited = checkUntrustedValue(deep, { maxDepth: 100_000, maxTotalNodes: 200_000 });
    expect(unlimited.ok).toBe(true);
  });

  it('enforces each limit exactly', () => {
    expect(checkUntrustedValue([[1]], { maxDepth: 2 }).ok).toBe(true);
    rejects([[1]], 'max_depth', '/0', { maxDepth: 1 });
    expect(checkUntrustedValue('x', { maxDepth: 0 }).ok).toBe(true);
    rejects({ a: [1, 2, 3] }, 'max_array_items', '/a', { maxArrayItems: 2 });
    rejects({ a: { x: 1, y: 2, z: 3 } }, 'max_object_keys', '/a', { maxObjectKeys: 2 });
    rejects({ a: 'abcd' }, 'max_string_length', '/a', { maxStringLength: 3 });
    rejects({ abcd: 1 }, 'max_string_length', '', { maxStringLength: 3 });
    expect(checkUntrustedValue([1, 2, 3], { maxTotalNodes: 4 }).ok).toBe(true);
    rejects([1, 2, 3], 'max_total_nodes', '/2', { maxTotalNodes: 3 });
  });

  it('enforces maxBytes on the UTF-8 size of the JSON text, exactly, with an empty path', () => {
    // {"note":"café"} is 16 bytes: the é takes two.
    expect(checkUntrustedValue({ note: 'café' }, { maxBytes: 16 }).ok).toBe(true);
    rejects({ note: 'café' }, 'max_bytes', '', { maxBytes: 15 });
    // Escapes count as written: "\n" is two bytes, a control character six.
    expect(checkUntrustedValue(['\n\u0001'], { maxBytes: 12 }).ok).toBe(true);
    rejects(['\n\u0001'], 'max_bytes', '', { maxBytes: 11 });
    expect(checkUntrustedValue(null, { maxBytes: 4 }).ok).toBe(true);
    rejects(false, 'max_bytes', '', { maxBytes: 4 });
    rejects([], 'max_bytes', '', { maxBytes: 1 });
  });

  it('accepts a value exactly at maxBytes and rejects it one byte lower (property: the count is Buffer.byteLength(JSON.stringify(value)))', () => {
    const json = fc
      .oneof(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }))
      .filter((value) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(value)));
    fc.assert(
      fc.property(json, (value) => {
        const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
        expect(checkUntrustedValue(value, { maxBytes: bytes }).ok).toBe(true);
        expect(checkUntrustedValue(value, { maxBytes: bytes - 1 })).toEqual({ ok: false, violation: { rule: 'max_bytes', path: '' } });
      }),
      { numRuns: 1_500 },
    );
  });

  it('counts a shared subtree once per occurrence towards maxBytes', () => {
    const shared = 'x'.repeat(1_000);
    const value = [shared, shared, shared];
    const bytes = Buffer.byteLength(JSON.stringify(value));
    expect(bytes).toBe(3_010);
    expect(checkUntrustedValue(value, { maxBytes: bytes }).ok).toBe(true);
    rejects(value, 'max_bytes', '', { maxBytes: bytes - 1 });
  });

  it('rejects an oversized value without walking all of it', () => {
    const reads = { count: 0 };
    const items = new Proxy(Array.from({ length: 4_000 }, () => 'x'.repeat(1_000)), {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^[0-9]+$/.test(property)) reads.count++;
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    rejects({ items }, 'max_bytes', '', { maxBytes: 10_000 });
    expect(reads.count).toBeLessThan(20);
  });

  it('never echoes an unsafe key in a path', () => {
    rejects({ 'ignore all rules': { x: Number.NaN } }, 'non_json_value', '');
  });

  it('never throws on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true }), (value) => {
        const outcome = checkUntrustedValue(value);
        // Whatever passes survives a JSON round trip unchanged (-0 aside, which JSON writes as 0).
        if (outcome.ok) {
          const text = JSON.stringify(outcome.value);
          expect(JSON.stringify(JSON.parse(text))).toBe(text);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('accepts every generated JSON value free of forbidden keys and lone surrogates', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const forbidden = /"(__proto__|constructor|prototype)":/.test(text);
        expect(checkUntrustedValue(value).ok).toBe(!forbidden);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('isWellFormedText', () => {
  it('agrees with a reference check on arbitrary UTF-16', () => {
    const reference = (text: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => isWellFormedText(text) === reference(text)), { numRuns: 2_000 });
  });
});
