import { describe, expect, it } from 'vitest';
import { readOwnData } from '@toolseal/adapter-core';
import { createLyingLengthArray } from './create-lying-length-array.js';

describe('createLyingLengthArray', () => {
  const item = { type: 'message' };

  it('is an array to Array.isArray', () => {
    expect(Array.isArray(createLyingLengthArray(item, [1]).array)).toBe(true);
  });

  it('answers the lengths in turn, then the last one for every later read, counting each read', () => {
    const lying = createLyingLengthArray(item, [3, 'x', 7]);
    expect(lying.lengthReads()).toBe(0);
    expect(lying.array.length).toBe(3);
    expect(lying.lengthReads()).toBe(1);
    expect(lying.array.length as unknown).toBe('x');
    expect(lying.array.length).toBe(7);
    expect(lying.array.length).toBe(7);
    expect(lying.array.length).toBe(7);
    expect(lying.lengthReads()).toBe(5);
    expect(lying.indexReads()).toBe(0);
  });

  it('answers a single length for every read', () => {
    const lying = createLyingLengthArray(item, [Number.NaN]);
    expect([lying.array.length, lying.array.length]).toEqual([Number.NaN, Number.NaN]);
    expect(lying.lengthReads()).toBe(2);
  });

  it('holds the item at every index, whatever the length, and counts each index read by [index], in or a descriptor', () => {
    const lying = createLyingLengthArray(item, [0]);
    expect(lying.array[0]).toBe(item);
    expect(lying.array[2 ** 32 - 2]).toBe(item);
    expect(0 in lying.array).toBe(true);
    expect(readOwnData(lying.array, 5)).toBe(item);
    expect(Object.getOwnPropertyDescriptor(lying.array, '1')).toEqual({ value: item, writable: true, enumerable: true, configurable: true });
    expect(lying.indexReads()).toBe(5);
    expect(lying.lengthReads()).toBe(0);
  });

  it('counts no index read for keys that are not array indexes', () => {
    const lying = createLyingLengthArray(item, [1]);
    const keyed = lying.array as unknown as Record<string, unknown>;
    expect(keyed['01']).toBeUndefined();
    expect(keyed['-1']).toBeUndefined();
    expect(keyed['1.5']).toBeUndefined();
    expect('01' in lying.array).toBe(false);
    expect(typeof lying.array.map).toBe('function');
    expect(lying.indexReads()).toBe(0);
    expect(lying.lengthReads()).toBe(0);
  });

  it('catches a walk that checks one length and loops over another', () => {
    // The bug the counts exist for: `length` read for the check and again on every turn of the loop.
    const lying = createLyingLengthArray(item, [1, 4]);
    const walked: unknown[] = [];
    if (lying.array.length <= 1) for (let index = 0; index < lying.array.length; index++) walked.push(lying.array[index]);
    expect(walked).toHaveLength(4);
    expect(lying.lengthReads()).toBe(6);
    expect(lying.indexReads()).toBe(4);
  });

  it('lies through the descriptor of length too, counting those reads with the others', () => {
    const lying = createLyingLengthArray(item, [1, 2 ** 32 - 1]);
    expect(readOwnData(lying.array, 'length')).toBe(1);
    expect(lying.array.length).toBe(2 ** 32 - 1);
    expect(Object.getOwnPropertyDescriptor(lying.array, 'length')).toEqual({ value: 2 ** 32 - 1, writable: true, enumerable: false, configurable: false });
    expect(lying.lengthReads()).toBe(3);
    expect(lying.indexReads()).toBe(0);
  });

  it('catches a walk that checks the descriptor length and loops over array.length', () => {
    const lying = createLyingLengthArray(item, [1, 4]);
    const walked: unknown[] = [];
    const checked = readOwnData(lying.array, 'length');
    if (checked === 1) for (let index = 0; index < lying.array.length; index++) walked.push(lying.array[index]);
    expect(walked).toHaveLength(4);
    expect(lying.lengthReads()).toBeGreaterThan(1);
  });

  it('throws a TypeError for no lengths at all', () => {
    expect(() => createLyingLengthArray(item, [])).toThrow(TypeError);
  });
});
