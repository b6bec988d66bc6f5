import { describe, expect, it } from 'vitest';
import { NON_INTEGER_LENGTHS } from './non-integer-lengths.js';

describe('NON_INTEGER_LENGTHS', () => {
  it('lists the six lengths no real array answers, by label', () => {
    expect(NON_INTEGER_LENGTHS.map(([label]) => label)).toEqual([
      'an object whose valueOf answers 1',
      'the string "1"',
      'NaN',
      '-1',
      '1.5',
      'Infinity',
    ]);
    expect(Object.isFrozen(NON_INTEGER_LENGTHS)).toBe(true);
  });

  it('makes the values the labels name', () => {
    const [object, ...primitives] = NON_INTEGER_LENGTHS.map(([, make]) => make().length);
    expect(typeof object).toBe('object');
    expect(Number(object)).toBe(1);
    expect(primitives).toEqual(['1', Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]);
  });

  it('is refused, unconverted, by a check for a non-negative safe integer', () => {
    for (const [label, make] of NON_INTEGER_LENGTHS) {
      const { length, conversions } = make();
      expect(typeof length === 'number' && Number.isSafeInteger(length) && length >= 0, label).toBe(false);
      expect(conversions(), label).toBe(0);
    }
  });

  it('counts the conversions of the object, each make() with a counter of its own', () => {
    const [, make] = NON_INTEGER_LENGTHS[0]!;
    const first = make();
    const second = make();
    expect(Number(first.length) + Number(first.length)).toBe(2);
    expect(first.conversions()).toBe(2);
    expect(second.conversions()).toBe(0);
  });

  it('is passed unnoticed by a check that converts (the bug it exists for): only the counter tells', () => {
    const [, make] = NON_INTEGER_LENGTHS[0]!;
    const { length, conversions } = make();
    expect((length as number) > 100_000).toBe(false);
    expect(conversions()).toBe(1);
  });
});
