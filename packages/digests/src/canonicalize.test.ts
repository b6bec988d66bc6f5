import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CanonicalizationError, type CanonicalizationFailureReason } from './canonicalization-error.js';
import { canonicalize, DEFAULT_MAX_DEPTH, type CanonicalizeOptions } from './canonicalize.js';
import { rememberCanonicalText } from './remembered-texts.js';
import { createDigester } from './digester.js';

/** An obviously correct, slow canonicalizer for well-formed plain data: the oracle. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${reference(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

function failure(run: () => unknown): { reason: CanonicalizationFailureReason; path: string } {
  try {
    run();
  } catch (error) {
    if (CanonicalizationError.isInstance(error)) return { reason: error.reason, path: error.path };
    throw error;
  }
  throw new Error('expected a CanonicalizationError');
}

function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

// Any UTF-16 code unit, lone surrogates included.
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
const anyUnitString = fc.string({ unit: codeUnit, maxLength: 12 });
const isWellFormed = (text: string): boolean => !/\p{Cs}/u.test(text);

// Keys that stress ordering and prototype handling, plus arbitrary full-Unicode keys.
const key = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'toJSON', '', '1', '10', '2', '-1', 'a', 'A', 'é', '\uffff', '😀', '\u0000'),
  fc.nat({ max: 5000 }).map(String),
);
const scalar = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { json: jsonData } = fc.letrec((tie) => ({
  json: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('json'), { maxLength: 6 }),
  // Object.fromEntries defines own data properties, so "__proto__" stays an ordinary key.
  object: fc
    .uniqueArray(fc.tuple(key, tie('json')), { selector: ([name]) => name, maxLength: 6 })
    .map((entries) => Object.fromEntries(entries)),
}));

/** Rebuilds every object with its keys inserted in a seeded pseudo-random order. */
function permuteKeys(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node !== 'object' || node === null) return node;
    const entries = Object.entries(node);
    for (let index = entries.length - 1; index > 0; index--) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      const other = state % (index + 1);
      [entries[index], entries[other]] = [entries[other] as [string, unknown], entries[index] as [string, unknown]];
    }
    return Object.fromEntries(entries.map(([name, child]) => [name, visit(child)]));
  };
  return visit(value);
}

