import type { JsonValue } from '@toolseal/contracts';
import { contractSafePointer } from './contract-safe-pointer.js';
import { isForbiddenKey } from './forbidden-keys.js';
import type { GuardOutcome, GuardViolation } from './guard-violation.js';
import { resolveJsonLimits, type JsonLimits } from './json-limits.js';

/** One open container in the walk, linked to its parent only to build a violation path. */
interface Frame {
  readonly container: object;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly segment: string | number;
}

const isWellFormedNative = (String.prototype as unknown as { isWellFormed?: (this: string) => boolean }).isWellFormed;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `text` has no lone surrogate (`String.prototype.isWellFormed` where available). */
export function isWellFormedText(text: string): boolean {
  return isWellFormedNative === undefined ? !LONE_SURROGATE.test(text) : isWellFormedNative.call(text);
}

function pathOf(frame: Frame | null, child?: string | number): string {
  const segments: (string | number)[] = child === undefined ? [] : [child];
  for (let current = frame; current !== null && current.parent !== null; current = current.parent) {
    segments.push(current.segment);
  }
  return contractSafePointer(segments.reverse());
}

/**
 * Checks an already-parsed value (what the Anthropic and Gemini SDKs hand over) against the same
 * limits and rules as `parseUntrustedJson`: depth, items, keys, string length, total values,
 * forbidden keys and lone surrogates in strings and keys. It also rejects everything JSON cannot
 * express: `undefined`, functions, symbols, BigInt, NaN and the infinities, objects whose
 * prototype is neither `Object.prototype` nor `null` (Date, Map, class instances, boxed
 * primitives), arrays whose prototype is not `Array.prototype`, symbol keys, non-enumerable or
 * accessor properties of objects (a getter could answer differently on a later read; it is never
 * invoked), and sparse arrays. Array elements are read directly (an accessor on an array index,
 * which only host code can create, is not detected) and extra non-index properties of an array
 * are ignored, as JSON ignores them. A cycle is reported as `max_depth`; a shared
 * subtree counts once per occurrence towards `maxTotalNodes`, so a small graph cannot expand into
 * an enormous document.
 *
 * The walk is iterative (explicit stack), so no input can overflow the call stack. On success the
 * same value is returned, not a copy. Never throws on any input (a Proxy whose traps throw is the
 * host's own code and is not guarded against).
 */
export function checkUntrustedValue(value: unknown, limits?: Partial<JsonLimits>): GuardOutcome<JsonValue> {
  const { maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes } = resolveJsonLimits(limits);
  let nodes = 0;
  const stack: Frame[] = [];

  const fail = (rule: string, path: string): GuardOutcome<JsonValue> => {
    const violation: GuardViolation = { rule, path };
    return { ok: false, violation };
  };

  // Checks one value; a container is pushed for later. Returns the violation rule, or null.
  const visit = (child: unknown, parent: Frame | null, segment: string | number): string | null => {
    if (++nodes > maxTotalNodes) return 'max_total_nodes';
    switch (typeof child) {
      case 'string':
        if (child.length > maxStringLength) return 'max_string_length';
        return isWellFormedText(child) ? null : 'lone_surrogate';
      case 'number':
        return Number.isFinite(child) ? null : 'non_json_value';
      case 'boolean':
        return null;
      case 'object': {
        if (child === null) return null;
        const depth = parent === null ? 1 : parent.depth + 1;
        if (depth > maxDepth) return 'max_depth';
        const prototype: unknown = Object.getPrototypeOf(child);
        if (Array.isArray(child)) {
          if (prototype !== Array.prototype) return 'non_json_value';
        } else if (prototype !== Object.prototype && prototype !== null) {
          return 'non_json_value';
        }
        stack.push({ container: child, depth, parent, segment });
        return null;
      }
      default:
        return 'non_json_value'; // undefined, function, symbol, bigint
    }
  };

  const rootRule = visit(value, null, '');
  if (rootRule !== null) return fail(rootRule, '');

  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { container } = frame;
    if (Array.isArray(container)) {
      const items: unknown[] = container;
      if (items.length > maxArrayItems) return fail('max_array_items', pathOf(frame));
      for (let index = 0; index < items.length; index++) {
        // A hole reads as undefined and is rejected with it.
        const rule = visit(items[index], frame, index);
        if (rule !== null) return fail(rule, pathOf(frame, index));
      }
      continue;
    }
    const keys = Reflect.ownKeys(container);
    if (keys.length > maxObjectKeys) return fail('max_object_keys', pathOf(frame));
    for (const key of keys) {
      if (typeof key !== 'string') return fail('non_json_value', pathOf(frame));
      if (isForbiddenKey(key)) return fail('forbidden_key', pathOf(frame));
      if (key.length > maxStringLength) return fail('max_string_length', pathOf(frame));
      if (!isWellFormedText(key)) return fail('lone_surrogate', pathOf(frame));
      // Read through the descriptor: a getter is never invoked, and is rejected.
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) {
        return fail('non_json_value', pathOf(frame, key));
      }
      const rule = visit(descriptor.value, frame, key);
      if (rule !== null) return fail(rule, pathOf(frame, key));
    }
  }
  return { ok: true, value: value as JsonValue };
}
