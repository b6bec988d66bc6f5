import { describe, expect, it } from 'vitest';
import { createObjectLength } from './create-object-length.js';

describe('createObjectLength', () => {
  it('is an object that nothing has converted yet', () => {
    const objectLength = createObjectLength([1]);
    expect(typeof objectLength.length).toBe('object');
    expect(objectLength.conversions()).toBe(0);
  });

  it('answers the numbers in turn on conversion, then the last one for every later conversion, counting each', () => {
    const { length, conversions } = createObjectLength([1, 2 ** 32 - 1]);
    expect(Number(length)).toBe(1);
    expect(conversions()).toBe(1);
    expect(Number(length)).toBe(2 ** 32 - 1);
    expect(Number(length)).toBe(2 ** 32 - 1);
    expect(conversions()).toBe(3);
  });

  it('counts a conversion to text too', () => {
    const { length, conversions } = createObjectLength([1]);
    expect(`${String(length)}`).toBe('1');
    expect(conversions()).toBe(1);
  });

  it('catches a check that compares it: 1 for the check, a huge length for the walk', () => {
    const { length, conversions } = createObjectLength([1, 2 ** 32 - 1]);
    const compared = length as unknown as number;
    expect(compared > 100_000).toBe(false);
    expect(compared > 100_000).toBe(true);
    expect(conversions()).toBe(2);
  });

  it('throws a TypeError for no numbers at all', () => {
    expect(() => createObjectLength([])).toThrow(TypeError);
  });
});