describe('canonicalize: output', () => {
  it('writes scalars as RFC 8785 does', () => {
    expect(canonicalize(null)).toBe('null');
    expect(canonicalize(true)).toBe('true');
    expect(canonicalize(false)).toBe('false');
    expect(canonicalize(0)).toBe('0');
    expect(canonicalize(-0)).toBe('0');
    expect(canonicalize('')).toBe('""');
    expect(canonicalize([])).toBe('[]');
    expect(canonicalize({})).toBe('{}');
  });

  it('writes numbers with the ECMAScript Number-to-string algorithm (RFC 8785 §3.2.2.3)', () => {
    const cases: [number, string][] = [
      [1e21, '1e+21'],
      [1e20, '100000000000000000000'],
      [1e-7, '1e-7'],
      [0.000001, '0.000001'],
      [5e-324, '5e-324'],
      [Number.MAX_VALUE, '1.7976931348623157e+308'],
      [-Number.MAX_SAFE_INTEGER, '-9007199254740991'],
      [333333333.33333329, '333333333.3333333'],
      [4.5, '4.5'],
      [0.1 + 0.2, '0.30000000000000004'],
      [-1.5e-10, '-1.5e-10'],
    ];
    for (const [number, text] of cases) expect(canonicalize(number)).toBe(text);
  });

  it('writes integers like String() at every digit-count boundary', () => {
    const integers = [0, 1, 9, 10, 99, 100, 999_999_999, 1e9, 1e9 + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, -1, -10, -(2 ** 31)];
    for (let power = 1; power < 1e16; power *= 10) integers.push(power - 1, power, power + 1);
    for (const integer of integers) expect(canonicalize([integer])).toBe(`[${String(integer)}]`);
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), (integer) => {
        expect(canonicalize(integer)).toBe(String(integer));
      }),
    );
  });

  it('escapes exactly what JSON.stringify escapes, for every BMP code unit outside the surrogates', () => {
    for (let unit = 0; unit < 0x10000; unit++) {
      if (unit >= 0xd800 && unit <= 0xdfff) continue;
      const text = String.fromCharCode(unit);
      expect(canonicalize(text)).toBe(JSON.stringify(text));
    }
    expect(canonicalize('\u0000\u001f\b\t\n\f\r"\\/\u007f\u2028')).toBe('"\\u0000\\u001f\\b\\t\\n\\f\\r\\"\\\\/\u007f\u2028"');
  });

  it('sorts keys by UTF-16 code units, not code points or locale', () => {
    // U+1F600 is D83D DE00 in UTF-16, so it sorts before U+FFFF; integer-like keys sort as strings.
    const value = { '\uffff': 1, '😀': 2, '10': 3, '2': 4, '1': 5, b: 6, B: 7, é: 8, '': 9 };
    expect(canonicalize(value)).toBe('{"":9,"1":5,"10":3,"2":4,"B":7,"b":6,"é":8,"😀":2,"\uffff":1}');
  });

  it('sorts large objects too', () => {
    const names = Array.from({ length: 200 }, (_, index) => `key${(index * 7919) % 200}`);
    const value = Object.fromEntries(names.map((name) => [name, name]));
    expect(canonicalize(value)).toBe(reference(value));
  });

  it('keeps "__proto__" and "toJSON" as ordinary keys and accepts null-prototype objects', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"b":1,"a":2},"toJSON":"x"}');
    expect(canonicalize(parsed)).toBe('{"__proto__":{"a":2,"b":1},"toJSON":"x"}');
    const bare = Object.create(null) as Record<string, unknown>;
    bare['z'] = 1;
    bare['a'] = [bare['z']];
    expect(canonicalize(bare)).toBe('{"a":[1],"z":1}');
  });

  it('accepts shared references that are not cycles', () => {
    const shared = { x: 1 };
    expect(canonicalize({ a: shared, b: [shared, shared] })).toBe('{"a":{"x":1},"b":[{"x":1},{"x":1}]}');
  });

  it('handles strings and keys that need many escapes and a growing buffer', () => {
    const controls = '\u0001'.repeat(50_000);
    const long = `${'é'.repeat(30_000)}😀${'"'.repeat(20_000)}`;
    const value = { [controls]: long, list: [controls, long, 'x'.repeat(100_000)] };
    expect(canonicalize(value)).toBe(reference(value));
    // The scratch buffer is reused: a small value right after a large one is still exact.
    expect(canonicalize({ b: '\n', a: 1 })).toBe('{"a":1,"b":"\\n"}');
  });

  it('keeps surrogate pairs intact across the chunks a long result is decoded in', () => {
    // Chunks are 16384 units: put a pair on both sides of the first and second boundary.
    for (let offset = 16_375; offset <= 16_390; offset++) {
      for (const boundary of [0, 16_384]) {
        const text = `${'x'.repeat(offset + boundary)}😀😀${'y'.repeat(20_000)}`;
        expect(canonicalize([text])).toBe(JSON.stringify([text]));
      }
    }
    // Just below and above one chunk, and past the sizes V8 keeps in large-object space (2^17
    // units) or Node makes an external string of (about 10^6 units).
    for (const length of [16_380, 16_381, 262_140, 262_150, 1_100_000]) {
      const text = `😀${'é'.repeat(length)}😀`;
      expect(canonicalize(text)).toBe(JSON.stringify(text));
    }
  });

  it('stays correct when a getter calls canonicalize during a walk', () => {
    const inner = { y: 'inner', x: [1, 2] };
    const outer = {
      get a(): string {
        return canonicalize(inner);
      },
      b: 'after',
    };
    expect(canonicalize(outer)).toBe(`{"a":${JSON.stringify('{"x":[1,2],"y":"inner"}')},"b":"after"}`);
  });
});

