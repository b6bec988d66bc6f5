import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-freeze.js';

function everyObject(value: unknown, found: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return found;
  found.push(value);
  for (const member of Object.values(value)) everyObject(member, found);
  return found;
}

describe('deepFreeze', () => {
  it('freezes every object and array of a JSON value and returns the same value', () => {
    const value = { a: [1, { b: { c: [] } }], d: { e: null, f: 'text' } };
    expect(deepFreeze(value)).toBe(value);
    const objects = everyObject(value);
    expect(objects).toHaveLength(6);
    expect(objects.every((object) => Object.isFrozen(object))).toBe(true);
  });

  it('returns primitives and null as they are', () => {
    expect(deepFreeze(7)).toBe(7);
    expect(deepFreeze('text')).toBe('text');
    expect(deepFreeze(null)).toBeNull();
  });

  it('freezes values far deeper than the call stack allows recursion', () => {
    const root: { next?: unknown } = {};
    let node = root;
    for (let depth = 0; depth < 200_000; depth++) {
      const child: { next?: unknown } = {};
      node.next = child;
      node = child;
    }
    deepFreeze(root);
    expect(Object.isFrozen(node)).toBe(true);
  });

  it('does not walk into a subtree that is already frozen', () => {
    // A frozen object is taken as frozen all the way down (everything this function freezes is).
    const inner = { open: {} };
    const shared = Object.freeze({ inner });
    const value = deepFreeze({ shared, own: { x: {} } });
    expect(Object.isFrozen(value.own.x)).toBe(true);
    expect(Object.isFrozen(inner)).toBe(false);
  });
});
