import type { JsonObject, JsonValue } from '@toolseal/contracts';

// Internal to @toolseal/adapter-core: takes only values this package built with the
// guard's `copyUntrustedValue` (fresh plain objects and dense arrays of JSON data, data properties
// only, a tree without shared subtrees or cycles, no forbidden key), never a host's object.

/**
 * A fresh, unfrozen copy of `value` (iteratively): new plain objects and arrays, the same
 * primitives, keys in the same order. No checks: `value` was checked when it was first copied.
 * Costs a quarter to a third of the guard's `copyUntrustedValue` walk (measured 0.13 µs for a
 * one-key object, 0.8 µs for four keys and an array of two objects, on a slow machine;
 * `structuredClone` 1.5 and 5.6 µs).
 */
export function copyJsonData(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  const root: JsonValue[] | JsonObject = Array.isArray(value) ? [] : {};
  // Containers still to fill, and their empty copies, at the same positions.
  const sources: Array<JsonValue[] | JsonObject> = [value];
  const targets: Array<JsonValue[] | JsonObject> = [root];
  for (let source = sources.pop(); source !== undefined; source = sources.pop()) {
    const target = targets.pop()!;
    if (Array.isArray(source)) {
      const items = target as JsonValue[];
      for (let index = 0; index < source.length; index++) {
        const item = source[index]!;
        if (typeof item !== 'object' || item === null) {
          items.push(item);
          continue;
        }
        const copy: JsonValue[] | JsonObject = Array.isArray(item) ? [] : {};
        sources.push(item);
        targets.push(copy);
        items.push(copy);
      }
      continue;
    }
    const record = target as JsonObject;
    const keys = Object.keys(source);
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      const member = source[key]!;
      let copy: JsonValue = member;
      if (typeof member === 'object' && member !== null) {
        copy = Array.isArray(member) ? [] : {};
        sources.push(member);
        targets.push(copy);
      }
      // Never reached for values this package built (the guard refuses the key), but an
      // assignment to `__proto__` would set the prototype instead of a key.
      if (key === '__proto__') {
        Object.defineProperty(record, key, { value: copy, enumerable: true, writable: true, configurable: true });
      } else {
        record[key] = copy;
      }
    }
  }
  return root;
}