describe('canonicalize: rejections', () => {
  class Point {
    x = 1;
  }
  class List extends Array<number> {}
  const symbolKeyed = { a: 1, [Symbol('hidden')]: 2 };
  const nonEnumerable = Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false });
  const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
  const args = (function (..._rest: unknown[]) {
    // eslint-disable-next-line prefer-rest-params
    return arguments;
  })(1, 2);

  const cases: [string, unknown, CanonicalizationFailureReason, string][] = [
    ['a lone high surrogate', { a: ['ok', 'x\ud800y'] }, 'lone_surrogate', '/a/1'],
    ['a lone low surrogate', { a: '\udc00' }, 'lone_surrogate', '/a'],
    ['a reversed pair', ['\udc00\ud800'], 'lone_surrogate', '/0'],
    ['a high surrogate at the end', 'abc\udbff', 'lone_surrogate', ''],
    ['a lone surrogate in the first key', { x: { '\ud800': 1 } }, 'lone_surrogate', '/x'],
    ['a lone surrogate in a later key', { x: { a: 1, 'b\udfff': 2 } }, 'lone_surrogate', '/x'],
    ['NaN', { n: NaN }, 'non_finite_number', '/n'],
    ['Infinity', [Infinity], 'non_finite_number', '/0'],
    ['-Infinity', -Infinity, 'non_finite_number', ''],
    ['undefined', undefined, 'unsupported_type', ''],
    ['undefined in an array', [1, undefined], 'unsupported_type', '/1'],
    ['undefined as a property value', { a: 1, b: undefined }, 'unsupported_type', '/b'],
    ['an array hole', { h: holey }, 'unsupported_type', '/h/1'],
    ['a BigInt', { n: 1n }, 'unsupported_type', '/n'],
    ['a function', { f: () => 1 }, 'unsupported_type', '/f'],
    ['a toJSON method', { toJSON: () => 'x' }, 'unsupported_type', '/toJSON'],
    ['a symbol value', [Symbol('s')], 'unsupported_type', '/0'],
    ['a symbol-keyed property', { o: symbolKeyed }, 'unsupported_type', '/o'],
    ['a non-enumerable property', [nonEnumerable], 'unsupported_type', '/0'],
    ['a Date', { d: new Date(0) }, 'unsupported_type', '/d'],
    ['a Map', new Map([['a', 1]]), 'unsupported_type', ''],
    ['a Set', { s: new Set([1]) }, 'unsupported_type', '/s'],
    ['a RegExp', [/x/], 'unsupported_type', '/0'],
    ['a class instance', { p: new Point() }, 'unsupported_type', '/p'],
    ['an Array subclass', { l: List.from([1]) }, 'unsupported_type', '/l'],
    ['a boxed string', [new String('x')], 'unsupported_type', '/0'],
    ['a typed array', new Uint8Array(2), 'unsupported_type', ''],
    ['an arguments object', { args }, 'unsupported_type', '/args'],
    ['an object posing as an array', Object.create(Array.prototype) as unknown, 'unsupported_type', ''],
    ['an Error', { e: new Error('x') }, 'unsupported_type', '/e'],
  ];

  it.each(cases)('rejects %s', (_label, value, reason, path) => {
    expect(failure(() => canonicalize(value))).toEqual({ reason, path });
  });

  it('escapes JSON Pointer segments and keeps the message free of the path', () => {
    const error = (() => {
      try {
        canonicalize({ 'a/b~c': [0, { secret_key: NaN }] });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CanonicalizationError);
    expect(CanonicalizationError.isInstance(error)).toBe(true);
    expect(CanonicalizationError.isInstance(new Error('x'))).toBe(false);
    const typed = error as CanonicalizationError;
    expect(typed.path).toBe('/a~1b~0c/1/secret_key');
    expect(typed.name).toBe('CanonicalizationError');
    expect(typed.message).not.toContain('secret_key');
  });

  it('detects cycles through objects and arrays', () => {
    const self: Record<string, unknown> = { a: 1 };
    self['self'] = self;
    expect(failure(() => canonicalize(self))).toEqual({ reason: 'cycle', path: '/self' });

    const loop: unknown[] = [];
    const holder = { list: loop };
    loop.push(0, holder);
    expect(failure(() => canonicalize({ root: holder }))).toEqual({ reason: 'cycle', path: '/root/list/1' });
    expect(failure(() => canonicalize({ root: holder }, { maxDepth: 5 }))).toEqual({ reason: 'cycle', path: '/root/list/1' });
  });
});

