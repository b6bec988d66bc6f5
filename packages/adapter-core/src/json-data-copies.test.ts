import type { JsonValue } from '@toolseal/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@toolseal/guard';
import { copyJsonData } from './json-data-copies.js';

/** Every object and array reachable from `value`, in walk order. */
function containersOf(value: unknown): object[] {
  const found: object[] = [];
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    found.push(next);
    pending.push(...Object.values(next));
  }
  return found;
}

function nested(depth: number): JsonValue {
  let value: JsonValue = { leaf: true };
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { next: value };
  return value;
}

describe('copyJsonData', () => {
  it('copies a frozen value into fresh, unfrozen containers with the same keys in the same order', () => {
    const value = deepFreeze({ z: 1, a: [1, { b: 'c' }, [null]], m: { e: false } });
    const copy = copyJsonData(value);
    expect(copy).toEqual(value);
    expect(Object.keys(copy as object)).toEqual(['z', 'a', 'm']);
    const originals = new Set(containersOf(value));
    for (const container of containersOf(copy)) {
      expect(originals.has(container)).toBe(false);
      expect(Object.isFrozen(container)).toBe(false);
      expect([Object.prototype, Array.prototype]).toContain(Object.getPrototypeOf(container));
    }
  });

  it('returns scalars unchanged', () => {
    expect(copyJsonData('text')).toBe('text');
    expect(copyJsonData(null)).toBeNull();
    expect(copyJsonData(-0)).toBe(-0);
  });

  it('copies a value 20,000 levels deep without overflowing the stack', () => {
    const value = nested(20_000);
    const copy = copyJsonData(value);
    const originals = containersOf(value);
    const copies = containersOf(copy);
    expect(copies).toHaveLength(originals.length);
    expect(copies.at(-1)).toEqual({ leaf: true });
    expect(copies.at(-1)).not.toBe(originals.at(-1));
  });

  it('copies an own __proto__ key as a key, never as the prototype', () => {
    const value = JSON.parse('{"__proto__":{"admin":true},"x":1}') as JsonValue;
    const copy = copyJsonData(value) as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'x']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"admin":true},"x":1}');
  });

  it('property: the copy is equal, shares no container with the value, and serializes alike', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (input) => {
        const value = deepFreeze(input as JsonValue);
        const copy = copyJsonData(value);
        expect(copy).toEqual(value);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        const originals = new Set(containersOf(value));
        expect(containersOf(copy).some((container) => originals.has(container))).toBe(false);
      }),
    );
  });
});
