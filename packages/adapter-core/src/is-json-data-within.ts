import type { JsonLimits } from '@toolseal/guard';

/** One open container of the walk. */
interface Frame {
  readonly container: object;
  readonly depth: number;
}

/**
 * True when `value` is made only of what JSON can express, within the structural bounds of
 * `limits` (depth, array items, object keys, total values), as the guard's `copyUntrustedValue`
 * defines JSON data: strings, numbers, booleans, `null`, arrays (prototype `Array.prototype`,
 * without holes, symbol keys or enumerable properties besides the items) and objects (prototype
 * `Object.prototype` or `null`, without symbol keys, every own property enumerable data).
 * `checkUntrustedValue` ignores an array's properties besides its items; this reads them the
 * stricter way in both cases, and every array index through its descriptor (an index accessor,
 * which only host code makes, is refused rather than read). False
 * for `undefined`, a function, a symbol, a BigInt, a `Date` or any other class instance, an
 * accessor (never invoked), a symbol key, a hole, and for anything past those bounds (a cycle
 * included: it passes the depth bound).
 *
 * It ignores what the guard calls content rules, which JSON text can produce (`__proto__` keys,
 * lone surrogates, NaN and the infinities), and the byte and string-length bounds. The collector
 * asks it after the guard reported a violation that is not a size rule: the guard walks on past a
 * content violation to measure the size, but stops at the first value JSON cannot express, so
 * whatever follows such a value was never measured. True here means the guard's walk went to the
 * end: its size verdict stands.
 *
 * Iterative (no input can overflow the call stack), bounded by `limits`, never runs a getter. A
 * proxy is read as what its traps answer; one whose traps throw makes it throw (the parsers run it
 * inside a `try` that refuses the response).
 */
export function isJsonDataWithin(value: unknown, limits: Readonly<JsonLimits>): boolean {
  const { maxDepth, maxArrayItems, maxObjectKeys, maxTotalNodes } = limits;
  let nodes = 0;
  const stack: Frame[] = [];

  // Checks one value and queues a container; false for anything JSON cannot express.
  const visit = (child: unknown, parentDepth: number): boolean => {
    if (++nodes > maxTotalNodes) return false;
    switch (typeof child) {
      case 'string':
      case 'number':
      case 'boolean':
        return true;
      case 'object': {
        if (child === null) return true;
        const depth = parentDepth + 1;
        if (depth > maxDepth) return false;
        const prototype: unknown = Object.getPrototypeOf(child);
        const expected = Array.isArray(child) ? prototype === Array.prototype : prototype === Object.prototype || prototype === null;
        if (!expected) return false;
        stack.push({ container: child, depth });
        return true;
      }
      default:
        return false; // undefined, function, symbol, bigint
    }
  };

  if (!visit(value, 0)) return false;
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { container, depth } = frame;
    if (Object.getOwnPropertySymbols(container).length !== 0) return false;
    if (Array.isArray(container)) {
      const items: readonly unknown[] = container;
      const length = items.length;
      if (length > maxArrayItems) return false;
      // Fewer enumerable keys than items is a hole; more is a property besides the items.
      if (Object.keys(items).length !== length) return false;
      for (let index = 0; index < length; index++) {
        const descriptor = Object.getOwnPropertyDescriptor(items, index);
        if (descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) return false;
        if (!visit(descriptor.value, depth)) return false;
      }
      continue;
    }
    const keys = Object.getOwnPropertyNames(container);
    if (keys.length > maxObjectKeys) return false;
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) return false;
      if (!visit(descriptor.value, depth)) return false;
    }
  }
  return true;
}