describe('canonicalize: depth', () => {
  it(`allows ${DEFAULT_MAX_DEPTH} nested containers by default and rejects one more`, () => {
    expect(canonicalize(nestedArrays(DEFAULT_MAX_DEPTH))).toBe('['.repeat(DEFAULT_MAX_DEPTH) + ']'.repeat(DEFAULT_MAX_DEPTH));
    const tooDeep = failure(() => canonicalize(nestedArrays(DEFAULT_MAX_DEPTH + 1)));
    expect(tooDeep.reason).toBe('max_depth');
    expect(tooDeep.path).toBe('/0'.repeat(DEFAULT_MAX_DEPTH));
  });

  it('counts empty containers and honours small limits', () => {
    expect(canonicalize('x', { maxDepth: 0 })).toBe('"x"');
    expect(failure(() => canonicalize([], { maxDepth: 0 }))).toEqual({ reason: 'max_depth', path: '' });
    expect(failure(() => canonicalize({}, { maxDepth: 0 }))).toEqual({ reason: 'max_depth', path: '' });
    expect(canonicalize({ a: [{}] }, { maxDepth: 3 })).toBe('{"a":[{}]}');
    expect(failure(() => canonicalize({ a: [{}] }, { maxDepth: 2 }))).toEqual({ reason: 'max_depth', path: '/a/0' });
  });

  it('rejects 100,000 nested arrays and objects with max_depth, not a stack overflow', () => {
    expect(failure(() => canonicalize(nestedArrays(100_000))).reason).toBe('max_depth');
    const objects = failure(() => canonicalize(nestedObjects(100_000)));
    expect(objects.reason).toBe('max_depth');
    expect(objects.path).toBe('/a'.repeat(DEFAULT_MAX_DEPTH));
  });

  it('canonicalizes 100,000 nested levels when the limit allows it (the walk is iterative)', () => {
    const depth = 100_000;
    expect(canonicalize(nestedArrays(depth), { maxDepth: depth })).toBe('['.repeat(depth) + ']'.repeat(depth));
    expect(canonicalize(nestedObjects(depth), { maxDepth: depth })).toBe('{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1));
  });

  it('refuses a maxDepth that is not a non-negative safe integer', () => {
    for (const maxDepth of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => canonicalize([], { maxDepth })).toThrow(RangeError);
    }
  });
});

