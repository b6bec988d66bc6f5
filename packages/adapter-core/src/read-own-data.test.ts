import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIDDEN_FIELD, readOwnData, readRefusalField } from './read-own-data.js';

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

describe('readRefusalField', () => {
  /** An object whose `key` is an own accessor that records whether it ran. */
  function withGetter(key: string, answer: unknown): { target: object; ran: () => boolean } {
    let ran = false;
    const target = {};
    Object.defineProperty(target, key, {
      enumerable: true,
      get: () => {
        ran = true;
        return answer;
      },
    });
    return { target, ran: () => ran };
  }

  it('reads own data properties as readOwnData does, and an absent field as undefined', () => {
    expect(readRefusalField({ status: 'completed' }, 'status')).toBe('completed');
    expect(readRefusalField({ status: null }, 'status')).toBeNull();
    expect(readRefusalField({ status: undefined }, 'status')).toBeUndefined();
    expect(readRefusalField({}, 'status')).toBeUndefined();
    expect(readRefusalField(Object.create(null) as object, 'status')).toBeUndefined();
  });

  it.each([null, undefined, 42, 'text', true])('reads nothing from %s', (target) => {
    expect(readRefusalField(target, 'status')).toBeUndefined();
  });

  it('reads an own accessor as HIDDEN_FIELD, never as absent, without running it', () => {
    const { target, ran } = withGetter('status', 'incomplete');
    expect(readRefusalField(target, 'status')).toBe(HIDDEN_FIELD);
    expect(ran()).toBe(false);
  });

  it('reads a field present only through the prototype chain as HIDDEN_FIELD', () => {
    class Item {
      get status(): string {
        return 'in_progress';
      }
    }
    expect(readRefusalField(new Item(), 'status')).toBe(HIDDEN_FIELD);
    expect(readRefusalField(Object.create({ namespace: 'crm' }) as object, 'namespace')).toBe(HIDDEN_FIELD);
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['stop_reason'] = 'max_tokens';
    try {
      expect(readRefusalField({}, 'stop_reason')).toBe(HIDDEN_FIELD);
    } finally {
      delete prototype['stop_reason'];
    }
  });

  it('is equal to no value a response can hold', () => {
    expect(typeof HIDDEN_FIELD).toBe('symbol');
    expect(JSON.parse(JSON.stringify({ value: 'x' })) as unknown).not.toBe(HIDDEN_FIELD);
  });

  it('property: equals readOwnData for every plain JSON object and key', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (object, key) => {
        // Keys inherited from Object.prototype (`toString`, `constructor`, ...) are hidden by design.
        if (!Object.hasOwn(object, key) && key in object) return;
        expect(readRefusalField(object, key)).toBe(readOwnData(object, key));
      }),
    );
  });
});
