import type { JsonValue } from '@toolseal/contracts';
import { contractSafePointer } from './contract-safe-pointer.js';
import { isForbiddenKey } from './forbidden-keys.js';
import { jsonByteLength } from './json-byte-length.js';
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

// Bounds on the UTF-8 size of a value's JSON text, per part. A string of n code units takes at
// least n + 2 bytes (a surrogate pair is 4 bytes for 2 units) and at most 6n + 2 (every unit a
// \u00XX escape); a number at least 1 and at most 25 (`-0.0000012345678901234567`); a container
// 2 plus one comma per member after the first, and each key its string plus a colon.
const MAX_NUMBER_BYTES = 25;

/**
 * Checks an already-parsed value (what the Anthropic and Gemini SDKs hand over) against the same
 * limits and rules as `parseUntrustedJson`: bytes (the UTF-8 size of its `JSON.stringify` text,
 * counted during the walk, never by building the text), depth, items, keys, string length, total values,
 * forbidden keys and lone surrogates in strings and keys. It also rejects everything JSON cannot
 * express: `undefined`, functions, symbols, BigInt, NaN and the infinities, objects whose
 * prototype is neither `Object.prototype` nor `null` (Date, Map, class instances, boxed
 * primitives), arrays whose prototype is not `Array.prototype`, symbol keys, non-enumerable or
 * accessor properties of objects (a getter could answer differently on a later read; it is never
 * invoked), and sparse arrays. Array elements are read directly (an accessor on an array index,
 * which only host code can create, is not detected) and extra non-index properties of an array
 * are ignored, as JSON ignores them. A cycle is reported as `max_depth`; a shared
 * subtree counts once per occurrence towards `maxTotalNodes` and `maxBytes` (as its text would
 * repeat it), so a small graph cannot expand into an enormous document. A `max_bytes` violation
 * has the empty path: the size belongs to the whole text.
 *
 * The walk is iterative (explicit stack), so no input can overflow the call stack. On success the
 * same value is returned, not a copy. Never throws on any input (a Proxy whose traps throw is the
 * host's own code and is not guarded against).
 */
export function checkUntrustedValue(value: unknown, limits?: Partial<JsonLimits>): GuardOutcome<JsonValue> {
  const { maxBytes, maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes } = resolveJsonLimits(limits);
  let nodes = 0;
  // Tallies for the size bounds: code units of strings and keys (1 to 6 bytes each), quotes,
  // colons, brackets and commas (exact), literals (exact) and numbers (1 to 25 bytes each). The
  // exact size is counted only when the bounds cannot decide: the lower bound past the limit
  // rejects (checked before each container and, for its string units, after each string, so an
  // oversized value costs about the limit), the upper bound within it accepts.
  let units = 0;
  let fixedBytes = 0;
  let numbers = 0;
  const lowerBound = (): number => units + fixedBytes + numbers;
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
        if (!isWellFormedText(child)) return 'lone_surrogate';
        units += child.length;
        fixedBytes += 2;
        // Strings carry the bulk of a large value: stop inside a container as soon as they alone
        // pass the limit.
        return units > maxBytes ? 'max_bytes' : null;
      case 'number':
        if (!Number.isFinite(child)) return 'non_json_value';
        numbers++;
        return null;
      case 'boolean':
        fixedBytes += child ? 4 : 5;
        return null;
      case 'object': {
        if (child === null) {
          fixedBytes += 4;
          return null;
        }
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
    // The size limit is about the whole text: its violation names no member (as parseUntrustedJson).
    if (lowerBound() > maxBytes) return fail('max_bytes', '');
    const { container } = frame;
    if (Array.isArray(container)) {
      const items: unknown[] = container;
      if (items.length > maxArrayItems) return fail('max_array_items', pathOf(frame));
      // Brackets and commas.
      fixedBytes += items.length === 0 ? 2 : items.length + 1;
      for (let index = 0; index < items.length; index++) {
        // A hole reads as undefined and is rejected with it.
        const rule = visit(items[index], frame, index);
        if (rule !== null) return fail(rule, rule === 'max_bytes' ? '' : pathOf(frame, index));
      }
      continue;
    }
    // Every own key, as `Reflect.ownKeys` lists them (strings first, then symbols), in two calls
    // that measured a third of its cost under Node 20.
    const keys = Object.getOwnPropertyNames(container);
    const symbols = Object.getOwnPropertySymbols(container).length;
    if (keys.length + symbols > maxObjectKeys) return fail('max_object_keys', pathOf(frame));
    // Braces and commas; each key adds its quotes and a colon below.
    fixedBytes += keys.length === 0 ? 2 : keys.length + 1;
    for (const key of keys) {
      if (isForbiddenKey(key)) return fail('forbidden_key', pathOf(frame));
      if (key.length > maxStringLength) return fail('max_string_length', pathOf(frame));
      if (!isWellFormedText(key)) return fail('lone_surrogate', pathOf(frame));
      units += key.length;
      fixedBytes += 3;
      // Read through the descriptor: a getter is never invoked, and is rejected.
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) {
        return fail('non_json_value', pathOf(frame, key));
      }
      const rule = visit(descriptor.value, frame, key);
      if (rule !== null) return fail(rule, rule === 'max_bytes' ? '' : pathOf(frame, key));
    }
    if (symbols !== 0) return fail('non_json_value', pathOf(frame));
  }
  if (lowerBound() > maxBytes) return fail('max_bytes', '');
  // The bounds could not decide: count exactly, stopping past the limit.
  const upperBound = 6 * units + fixedBytes + MAX_NUMBER_BYTES * numbers;
  if (upperBound > maxBytes && jsonByteLength(value, maxBytes) > maxBytes) return fail('max_bytes', '');
  return { ok: true, value: value as JsonValue };
}
