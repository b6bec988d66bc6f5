import { describe, expect, it } from 'vitest';
import { isPlainObject } from './is-plain-object.js';

class Arguments {
  order_id = 'x';
}

describe('isPlainObject', () => {
  it.each([
    ['an object literal', {}],
    ['a parsed JSON object', JSON.parse('{"order_id":"x","__proto__":{}}') as unknown],
    ['an object without prototype', Object.create(null) as unknown],
  ])('accepts %s', (_label, value) => {
    expect(isPlainObject(value)).toBe(true);
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', '{}'],
    ['a number', 1],
    ['an array', []],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['a class instance', new Arguments()],
    ['a function', () => ({})],
    ['an object with another prototype', Object.create({}) as unknown],
  ])('refuses %s', (_label, value) => {
    expect(isPlainObject(value)).toBe(false);
  });
});
