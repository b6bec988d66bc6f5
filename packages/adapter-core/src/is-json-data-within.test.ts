import { checkUntrustedValue, DEFAULT_JSON_LIMITS } from '@toolseal/guard';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonDataWithin } from './is-json-data-within.js';

const limits = DEFAULT_JSON_LIMITS;

function withAccessor(): Record<string, unknown> {
  return Object.defineProperty({}, 'g', { get: () => 1, enumerable: true });
}

/** Values JSON cannot express, as the guard's `checkUntrustedValue` lists them. */
const NOT_JSON: ReadonlyArray<[string, () => unknown]> = [
  ['undefined', () => undefined],
  ['a function', () => () => 1],
  ['a symbol', () => Symbol('s')],
  ['a BigInt', () => 1n],
  ['a Date', () => new Date(0)],
  ['a Map', () => new Map()],
  ['a class instance', () => new (class Point {})()],
  ['a boxed string', () => Object('x')],
  ['an object with an accessor', withAccessor],
  ['an object with a symbol key', () => ({ [Symbol('s')]: 1 })],
  ['an object with a non-enumerable property', () => Object.defineProperty({}, 'hidden', { value: 1, enumerable: false })],
  ['an array with a hole', () => [1, , 3]],
  ['an array with a named property', () => Object.assign([1], { extra: 2 })],
  ['an array with a symbol key', () => Object.assign([1], { [Symbol('s')]: 2 })],
  ['an array with an index accessor', () => Object.defineProperty([0], 0, { get: () => 1, enumerable: true })],
  ['an array subclass', () => new (class List extends Array<number> {})()],
];

describe('isJsonDataWithin', () => {
  it.each<[string, unknown]>([
    ['a string', 'x'],
    ['a number', 1.5],
    ['a boolean', false],
    ['null', null],
    ['an empty object', {}],
    ['an object without a prototype', Object.assign(Object.create(null) as object, { a: 1 })],
    ['nested arrays and objects', { a: [1, { b: [null, 'c'] }] }],
  ])('accepts JSON data: %s', (_label, value) => {
    expect(isJsonDataWithin(value, limits)).toBe(true);
  });

  // Content rules JSON text can produce: the guard walks on past them, so they are JSON data here.
  it.each<[string, unknown]>([
    ['a __proto__ key', JSON.parse('{"__proto__":{"admin":true}}')],
    ['a lone surrogate', { s: '\ud800' }],
    ['Infinity (1e400 after JSON.parse)', JSON.parse('{"n":1e400}')],
    ['NaN', { n: Number.NaN }],
  ])('accepts %s: a content rule, not a value JSON cannot express', (_label, value) => {
    expect(isJsonDataWithin(value, limits)).toBe(true);
  });

  it.each(NOT_JSON)('refuses %s, at the root or nested', (_label, make) => {
    expect(isJsonDataWithin(make(), limits)).toBe(false);
    expect(isJsonDataWithin({ a: [1, { b: make() }] }, limits)).toBe(false);
    expect(isJsonDataWithin([[make()]], limits)).toBe(false);
  });

  it('never runs a getter', () => {
    let ran = false;
    const value = Object.defineProperty({}, 'g', {
      enumerable: true,
      get: () => {
        ran = true;
        return 1;
      },
    });
    expect(isJsonDataWithin({ value }, limits)).toBe(false);
    expect(ran).toBe(false);
  });

  it('refuses a cycle (past the depth bound) without overflowing the stack', () => {
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(isJsonDataWithin(cycle, limits)).toBe(false);
  });

  it.each<[string, Partial<typeof limits>, unknown]>([
    ['maxDepth', { maxDepth: 2 }, { a: { b: {} } }],
    ['maxArrayItems', { maxArrayItems: 2 }, [1, 2, 3]],
    ['maxObjectKeys', { maxObjectKeys: 2 }, { a: 1, b: 2, c: 3 }],
    ['maxTotalNodes', { maxTotalNodes: 3 }, { a: 1, b: 2, c: 3 }],
  ])('refuses a value past %s, and accepts it at the bound', (_label, bound, value) => {
    expect(isJsonDataWithin(value, { ...limits, ...bound })).toBe(false);
    expect(isJsonDataWithin(value, limits)).toBe(true);
  });

  it('property: accepts every value JSON.parse makes', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        expect(isJsonDataWithin(JSON.parse(JSON.stringify(value)), limits)).toBe(true);
      }),
    );
  });

  it('property: refuses JSON data with a value JSON cannot express planted anywhere in it', () => {
    const plant = (host: unknown, path: readonly number[], planted: unknown): unknown => {
      const [step, ...rest] = path;
      if (step === undefined) return planted;
      if (Array.isArray(host) && host.length > 0) {
        const copy = [...host];
        copy[step % host.length] = plant(host[step % host.length], rest, planted);
        return copy;
      }
      if (typeof host === 'object' && host !== null && Object.keys(host).length > 0) {
        const keys = Object.keys(host);
        const key = keys[step % keys.length]!;
        return { ...host, [key]: plant((host as Record<string, unknown>)[key], rest, planted) };
      }
      return planted;
    };
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.constantFrom(...NOT_JSON.map(([, make]) => make)),
        (value, path, make) => {
          const planted = plant(JSON.parse(JSON.stringify(value)), path, make());
          expect(isJsonDataWithin(planted, limits)).toBe(false);
        },
      ),
    );
  });

  it('property: agrees with the guard wherever the guard finds no violation', () => {
    // A value the guard accepts whole is JSON data within its limits.
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4, withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }), (value) => {
        if (checkUntrustedValue(value, limits).ok) expect(isJsonDataWithin(value, limits)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
