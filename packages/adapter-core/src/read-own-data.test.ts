import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readOwnData } from './read-own-data.js';

describe('readOwnData', () => {
  it('reads own data properties of objects and arrays', () => {
    expect(readOwnData({ id: 'resp_1' }, 'id')).toBe('resp_1');
    expect(readOwnData(['a', 'b'], 1)).toBe('b');
    expect(readOwnData({ value: undefined }, 'value')).toBeUndefined();
    expect(readOwnData(Object.assign(Object.create(null) as object, { id: 7 }), 'id')).toBe(7);
  });

  it.each([null, undefined, 42, 'text', true, Symbol('s')])('reads nothing from %s', (target) => {
    expect(readOwnData(target, 'length')).toBeUndefined();
  });

  it('never runs a getter: an accessor property reads as missing', () => {
    let ran = false;
    const target = {};
    Object.defineProperty(target, 'name', {
      enumerable: true,
      get: () => {
        ran = true;
        return 'get_order';
      },
    });
    expect(readOwnData(target, 'name')).toBeUndefined();
    expect(ran).toBe(false);
  });

  it('never falls through to the prototype, even a polluted Object.prototype', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['call_id'] = 'call_polluted';
    try {
      expect(readOwnData({}, 'call_id')).toBeUndefined();
      expect(readOwnData(Object.create({ call_id: 'inherited' }), 'call_id')).toBeUndefined();
    } finally {
      delete prototype['call_id'];
    }
    expect(readOwnData([], 'map')).toBeUndefined();
  });

  it('lets a throwing proxy trap through: callers parse inside a try and refuse the response', () => {
    const hostile = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw new Error('boom');
        },
      },
    );
    expect(() => readOwnData(hostile, 'id')).toThrow('boom');
  });

  it('property: equals the own value for every key of a JSON object, undefined for any other key', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (object, other) => {
        for (const [key, value] of Object.entries(object)) expect(readOwnData(object, key)).toBe(value);
        expect(readOwnData(object, other)).toBe(Object.hasOwn(object, other) ? object[other] : undefined);
      }),
    );
  });
});
