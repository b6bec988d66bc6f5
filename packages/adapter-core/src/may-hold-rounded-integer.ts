import type { JsonLimits } from '@toolseal/guard';

/**
 * True when `value`, JSON data an SDK already parsed (`json_value` arguments), holds a number that
 * `JSON.parse` may have rounded into another one: an integer beyond `Number.MAX_SAFE_INTEGER`
 * (2^53 - 1) in magnitude. Past it, doubles are more than 1 apart, so the integer the model wrote
 * may not be the one that arrived (`9007199254740993` arrives as 9007199254740992, an order id or
 * amount the model never wrote); what the model wrote cannot be told from the value, so every such
 * integer counts (`1e20` and 2^53 itself included), and the collector refuses the arguments
 * (`INVALID_ARGUMENTS`, `non_json_value`), as the guard refuses the text `9007199254740993` in
 * `json_text` arguments.
 *
 * A rounded fraction (`5999.9999999999999` arriving as 6000) cannot be seen in a parsed value at
 * all and is not detected: only text arguments (`json_text`) keep the digits the guard compares.
 *
 * Also true, failing closed, when the walk cannot read `value` to the end: an accessor (never
 * invoked: its value is unknown), a hole, something JSON cannot express, or more than `limits`
 * allow (depth, array items, object keys, total values: the bounds the collector's guard walk
 * already applied, so no value that passed it comes near them). Iterative, so no input can
 * overflow the call stack. NaN and the infinities are numbers that are no integers: they are left
 * to the dispatcher's guard, which refuses the call (`non_json_value`).
 *
 * `value` is read through property descriptors, never running a getter; a proxy is read as its
 * traps answer, and one whose traps throw makes it throw (the parsers run the collector inside a
 * `try` that refuses the response). With `plainCopy`, `value` is the private copy the guard's
 * `copyUntrustedValue` built (plain objects and arrays of data properties, no proxy, no accessor):
 * its properties are read directly, about three times as fast.
 */
export function mayHoldRoundedInteger(value: unknown, limits: Readonly<JsonLimits>, plainCopy = false): boolean {
  const { maxDepth, maxArrayItems, maxObjectKeys, maxTotalNodes } = limits;
  let nodes = 0;
  // Open containers and their depths, alternating (no object per frame).
  const stack: unknown[] = [];

  // Checks one value and queues a container; true when it is, or may hide, a rounded integer.
  const suspect = (child: unknown, parentDepth: number): boolean => {
    if (++nodes > maxTotalNodes) return true;
    switch (typeof child) {
      case 'number':
        return Number.isInteger(child) && !Number.isSafeInteger(child);
      case 'string':
      case 'boolean':
        return false;
      case 'object': {
        if (child === null) return false;
        const depth = parentDepth + 1;
        if (depth > maxDepth) return true;
        stack.push(child, depth);
        return false;
      }
      default:
        return true; // undefined, a function, a symbol, a BigInt: no JSON data
    }
  };

  // A property read through its descriptor: an accessor or a missing item hides its value.
  const suspectProperty = (container: object, key: string | number, depth: number): boolean => {
    const descriptor = Object.getOwnPropertyDescriptor(container, key);
    return descriptor === undefined || !('value' in descriptor) || suspect(descriptor.value, depth);
  };

  if (suspect(value, 0)) return true;
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const container = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(container)) {
      const items: readonly unknown[] = container;
      const length = items.length;
      if (length > maxArrayItems) return true;
      for (let index = 0; index < length; index++) {
        if (plainCopy ? suspect(items[index], depth) : suspectProperty(items, index, depth)) return true;
      }
      continue;
    }
    const keys = plainCopy ? Object.keys(container) : Object.getOwnPropertyNames(container);
    if (keys.length > maxObjectKeys) return true;
    for (const key of keys) {
      if (plainCopy ? suspect(container[key], depth) : suspectProperty(container, key, depth)) return true;
    }
  }
  return false;
}
