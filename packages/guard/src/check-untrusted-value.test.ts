import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { checkUntrustedValue, copyUntrustedValue, isWellFormedText } from './check-untrusted-value.js';
import { FORBIDDEN_KEYS } from './forbidden-keys.js';

// A member of JSON text whose key is one of FORBIDDEN_KEYS.
const FORBIDDEN_KEY_MEMBER = new RegExp(`"(?:${FORBIDDEN_KEYS.join('|')})":`);

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
      .filter((value) => !FORBIDDEN_KEY_MEMBER.test(JSON.stringify(value)));
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
        const forbidden = FORBIDDEN_KEY_MEMBER.test(text);
        expect(checkUntrustedValue(value).ok).toBe(!forbidden);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('checkUntrustedValue: size rules are never hidden behind a content rule', () => {
  // What an SDK's JSON.parse hands over for `{"__proto__":...}` (an own key) or `"\ud800"`.
  const big = 'x'.repeat(5 * 1024 * 1024);

  it('reports max_string_length and max_bytes for a value whose first key is __proto__, as without it', () => {
    const value: unknown = JSON.parse(`{"__proto__":1,"blob":"${big}"}`);
    rejects(value, 'max_string_length', '/blob');
    rejects(value, 'max_bytes', '', { maxStringLength: big.length });
  });

  it('reports the size rule for a value whose first key, or first string, has a lone surrogate', () => {
    rejects(JSON.parse(`{"\\ud800":1,"blob":"${big}"}`), 'max_string_length', '/blob');
    rejects(JSON.parse(`{"\\ud800":1,"blob":"${big}"}`), 'max_bytes', '', { maxStringLength: big.length });
    rejects(JSON.parse(`{"a":"\\udc00","blob":"${'x'.repeat(100)}"}`), 'max_bytes', '', { maxBytes: 50 });
    rejects(JSON.parse(`["\\udc00",[1,2,3]]`), 'max_array_items', '/1', { maxArrayItems: 2 });
  });

  it('reports max_depth for a 100,000-deep value behind __proto__, without walking all of it', () => {
    const depth = 100_000;
    const value: unknown = JSON.parse(`{"__proto__":0,"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(checkUntrustedValue(value)).toEqual({ ok: false, violation: { rule: 'max_depth', path: `/deep${'/0'.repeat(15)}` } });
  });

  it('reports every other size rule behind a content rule too', () => {
    const proto = (rest: string): unknown => JSON.parse(`{"__proto__":0,${rest}}`);
    rejects(proto('"a":{"x":1,"y":2,"z":3}'), 'max_object_keys', '/a', { maxObjectKeys: 2 });
    // Values: the root, 0, the array, 1, then 2 is the fifth.
    rejects(proto('"a":[1,2,3]'), 'max_total_nodes', '/a/1', { maxTotalNodes: 4 });
    rejects(proto('"a":{"__proto__":{"b":"abcdefghij"}}'), 'max_string_length', '/a/__proto__/b', { maxStringLength: 9 });
  });

  it('reports the first content violation, at the same path as before, when no size rule breaks', () => {
    // The walk checks an object's own members before the containers inside it (as it always did).
    rejects(JSON.parse('{"a":{"__proto__":{"isAdmin":true}},"b":"\\ud800"}'), 'lone_surrogate', '/b');
    rejects(JSON.parse('{"a":["\\ud800"],"constructor":1}'), 'forbidden_key', '');
    rejects(JSON.parse('{"a":{"__proto__":1},"b":"x"}'), 'forbidden_key', '/a', { maxBytes: 100 });
    rejects(JSON.parse('{"a":{"__proto__":1,"b":"\\ud800"}}'), 'forbidden_key', '/a');
  });

  it('reports the size rules behind NaN or an infinity too (an SDK parses 1e400 as Infinity)', () => {
    // Before: the walk stopped at the infinity, so an adapter acting on size rules let 5 MiB through.
    rejects(JSON.parse(`{"n":1e400,"blob":"${big}"}`), 'max_string_length', '/blob');
    rejects(JSON.parse(`{"n":1e400,"blob":"${big}"}`), 'max_bytes', '', { maxStringLength: big.length });
    const depth = 100_000;
    expect(checkUntrustedValue(JSON.parse(`[-1e400,${'['.repeat(depth)}${']'.repeat(depth)}]`))).toEqual({
      ok: false,
      violation: { rule: 'max_depth', path: `/1${'/0'.repeat(15)}` },
    });
    rejects({ n: Number.NaN, a: [1, 2, 3] }, 'max_array_items', '/a', { maxArrayItems: 2 });
    expect(copyUntrustedValue(JSON.parse(`{"n":1e400,"blob":"${big}"}`)).ok).toBe(false);
  });

  it('reports an infinity as non_json_value at its path, first content violation first, when no size rule breaks', () => {
    rejects(JSON.parse('{"n":1e400,"b":"x"}'), 'non_json_value', '/n');
    rejects(Number.POSITIVE_INFINITY, 'non_json_value', '');
    rejects(JSON.parse('{"n":[1e400],"__proto__":1}'), 'forbidden_key', '');
    rejects(JSON.parse('{"a":{"n":-1e400},"b":"\\ud800"}'), 'lone_surrogate', '/b');
    // Containers are walked last pushed first: `b`'s items before `a`'s keys, as before.
    rejects(JSON.parse('{"a":{"__proto__":0},"b":[1e400]}'), 'non_json_value', '/b/0');
    expect(copyUntrustedValue({ a: [Number.NaN] })).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/a/0' } });
  });

  it('never invokes a getter, nor descends further, after a content violation', () => {
    let reads = 0;
    const value = JSON.parse('{"__proto__":1}') as Record<string, unknown>;
    Object.defineProperty(value, 'amount', {
      enumerable: true,
      get() {
        reads++;
        return 'x'.repeat(1_000);
      },
    });
    value.after = 'x'.repeat(1_000);
    // The accessor ends the walk: the content violation found first is reported.
    rejects(value, 'forbidden_key', '', { maxBytes: 100 });
    expect(reads).toBe(0);
    rejects(JSON.parse('{"__proto__":1,"a":[1,2]}'), 'forbidden_key', '');
  });

  it('property: with a content violation up front, the outcome is the size violation of the clean value, else the content one', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }).filter((value) => !FORBIDDEN_KEY_MEMBER.test(JSON.stringify(value)) && !/\\ud[89a-f]/i.test(JSON.stringify(value))),
        fc.record({
          maxBytes: fc.integer({ min: 0, max: 400 }),
          maxDepth: fc.integer({ min: 1, max: 6 }),
          maxArrayItems: fc.integer({ min: 0, max: 8 }),
          maxObjectKeys: fc.integer({ min: 1, max: 8 }),
          maxStringLength: fc.integer({ min: 9, max: 30 }),
          maxTotalNodes: fc.integer({ min: 1, max: 60 }),
        }),
        (inner, limits) => {
          const body = JSON.stringify(inner);
          // The same text with a plain key of the same length: the same sizes everywhere.
          const clean = checkUntrustedValue(JSON.parse(`{"p________":0,"x":${body}}`), limits);
          const tainted = checkUntrustedValue(JSON.parse(`{"__proto__":0,"x":${body}}`), limits);
          if (!clean.ok) {
            const path = clean.violation.path.replace(/^\/p________/, '/__proto__');
            expect(tainted).toEqual({ ok: false, violation: { rule: clean.violation.rule, path } });
          }
          else expect(tainted).toEqual({ ok: false, violation: { rule: 'forbidden_key', path: '' } });
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('arrays: what is not an item', () => {
  const lines = () => [{ line_id: 'LINE-1', quantity: 1 }];
  const refusesCopy = (value: unknown, path: string) =>
    expect(copyUntrustedValue(value)).toEqual({ ok: false, violation: { rule: 'non_json_value', path } });

  it('checkUntrustedValue ignores an array\'s own properties besides its items, as JSON does, and never reads them', () => {
    let calls = 0;
    const count = () => {
      calls++;
      return 'x';
    };
    const accessor = lines();
    Object.defineProperty(accessor, 'approved', { enumerable: true, get: count });
    const symbol = lines();
    Object.defineProperty(symbol, Symbol('hidden'), { value: count, enumerable: false });
    for (const extra of [Object.assign(lines(), { approved: true }), Object.assign(lines(), { toJSON: count }), accessor, symbol]) {
      expect(checkUntrustedValue({ lines: extra })).toEqual({ ok: true, value: { lines: extra } });
    }
    expect(calls).toBe(0);
  });

  it('copyUntrustedValue refuses an extra enumerable, function-valued, accessor, symbol or own __proto__ property of an array, wherever it is, without invoking it', () => {
    let calls = 0;
    const count = () => {
      calls++;
      return 'x';
    };
    refusesCopy({ lines: Object.assign(lines(), { approved: true }) }, '/lines');
    refusesCopy([Object.assign([1], { tenant_id: 'other' })], '/0');
    refusesCopy(Object.assign([], { x: 1 }), '');
    refusesCopy({ lines: Object.assign(lines(), { toJSON: count }) }, '/lines');
    const accessor = lines();
    Object.defineProperty(accessor, 'approved', { enumerable: true, get: count });
    refusesCopy({ lines: accessor }, '/lines');
    const symbol = lines();
    Object.defineProperty(symbol, Symbol('hidden'), { value: count, enumerable: false });
    refusesCopy({ lines: symbol }, '/lines');
    const proto = lines();
    Object.defineProperty(proto, '__proto__', { value: { polluted: 1 }, enumerable: true, writable: true, configurable: true });
    refusesCopy({ lines: proto }, '/lines');
    expect(calls).toBe(0);
  });

  it("copyUntrustedValue with arrayProperties 'drop' copies the items alone, never reading the other properties", () => {
    let calls = 0;
    const accessor = lines();
    Object.defineProperty(accessor, 'approved', { enumerable: true, get: () => ++calls });
    Object.defineProperty(accessor, Symbol('hidden'), { value: 1, enumerable: true });
    const value = { lines: accessor, matched: Object.assign(['refund 42', '42'], { index: 0, input: 'refund 42' }) };
    const copied = copyUntrustedValue(value, undefined, { arrayProperties: 'drop' });
    expect(copied).toEqual({ ok: true, value: { lines: lines(), matched: ['refund 42', '42'] } });
    const copy = copied.ok ? (copied.value as { lines: unknown[]; matched: unknown[] }) : null;
    expect(copy && Reflect.ownKeys(copy.lines)).toEqual(['0', 'length']);
    expect(copy && Reflect.ownKeys(copy.matched)).toEqual(['0', '1', 'length']);
    expect(calls).toBe(0);
    // Everything else is refused as without the option: a hole, a value JSON cannot express.
    expect(copyUntrustedValue({ a: [1, , 3] }, undefined, { arrayProperties: 'drop' })).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/a/1' } });
    expect(copyUntrustedValue({ a: [Number.NaN] }, undefined, { arrayProperties: 'drop' })).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/a/0' } });
    expect(copyUntrustedValue(value)).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/matched' } });
  });

  it('leaves a non-enumerable named property of an array alone: never read, never copied (documented)', () => {
    const hidden = lines();
    Object.defineProperty(hidden, 'approved', { value: true, enumerable: false });
    expect(checkUntrustedValue({ lines: hidden }).ok).toBe(true);
    const copied = copyUntrustedValue({ lines: hidden });
    expect(copied.ok && Object.getOwnPropertyNames((copied.value as { lines: unknown[] }).lines)).toEqual(['0', 'length']);
  });

  it('still reports a hole where it is, and accepts plain and empty arrays', () => {
    rejects({ a: [1, , 3] }, 'non_json_value', '/a/1'); // eslint-disable-line no-sparse-arrays
    const holeAndExtra = Object.assign([1, , 3], { x: 1 }); // eslint-disable-line no-sparse-arrays
    expect(checkUntrustedValue(holeAndExtra).ok).toBe(false);
    expect(copyUntrustedValue(holeAndExtra).ok).toBe(false);
    expect(checkUntrustedValue({ a: [], b: [[]], c: JSON.parse('[1,"x",null]') as unknown }).ok).toBe(true);
    expect(copyUntrustedValue({ a: [], b: [[]], c: JSON.parse('[1,"x",null]') as unknown }).ok).toBe(true);
  });
});

describe('copyUntrustedValue', () => {
  it('returns a fresh, JSON-equal, unfrozen copy and leaves the input untouched', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = [1, { z: null }];
    const input = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1', quantity: 1 }], flag: false, bare };
    const before = JSON.stringify(input);
    const outcome = copyUntrustedValue(input);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const copy = outcome.value as typeof input;
    expect(copy).not.toBe(input);
    expect(copy.lines).not.toBe(input.lines);
    expect(copy.lines[0]).not.toBe(input.lines[0]);
    expect(copy.bare).not.toBe(bare);
    expect(Object.getPrototypeOf(copy.bare)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe(before);
    expect(Object.isFrozen(copy) || Object.isFrozen(input)).toBe(false);
    input.lines[0] = { line_id: 'LINE-9', quantity: 9 };
    expect(copy.lines[0]).toEqual({ line_id: 'LINE-1', quantity: 1 });
    expect(copyUntrustedValue('x')).toEqual({ ok: true, value: 'x' });
  });

  it('reads every element once and returns what it read, even from an index accessor', () => {
    let reads = 0;
    const items: unknown[] = [];
    Object.defineProperty(items, 0, {
      enumerable: true,
      configurable: true,
      get() {
        reads++;
        return reads === 1 ? { quantity: 1 } : { quantity: 1_000_000 };
      },
    });
    const outcome = copyUntrustedValue({ items });
    expect(reads).toBe(1);
    expect(outcome).toEqual({ ok: true, value: { items: [{ quantity: 1 }] } });
  });

  it('counts maxBytes on what it copied', () => {
    const value = { a: 'café', b: [1.5, true, null] };
    const bytes = Buffer.byteLength(JSON.stringify(value));
    expect(copyUntrustedValue(value, { maxBytes: bytes }).ok).toBe(true);
    expect(copyUntrustedValue(value, { maxBytes: bytes - 1 })).toEqual({ ok: false, violation: { rule: 'max_bytes', path: '' } });
  });

  it('property: decides exactly as checkUntrustedValue, and a copy serializes like the input', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withDate: true, withMap: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }),
        (value) => {
          const checked = checkUntrustedValue(value);
          const copied = copyUntrustedValue(value);
          expect(copied.ok).toBe(checked.ok);
          if (!checked.ok) expect(copied).toEqual(checked);
          else expect(JSON.stringify(copied.ok ? copied.value : null)).toBe(JSON.stringify(value));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('isWellFormedText', () => {
  it('agrees with a reference check on arbitrary UTF-16', () => {
    const reference = (text: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => isWellFormedText(text) === reference(text)), { numRuns: 2_000 });
  });
});

describe('checkUntrustedValue and copyUntrustedValue: invalid limits throw, values never do (fuzzing review)', () => {
  it('throws a TypeError naming the limit, whatever the value', () => {
    const invalid: [Record<string, unknown>, string][] = [
      [{ maxBytes: '10' }, 'maxBytes'],
      [{ maxDepth: -1 }, 'maxDepth'],
      [{ maxDepth: Number.NaN }, 'maxDepth'],
      [{ maxDepth: Number.POSITIVE_INFINITY }, 'maxDepth'],
      [{ maxBytes: null }, 'maxBytes'],
      [{ maxObjectKeys: 1.5 }, 'maxObjectKeys'],
    ];
    for (const [limits, name] of invalid) {
      for (const walk of [checkUntrustedValue, copyUntrustedValue]) {
        for (const value of [[1], undefined, () => 1]) {
          const run = () => walk(value, limits as Parameters<typeof checkUntrustedValue>[1]);
          expect(run, name).toThrow(TypeError);
          expect(run, name).toThrow(new RegExp(`\\b${name}\\b`));
        }
      }
    }
    for (const limits of ['x', 5, null]) {
      expect(() => checkUntrustedValue([1], limits as unknown as Parameters<typeof checkUntrustedValue>[1])).toThrow(TypeError);
    }
  });
});

describe('checkUntrustedValue reads values as JavaScript reads them (README; fuzzing review)', () => {
  it('reads a hole through the prototype chain: refused, unless Array.prototype was given that index', () => {
    const holey = [0, , 2]; // eslint-disable-line no-sparse-arrays
    rejects(holey, 'non_json_value', '/1');
    const prototype = Array.prototype as unknown as Record<number, unknown>;
    prototype[1] = 'polluted';
    try {
      expect(checkUntrustedValue(holey)).toEqual({ ok: true, value: holey });
      expect(copyUntrustedValue(holey)).toEqual({ ok: true, value: [0, 'polluted', 2] });
    } finally {
      delete prototype[1];
    }
  });

  it('reads a Proxy as what its traps answer, a lying getPrototypeOf trap included', () => {
    const posing = new Proxy(new Date(0), { getPrototypeOf: () => Object.prototype });
    expect(copyUntrustedValue({ when: posing })).toEqual({ ok: true, value: { when: {} } });
  });
});

// Review 2 F6: `copyUntrustedValue(v, limits, { arrayProperties: 'keep' })` copied under the strict
// default, and a misspelt `arrayProperty` was never read; both are refused with a TypeError naming
// them, whatever the value, as invalid limits are.
describe('copyUntrustedValue: options are checked (review 2 F6)', () => {
  type CopyOptions = Parameters<typeof copyUntrustedValue>[2];
  const withExtra = () => Object.assign([1], { extra: 1 });

  it('refuses an arrayProperties value other than refuse and drop, naming it', () => {
    expect(() => copyUntrustedValue(withExtra(), undefined, { arrayProperties: 'keep' } as unknown as CopyOptions)).toThrow(
      new TypeError(`copyUntrustedValue: arrayProperties must be 'refuse' or 'drop', got "keep"`),
    );
    for (const arrayProperties of ['Drop', 'ignore', '', true, null, 0]) {
      expect(() => copyUntrustedValue([1], undefined, { arrayProperties } as unknown as CopyOptions), String(arrayProperties)).toThrow(/arrayProperties must be/);
    }
  });

  it('refuses a member that is no option, naming it and the known one', () => {
    expect(() => copyUntrustedValue(withExtra(), undefined, { arrayProperty: 'drop' } as unknown as CopyOptions)).toThrow(
      new TypeError('copyUntrustedValue: unknown option "arrayProperty" (known options: arrayProperties)'),
    );
    expect(() => copyUntrustedValue([1], undefined, { arrayProperties: 'drop', limits: {} } as unknown as CopyOptions)).toThrow(/unknown option "limits"/);
  });

  it('refuses options that are neither undefined nor an object, whatever the value', () => {
    for (const options of [null, 'drop', ['drop'], 1]) {
      for (const value of [[1], undefined, () => 1]) {
        expect(() => copyUntrustedValue(value, undefined, options as unknown as CopyOptions), String(options)).toThrow(/copyUntrustedValue: options must be an object/);
      }
    }
  });

  it('keeps the meaning of the options it knows', () => {
    const refused = { ok: false, violation: { rule: 'non_json_value', path: '' } };
    expect(copyUntrustedValue(withExtra())).toEqual(refused);
    expect(copyUntrustedValue(withExtra(), undefined, {})).toEqual(refused);
    expect(copyUntrustedValue(withExtra(), undefined, { arrayProperties: 'refuse' })).toEqual(refused);
    expect(copyUntrustedValue(withExtra(), undefined, { arrayProperties: undefined } as unknown as CopyOptions)).toEqual(refused);
    expect(copyUntrustedValue(withExtra(), undefined, Object.freeze({ arrayProperties: 'drop' } as const))).toEqual({ ok: true, value: [1] });
  });

  it('checks options reused from call to call without listing their keys, and reads arrayProperties once', () => {
    const drop = Object.freeze({ arrayProperties: 'drop' } as const);
    let reads = 0;
    const counted = { get arrayProperties() { reads++; return 'drop' as const; } };
    const keys = vi.spyOn(Object, 'keys');
    try {
      expect(copyUntrustedValue([1, 'x'], undefined, drop)).toEqual({ ok: true, value: [1, 'x'] });
      expect(copyUntrustedValue({ a: 1 }, undefined)).toEqual({ ok: true, value: { a: 1 } });
      expect(copyUntrustedValue(withExtra(), undefined, counted)).toEqual({ ok: true, value: [1] });
      expect(keys).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
    }
    expect(reads).toBe(1);
  });
});

// Review 2 F2: the README said accessor properties are rejected and no getter is ever invoked after
// a content violation. Both hold for objects only; an array element is an ordinary property read.
// This is what the README (and the doc comment of checkUntrustedValue) now say.
describe('array elements are ordinary property reads (README; review 2 F2)', () => {
  const indexGetter = (answers: string[]) => {
    const calls = { count: 0 };
    const array = [0];
    Object.defineProperty(array, 0, { enumerable: true, get: () => answers[Math.min(calls.count++, answers.length - 1)] });
    return { array, calls };
  };

  it('invokes a getter on an array index once and checks what it answered; an object getter is refused, never invoked', () => {
    const { array, calls } = indexGetter(['first', 'second']);
    expect(checkUntrustedValue(array).ok).toBe(true);
    expect(calls.count).toBe(1);
    const answersNaN = Object.defineProperty([0], 0, { enumerable: true, get: () => Number.NaN });
    expect(checkUntrustedValue(answersNaN)).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/0' } });
    expect(copyUntrustedValue(indexGetter(['first', 'second']).array)).toEqual({ ok: true, value: ['first'] });
    let objectCalls = 0;
    const object = { get x() { objectCalls++; return 1; } };
    expect(checkUntrustedValue(object)).toEqual({ ok: false, violation: { rule: 'non_json_value', path: '/x' } });
    expect(objectCalls).toBe(0);
  });

  it('accepts a non-enumerable array index, as JSON.stringify writes it; a non-enumerable object property is refused', () => {
    const array = [1, 2];
    Object.defineProperty(array, 1, { value: 2, enumerable: false });
    const checked = checkUntrustedValue(array);
    expect(checked.ok && checked.value).toBe(array);
    expect(copyUntrustedValue(array)).toEqual({ ok: true, value: [1, 2] });
    expect(checkUntrustedValue(Object.defineProperty({}, 'x', { value: 1, enumerable: false })).ok).toBe(false);
  });

  it('after a content violation, still reads array elements (a getter on an index is invoked once), never an object getter', () => {
    const { array, calls } = indexGetter(['x']);
    let objectCalls = 0;
    const value = JSON.parse('{"__proto__":1}') as Record<string, unknown>;
    value.list = array;
    expect(checkUntrustedValue(value)).toEqual({ ok: false, violation: { rule: 'forbidden_key', path: '' } });
    expect(calls.count).toBe(1);
    const withObjectGetter = JSON.parse('{"__proto__":1}') as Record<string, unknown>;
    Object.defineProperty(withObjectGetter, 'x', { enumerable: true, get: () => ++objectCalls });
    expect(checkUntrustedValue(withObjectGetter)).toEqual({ ok: false, violation: { rule: 'forbidden_key', path: '' } });
    expect(objectCalls).toBe(0);
  });
});