describe('canonicalize: properties', () => {
  it('agrees with the reference canonicalizer on arbitrary plain JSON data', () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        expect(canonicalize(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
  });

  it('is a fixed point: canonicalize(JSON.parse(canonicalize(x))) === canonicalize(x)', () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        const text = canonicalize(value);
        expect(canonicalize(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('parses back to a value deep-equal to the input', () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        // JSON has no -0: compare against the value as JSON itself carries it.
        expect(JSON.parse(canonicalize(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same text for any insertion order of keys', () => {
    fc.assert(
      fc.property(jsonData, fc.integer(), (value, seed) => {
        expect(canonicalize(permuteKeys(value, seed))).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('rejects every string with a lone surrogate, as a value and as a key, and accepts every other', () => {
    fc.assert(
      fc.property(anyUnitString, (text) => {
        if (isWellFormed(text)) {
          expect(canonicalize(text)).toBe(JSON.stringify(text));
          expect(canonicalize({ [text]: 0 })).toBe(`{${JSON.stringify(text)}:0}`);
        } else {
          expect(failure(() => canonicalize(['ok', text]))).toEqual({ reason: 'lone_surrogate', path: '/1' });
          expect(failure(() => canonicalize({ o: { [text]: 0 } }))).toEqual({ reason: 'lone_surrogate', path: '/o' });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects a lone surrogate wherever it is placed', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 8 }),
        fc.integer({ min: 0xd800, max: 0xdfff }),
        fc.string({ unit: 'binary', maxLength: 8 }),
        (before, surrogate, after) => {
          // The "x" neighbours make sure the surrogate cannot pair with anything.
          const text = `${before}x${String.fromCharCode(surrogate)}x${after}`;
          expect(failure(() => canonicalize({ k: text })).reason).toBe('lone_surrogate');
          expect(failure(() => canonicalize({ [text]: 1 })).reason).toBe('lone_surrogate');
        },
      ),
    );
  });
});

// Object key lists are escaped as they are written the first time they are seen, encoded ahead
// the second time, and taken from a cache after that (key-shapes.ts): every test below writes the
// same key lists several times, so that each object goes through all three paths.
describe('canonicalize: repeated key lists', () => {
  function thrice(value: unknown): string {
    const first = canonicalize(value);
    expect(canonicalize(value)).toBe(first);
    expect(canonicalize(value)).toBe(first);
    return first;
  }

  it('writes the same text for a key list seen for the first, second and third time', () => {
    fc.assert(
      fc.property(jsonData, (value) => {
        expect(thrice(value)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
  });

  it('sorts the same keys inserted in different orders, interleaved', () => {
    const orders = [
      ['b', 'a', 'c'],
      ['c', 'b', 'a'],
      ['a', 'c', 'b'],
      ['a', 'b', 'c'],
    ];
    const objects = orders.map((order) => Object.fromEntries(order.map((key) => [key, key.toUpperCase()])));
    for (let round = 0; round < 3; round++) {
      for (const object of objects) expect(canonicalize(object)).toBe('{"a":"A","b":"B","c":"C"}');
    }
    expect(thrice(objects)).toBe(`[${'{"a":"A","b":"B","c":"C"}'.repeat(4).replace(/\}\{/g, '},{')}]`);
  });

  it('never writes a cached key list for a same-length object with other keys', () => {
    const cached = { id: 1, kind: 'x', name: 'n' };
    thrice(cached);
    const others = [{ id: 1, kind: 'x', note: 'n' }, { id: 1, kine: 'x', name: 'n' }, { ib: 1, kind: 'x', name: 'n' }, { id: 1, name: 'n' }];
    for (const other of others) expect(thrice([cached, other, cached])).toBe(reference([cached, other, cached]));
  });

  it('keeps "__proto__", "constructor" and "toJSON" as ordinary keys in cached key lists', () => {
    const text = '[{"__proto__":{"y":1,"x":2},"toJSON":"t","constructor":[]},{"constructor":[1],"toJSON":"u","__proto__":{"x":3,"y":4}}]';
    const parsed: unknown = JSON.parse(text);
    expect(thrice(parsed)).toBe(
      '[{"__proto__":{"x":2,"y":1},"constructor":[],"toJSON":"t"},{"__proto__":{"x":3,"y":4},"constructor":[1],"toJSON":"u"}]',
    );
  });

  it('escapes keys that need it, and keys outside the BMP, in every path', () => {
    const keys = ['"', '\\', '\n', '\u0001', '\u001f', '😀', 'é', '', '\u2028', '/', 'a"b', 'odd', 'even'];
    const object = Object.fromEntries(keys.map((key, index) => [key, index]));
    expect(thrice([object, object])).toBe(reference([object, object]));
  });

  it('fails on a key with a lone surrogate exactly where writing it fails, in every path', () => {
    for (let round = 0; round < 3; round++) {
      // The members sorted before the bad key are written (and fail) first.
      expect(failure(() => canonicalize({ o: { a: NaN, '\ud800': 1 } }))).toEqual({ reason: 'non_finite_number', path: '/o/a' });
      expect(failure(() => canonicalize({ x: { a: 1, 'b\udfff': 2 } }))).toEqual({ reason: 'lone_surrogate', path: '/x' });
      expect(failure(() => canonicalize([{ '\udc00': 1, z: 2 }]))).toEqual({ reason: 'lone_surrogate', path: '/0' });
      expect(failure(() => canonicalize({ '\ud83d\ude00': [{ k: 'x\ud800' }] }))).toEqual({ reason: 'lone_surrogate', path: '/😀/0/k' });
    }
  });

  it('reads every property once and in key order, whichever path writes the keys', () => {
    const reads: string[] = [];
    const make = (): Record<string, unknown> => {
      const object: Record<string, unknown> = {};
      for (const key of ['c', 'a', 'b']) {
        Object.defineProperty(object, key, {
          enumerable: true,
          get: () => {
            reads.push(key);
            return key;
          },
        });
      }
      return object;
    };
    for (let round = 0; round < 3; round++) {
      reads.length = 0;
      expect(canonicalize([make(), make()])).toBe('[{"a":"a","b":"b","c":"c"},{"a":"a","b":"b","c":"c"}]');
      expect(reads).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    }
    // A key with a lone surrogate stops the walk before the later getters run.
    reads.length = 0;
    const bad = make();
    Object.defineProperty(bad, 'b\ud800', { enumerable: true, value: 1 });
    for (let round = 0; round < 3; round++) {
      expect(failure(() => canonicalize(bad))).toEqual({ reason: 'lone_surrogate', path: '' });
    }
    expect(reads).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
  });

  it('handles objects of more than 64 keys, long keys and many distinct key lists', () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`k${(index * 37) % 100}`, index]));
    const longKeys = { ['x'.repeat(3000)]: 1, ['"'.repeat(500)]: 2, y: 3 };
    const distinct = Array.from({ length: 2000 }, (_, index) => ({ [`d${index}`]: index, [`e${index % 7}`]: [index] }));
    expect(thrice([wide, longKeys, wide, longKeys])).toBe(reference([wide, longKeys, wide, longKeys]));
    expect(thrice(distinct)).toBe(reference(distinct));
  });

  it('grows the buffer while writing cached keys', () => {
    const key = (index: number): string => `${'k'.repeat(60)}${index}`;
    const row = Object.fromEntries(Array.from({ length: 9 }, (_, index) => [key(8 - index), index]));
    for (const count of [1, 10, 100, 1000]) {
      const rows = Array.from({ length: count }, () => row);
      expect(thrice(rows)).toBe(reference(rows));
    }
  });

  it('stays correct when a getter canonicalizes objects of the same key lists during a walk', () => {
    const inner = { y: 'inner', x: [1, { b: 2, a: 1 }] };
    const outer = {
      x: [{ a: 0, b: 0 }],
      get y(): string {
        return canonicalize(inner);
      },
    };
    const expected = `{"x":[{"a":0,"b":0}],"y":${JSON.stringify('{"x":[1,{"a":1,"b":2}],"y":"inner"}')}}`;
    expect(thrice(outer)).toBe(expected);
  });
});

describe('canonicalize: numbers without a temporary string', () => {
  it('writes decimals of up to three places and beyond, signed, like Number.prototype.toString', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), fc.integer({ min: 0, max: 6 }), (mantissa, places) => {
        const number = mantissa / 10 ** places;
        expect(canonicalize(number)).toBe(String(number));
        expect(canonicalize([-number])).toBe(`[${String(-number)}]`);
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (number) => {
        expect(canonicalize(number)).toBe(Object.is(number, -0) ? '0' : String(number));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees at the edges of the short decimal range', () => {
    const numbers = [
      0.001, 0.0005, 0.0015, 0.999, 0.9995, 1.005, 2.675, 1e-7, 0.1 + 0.2, 12.5, 12.75, 19.99, 999_999_999.999, 999_999_999.9995,
      1e9 - 0.5, 1e9 + 0.5, 1e9 - 0.001, 2 ** 31 - 0.5, -0.5, -999_999_999.999, Number.MIN_VALUE, -Number.MIN_VALUE,
    ];
    for (const number of numbers) {
      expect(canonicalize(number)).toBe(String(number));
      expect(canonicalize({ n: number })).toBe(`{"n":${String(number)}}`);
    }
    expect(canonicalize(-0)).toBe('0');
    expect(canonicalize([-0, -1, -10, -999_999_999, -1e9])).toBe('[0,-1,-10,-999999999,-1000000000]');
  });
});

describe('canonicalize: reads values as JavaScript reads them (README; fuzzing review)', () => {
  it('reads a hole through the prototype chain: refused, unless Array.prototype was given that index', () => {
    const holey = [0, , 2]; // eslint-disable-line no-sparse-arrays
    expect(() => canonicalize(holey)).toThrow(CanonicalizationError);
    const prototype = Array.prototype as unknown as Record<number, unknown>;
    prototype[1] = 'polluted';
    try {
      expect(canonicalize(holey)).toBe('[0,"polluted",2]');
    } finally {
      delete prototype[1];
    }
  });

  it('reads a Proxy as what its traps answer, a lying getPrototypeOf trap included', () => {
    const posing = new Proxy(new Date(0), { getPrototypeOf: () => Object.prototype });
    expect(canonicalize({ when: posing })).toBe('{"when":{}}');
  });
});

// Review 2 F6: `canonicalize(value, { maxdepth: 1 })` canonicalized under the default limit of 1000,
// without a word. Options are host configuration: a member that is no option, options that are
// not an object and a `reuseRemembered` that is not a boolean throw a TypeError naming it, before
// the value is read. Options passed on every call are checked without listing their keys.
describe('canonicalize: options are checked (review 2 F6)', () => {
  const deep = [[[[[]]]]];
  const misspelt = (options: Record<string, unknown>) => options as unknown as CanonicalizeOptions;

  it('refuses a member that is no option, naming it and the known ones, instead of the default limit', () => {
    expect(() => canonicalize(deep, misspelt({ maxdepth: 1 }))).toThrow(
      new TypeError('canonicalize: unknown option "maxdepth" (known options: maxDepth, reuseRemembered)'),
    );
    expect(() => canonicalize(deep, misspelt({ maxDepth: 10, max_depth: 1 }))).toThrow(/unknown option "max_depth"/);
    expect(() => canonicalize(deep, misspelt({ reuse: true }))).toThrow(/unknown option "reuse"/);
    expect(failure(() => canonicalize(deep, { maxDepth: 1 }))).toEqual({ reason: 'max_depth', path: '/0' });
  });

  it('refuses options that inherit their members: an inherited maxDepth took effect while an inherited misspelling went unchecked (review 6)', () => {
    for (const options of [Object.create({ maxdepth: 1 }), Object.create({ maxDepth: 1 }), new (class { maxDepth = 1; })()]) {
      expect(() => canonicalize(deep, options as CanonicalizeOptions)).toThrow(/canonicalize: the options must be a plain object/);
    }
    expect(failure(() => canonicalize(deep, Object.assign(Object.create(null) as object, { maxDepth: 1 }) as CanonicalizeOptions))).toEqual({ reason: 'max_depth', path: '/0' });
    expect(() => createDigester(Object.create({ kye: new Uint8Array(32) }) as Parameters<typeof createDigester>[0])).toThrow(/createDigester: the options must be a plain object/);
  });

  it('refuses options that are not an object, before reading the value', () => {
    for (const options of [null, 5, 'maxDepth', [1], true]) {
      expect(() => canonicalize(undefined, options as unknown as CanonicalizeOptions), String(options)).toThrow(/canonicalize: options must be an object/);
    }
    // A value canonicalize refuses does not hide misspelt options.
    expect(() => canonicalize(Number.NaN, misspelt({ maxdepth: 1 }))).toThrow(TypeError);
  });

  it('refuses a reuseRemembered that is not a boolean, rather than walking remembered objects without a word', () => {
    for (const reuseRemembered of ['yes', 'true', 1, null, {}]) {
      expect(() => canonicalize({}, misspelt({ reuseRemembered })), String(reuseRemembered)).toThrow(/reuseRemembered must be a boolean/);
    }
    const projection = Object.freeze({ a: 1 });
    rememberCanonicalText(projection, '{"a":1,"remembered":true}', 1);
    expect(canonicalize([projection], { reuseRemembered: true })).toBe('[{"a":1,"remembered":true}]');
    expect(canonicalize([projection], { reuseRemembered: false })).toBe('[{"a":1}]');
    expect(canonicalize([projection], misspelt({ reuseRemembered: undefined, maxDepth: undefined }))).toBe('[{"a":1}]');
    expect(canonicalize([projection], {})).toBe('[{"a":1}]');
  });

  it('checks options without listing their keys, and reads each option once', () => {
    let reads = 0;
    const counted = {
      get maxDepth() {
        reads++;
        return 3;
      },
    };
    const keys = vi.spyOn(Object, 'keys');
    try {
      expect(canonicalize([1, [2]], Object.freeze({ maxDepth: 3 }))).toBe('[1,[2]]');
      expect(canonicalize([1, [2]], counted)).toBe('[1,[2]]');
      expect(canonicalize([1, [2]])).toBe('[1,[2]]');
      expect(keys).not.toHaveBeenCalled();
    } finally {
      keys.mockRestore();
    }
    expect(reads).toBe(1);
  });
});
