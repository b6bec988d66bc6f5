import { copyUntrustedValue, DEFAULT_JSON_LIMITS, type JsonLimits } from '@toolseal/guard';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayHoldRoundedInteger } from './may-hold-rounded-integer.js';
import { jsonWithLargeNumbers } from './__fixtures__/json-with-large-numbers.js';

const limits: Readonly<JsonLimits> = DEFAULT_JSON_LIMITS;

describe('mayHoldRoundedInteger', () => {
  it('finds an integer beyond Number.MAX_SAFE_INTEGER in magnitude, at any place', () => {
    for (const number of [2 ** 53, -(2 ** 53), 9007199254740993, 1e20, 1e21, Number.MAX_VALUE, -Number.MAX_VALUE]) {
      for (const value of [number, [number], { n: number }, { a: [1, { b: [number] }] }, [[[[[number]]]]]]) {
        expect(mayHoldRoundedInteger(value, limits), String(number)).toBe(true);
      }
    }
  });

  it('passes safe integers, fractions, NaN and the infinities (no integers: the guard refuses those)', () => {
    const value = {
      n: [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 0, -0, 5999.99, 6000, 0.1, 1e-300, 2 ** 52 + 0.5],
      odd: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      s: '9007199254740993',
      b: [true, false, null],
      proto: JSON.parse('{"__proto__":{"n":1}}') as unknown,
    };
    expect(mayHoldRoundedInteger(value, limits)).toBe(false);
  });

  it('fails closed on what it cannot read as data, never running a getter', () => {
    let reads = 0;
    const getter = { get: () => ++reads, enumerable: true };
    const cases: unknown[] = [
      Object.defineProperty({}, 'g', getter),
      Object.defineProperty([1], 0, getter),
      [1, , 3], // a hole
      { u: undefined },
      { f: () => 1 },
      { big: 1n },
      { s: Symbol('s') },
    ];
    for (const value of cases) expect(mayHoldRoundedInteger(value, limits)).toBe(true);
    expect(reads).toBe(0);
  });

  it('stays within the limits it is given, iteratively: depth, items, keys, total values; a cycle too', () => {
    const small: JsonLimits = { ...limits, maxDepth: 3, maxArrayItems: 3, maxObjectKeys: 3, maxTotalNodes: 10 };
    expect(mayHoldRoundedInteger([[[1]]], small)).toBe(false);
    expect(mayHoldRoundedInteger([[[[1]]]], small)).toBe(true);
    expect(mayHoldRoundedInteger([1, 2, 3], small)).toBe(false);
    expect(mayHoldRoundedInteger([1, 2, 3, 4], small)).toBe(true);
    expect(mayHoldRoundedInteger({ a: 1, b: 2, c: 3 }, small)).toBe(false);
    expect(mayHoldRoundedInteger({ a: 1, b: 2, c: 3, d: 4 }, small)).toBe(true);
    expect(mayHoldRoundedInteger([[1, 2, 3], [1, 2, 3], [1]], small)).toBe(true); // 11 values
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(mayHoldRoundedInteger(cycle, limits)).toBe(true);
    let deep: unknown = 1;
    for (let level = 0; level < 1_000_000; level++) deep = [deep];
    expect(mayHoldRoundedInteger(deep, { ...limits, maxDepth: 2_000_000, maxTotalNodes: 2_000_000 })).toBe(false);
  });

  it('gives the same verdict on the guard\'s plain copy read directly (plainCopy) as on the value', () => {
    const data = jsonWithLargeNumbers();
    fc.assert(
      fc.property(data, (value) => {
        const copied = copyUntrustedValue(value, limits);
        if (!copied.ok) return;
        expect(mayHoldRoundedInteger(copied.value, limits, true)).toBe(mayHoldRoundedInteger(value, limits));
      }),
      { numRuns: 500 },
    );
    expect(mayHoldRoundedInteger({ a: [1, { b: 2 ** 53 }] }, limits, true)).toBe(true);
    expect(mayHoldRoundedInteger({ a: [1, { b: 2 ** 53 - 1 }] }, limits, true)).toBe(false);
  });
});
