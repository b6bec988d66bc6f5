import { describe, expect, it } from 'vitest';
import { type Shape, shapeOf, writePrefix } from './key-shapes.js';

// The cache is module state shared by every test here: each test uses key names of its own.

function prefixes(shape: Shape): string[] {
  const units = new Uint16Array(4096);
  const view = new DataView(units.buffer);
  const texts: string[] = [];
  let at = 0;
  for (let index = 0; index < shape.writable; index++) {
    const next = writePrefix(view, at, shape, index);
    texts.push(String.fromCharCode(...units.subarray(at, next)));
    at = next;
  }
  return texts;
}

function expectedPrefixes(sorted: readonly string[]): string[] {
  return sorted.map((key, index) => `${index === 0 ? '{' : ','}${JSON.stringify(key)}:`);
}

describe('shapeOf', () => {
  it('sorts a new key list in place and leaves it without prefixes', () => {
    const keys = ['t1_b', 't1_c', 't1_a'];
    const shape = shapeOf(keys);
    expect(shape.words).toBeNull();
    expect(shape.sorted).toEqual(['t1_a', 't1_b', 't1_c']);
    expect(keys).toEqual(['t1_a', 't1_b', 't1_c']);
    expect(shape.writable).toBe(3);
  });

  it('encodes the prefixes on the second sighting and returns the same Shape afterwards', () => {
    shapeOf(['t2_b', 't2_a']);
    const second = shapeOf(['t2_b', 't2_a']);
    expect(second.words).not.toBeNull();
    expect(second.keys).toEqual(['t2_b', 't2_a']);
    expect(second.sorted).toEqual(['t2_a', 't2_b']);
    expect(prefixes(second)).toEqual(['{"t2_a":', ',"t2_b":']);
    expect(shapeOf(['t2_b', 't2_a'])).toBe(second);
  });

  it('recognises the same keys in another insertion order, and keys the cache on that order', () => {
    // Same first and last keys, so the same cache set.
    shapeOf(['t3_a', 't3_b', 't3_c', 't3_d']);
    const permuted = shapeOf(['t3_a', 't3_c', 't3_b', 't3_d']);
    expect(permuted.words).not.toBeNull();
    expect(permuted.keys).toEqual(['t3_a', 't3_c', 't3_b', 't3_d']);
    expect(permuted.sorted).toEqual(['t3_a', 't3_b', 't3_c', 't3_d']);
    expect(prefixes(permuted)).toEqual(expectedPrefixes(permuted.sorted));
    expect(shapeOf(['t3_a', 't3_c', 't3_b', 't3_d'])).toBe(permuted);
    const original = shapeOf(['t3_a', 't3_b', 't3_c', 't3_d']);
    expect(original).not.toBe(permuted);
    expect(original.sorted).toEqual(['t3_a', 't3_b', 't3_c', 't3_d']);
  });

  it('never takes a same-length list with other keys for a cached one', () => {
    const keys = ['t4_a', 't4_b', 't4_c'];
    shapeOf([...keys]);
    const cached = shapeOf([...keys]);
    for (const other of [
      ['t4_a', 't4_b', 't4_d'],
      ['t4_a', 't4_x', 't4_c'],
      ['t4_z', 't4_b', 't4_c'],
      ['t4_a', 't4_b', 't4_c', 't4_d'],
      ['t4_a', 't4_b'],
    ]) {
      const sorted = [...other].sort();
      for (let sighting = 0; sighting < 3; sighting++) {
        const shape = shapeOf([...other]);
        expect(shape).not.toBe(cached);
        expect(shape.sorted).toEqual(sorted);
        if (shape.words !== null) expect(prefixes(shape)).toEqual(expectedPrefixes(sorted));
      }
    }
    // Evicted or not, the list is still written exactly, and cached again once seen twice.
    const again = shapeOf([...keys]);
    expect(again.sorted).toEqual(keys);
    const cachedAgain = shapeOf([...keys]);
    expect(cachedAgain.words).not.toBeNull();
    expect(prefixes(cachedAgain)).toEqual(expectedPrefixes(keys));
    expect(shapeOf([...keys])).toBe(cachedAgain);
  });

  it('escapes keys in prefixes of odd and even lengths exactly as JSON.stringify does', () => {
    const keys = ['t5', 't5_', 't5"q', 't5\\b', 't5\n', 't5\u0001', 't5😀', 't5é', '', '__proto__', 't5\u2028', 't5/'];
    shapeOf([...keys]);
    const shape = shapeOf([...keys]);
    expect(shape.words).not.toBeNull();
    expect(shape.sorted).toEqual([...keys].sort());
    expect(prefixes(shape)).toEqual(expectedPrefixes(shape.sorted));
  });

  it('writes at most one unit past a prefix, a zero, and returns the position after the prefix', () => {
    shapeOf(['t6_odd', 't6_even_']);
    const shape = shapeOf(['t6_odd', 't6_even_']);
    for (let index = 0; index < 2; index++) {
      const units = new Uint16Array(64).fill(0xffff);
      const next = writePrefix(new DataView(units.buffer), 3, shape, index);
      expect(next - 3).toBe(shape.lengths[index]);
      expect(units[2]).toBe(0xffff);
      expect([0, 0xffff]).toContain(units[next]);
      expect(units[next + 1]).toBe(0xffff);
    }
  });

  it('stops the prefixes at the first sorted key with a lone surrogate', () => {
    const keys = ['t7_c', 't7_a\ud800', 't7_b', 't7_\udfffz'];
    shapeOf([...keys]);
    const shape = shapeOf([...keys]);
    expect(shape.sorted).toEqual(['t7_\udfffz', 't7_a\ud800', 't7_b', 't7_c'].sort());
    expect(shape.writable).toBe(shape.sorted.findIndex((key) => /\p{Cs}/u.test(key)));
    expect(prefixes(shape)).toEqual(expectedPrefixes(shape.sorted.slice(0, shape.writable)));
    const valid = ['t7_ok\ud83d\ude00', 't7_\ud800x'];
    shapeOf([...valid]);
    const second = shapeOf([...valid]);
    expect(second.writable).toBe(1);
    expect(prefixes(second)).toEqual(['{"t7_ok😀":']);
  });

  it('never encodes objects of more than 64 keys or with long keys', () => {
    const many = Array.from({ length: 65 }, (_, index) => `t8_${index}`);
    const long = ['t8_' + 'x'.repeat(400), 't8_' + 'y'.repeat(400)];
    for (const keys of [many, long]) {
      for (let sighting = 0; sighting < 3; sighting++) {
        const shape = shapeOf([...keys]);
        expect(shape.words).toBeNull();
        expect(shape.sorted).toEqual([...keys].sort());
      }
    }
  });

  it('keeps two key lists of one cache set, and stays exact when many lists compete', () => {
    const lists = Array.from({ length: 3000 }, (_, index) => [`t9_${index}_b`, `t9_${index}_a`]);
    for (let round = 0; round < 3; round++) {
      for (const keys of lists) {
        const shape = shapeOf([...keys]);
        expect(shape.sorted).toEqual([keys[1], keys[0]]);
        if (shape.words !== null) expect(prefixes(shape)).toEqual(expectedPrefixes(shape.sorted));
      }
    }
    // Two lists used alternately are both cached, whatever set they fall in.
    const first = ['t9_first_b', 't9_first_a'];
    const second = ['t9_second_b', 't9_second_a'];
    for (let round = 0; round < 2; round++) {
      shapeOf([...first]);
      shapeOf([...second]);
    }
    const cachedFirst = shapeOf([...first]);
    const cachedSecond = shapeOf([...second]);
    expect(cachedFirst.words).not.toBeNull();
    expect(cachedSecond.words).not.toBeNull();
    expect(shapeOf([...first])).toBe(cachedFirst);
    expect(shapeOf([...second])).toBe(cachedSecond);
  });
});
