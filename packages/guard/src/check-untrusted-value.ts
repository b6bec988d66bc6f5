import type { JsonValue } from '@toolseal/contracts';
import { contractSafePointer } from './contract-safe-pointer.js';
import { isForbiddenKey } from './forbidden-keys.js';
import { jsonByteLength } from './json-byte-length.js';
import type { GuardOutcome, GuardViolation } from './guard-violation.js';
import { resolveLimitsForCall, type JsonLimits } from './json-limits.js';
import { refuseUnknownNames } from './refuse-unknown-names.js';

/** One open container in the walk, linked to its parent only to build a violation path. */
interface Frame {
  readonly container: object;
  readonly depth: number;
  readonly parent: Frame | null;
  readonly segment: string | number;
  /** The container's private copy being built (`copyUntrustedValue`), else `null`. */
  readonly copy: Record<string, unknown> | unknown[] | null;
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
 * invoked), and sparse arrays. Array elements are read directly, once each, as ordinary property
 * reads: a getter on an array index (which only host code can define, never `JSON.parse`) is
 * invoked and its answer checked, and a non-enumerable index is read like any other; neither is
 * detected or refused. An array's own properties besides
 * its items are ignored, as JSON ignores them, and never read: hand the value on as JSON (canonical
 * text, `copyUntrustedValue`), never through `structuredClone` or a spread, which would carry them
 * along. Detecting them costs a listing of every index (measured 13% of the walk of a small tool
 * output, twice the walk of a long array of numbers), which only `copyUntrustedValue` pays. A cycle is reported as
 * `max_depth`; a shared subtree counts once per occurrence towards `maxTotalNodes` and `maxBytes`
 * (as its text would repeat it), so a small graph cannot expand into an enormous document. A
 * `max_bytes` violation has the empty path: the size belongs to the whole text.
 *
 * Which violation is reported: size rules (the `max_*` rules, one per `JsonLimits` bound) win over
 * the content rules JSON text can produce (`forbidden_key`, `lone_surrogate`, and `non_json_value`
 * for NaN and the infinities: an SDK's `JSON.parse` gives an own `__proto__` key, a lone surrogate
 * from `\ud800`, or Infinity from `1e400`). After such a
 * content violation the walk goes on, for size only: it reads what it would have read anyway
 * (object properties through their descriptors, so an object's getter is still never invoked;
 * array elements as ordinary reads, so a getter on an array index is still invoked, once) and stays
 * bounded by the same limits; the first size violation is reported if there is one, else the first
 * content violation (same rule and path as when the walk stopped there). So a 5 MiB or
 * 100,000-deep argument cannot hide its size behind a leading `__proto__` key, and a caller that
 * acts on size rules only (a provider adapter refusing the whole response) still sees it. Any
 * other failure (a value JSON cannot express) ends the walk where it is found; met after a content
 * violation, it ends the walk too and the content violation is reported.
 *
 * The walk is iterative (explicit stack), so no input can overflow the call stack. On success the
 * same value is returned, not a copy (see `copyUntrustedValue`). Never throws on any input; invalid
 * limits throw a `TypeError` naming the limit (`resolveJsonLimits`), whatever the value.
 *
 * The value is read as JavaScript reads it, which only code running in the same realm can subvert:
 * a Proxy is read as what its traps answer (one that lies about its prototype is taken for what it
 * claims, one whose traps throw makes the check throw), and an array hole is read through the
 * prototype chain like any element, so in a realm whose `Array.prototype` has been given index
 * properties (prototype pollution) a hole reads as that value instead of being refused. Both are
 * the host's own code, not data; `@toolseal/digests`' `canonicalize` reads values the same way.
 */
export function checkUntrustedValue(value: unknown, limits?: Partial<JsonLimits>): GuardOutcome<JsonValue> {
  return walkUntrustedValue(value, limits, CHECK);
}

/**
 * `checkUntrustedValue`, returning on success a private copy built from the values the walk read:
 * fresh plain objects (prototype `Object.prototype`) and arrays, every property and element read
 * exactly once. What was checked is therefore exactly what is returned, even when the input has
 * array-index accessors or is changed by other code afterwards: use it instead of checking, then
 * copying (a second read, by `structuredClone` or anything else, may see different values).
 * Unlike `checkUntrustedValue`, it also refuses (`non_json_value`) an array with an enumerable or
 * symbol own property besides its items, rather than return a copy that silently lacks it (a
 * non-enumerable named one is not detected: finding it costs 35 to 140 ns per item; it is not
 * copied either). Meant for small values kept as they were validated (proposals, arguments).
 * With `{ arrayProperties: 'drop' }` such properties are left out of the copy instead, as
 * `JSON.stringify` and `canonicalize` leave them out of their text (a `RegExp` match's `index`
 * and `input`, say), and no array's keys are listed (about 7 times the cost of copying a long
 * array of numbers): for values whose JSON text is what counts (a handler's output).
 * `{ arrayProperties: 'refuse' }`, or `undefined`, is the default.
 *
 * Throws as `checkUntrustedValue` does, for invalid limits, and also for invalid options, never
 * for the value: a `TypeError` for options that are neither `undefined` nor an object, a member
 * other than `arrayProperties` (`{ arrayProperty: 'drop' }` would copy under the default), or an
 * `arrayProperties` other than `'refuse'` and `'drop'` (`'keep'`, `'Drop'`, `true`: no copy keeps
 * them, and each would otherwise give the default without a word). The options are checked on
 * every call, without allocating: a few comparisons for an object reused from call to call.
 */
export function copyUntrustedValue(
  value: unknown,
  limits?: Partial<JsonLimits>,
  options?: { arrayProperties?: 'refuse' | 'drop' },
): GuardOutcome<JsonValue> {
  return walkUntrustedValue(value, limits, options === undefined ? COPY : copyMode(options));
}

/** How `walkUntrustedValue` runs: a check, a copy, or a copy leaving out arrays' other properties. */
const CHECK = 0;
const COPY = 1;
const COPY_DROPPING_ARRAY_PROPERTIES = 2;
type WalkMode = typeof CHECK | typeof COPY | typeof COPY_DROPPING_ARRAY_PROPERTIES;

/** The members of `copyUntrustedValue`'s options: any other is refused. */
const COPY_OPTION_NAMES: readonly string[] = Object.freeze(['arrayProperties']);

/** What a value given as an option was, for a message: `"keep"`, `true`, `null`, `an array`. */
function shownOption(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * The walk `copyUntrustedValue`'s options ask for, each member read once; a `TypeError` for
 * options that are not an object, a member that is no option, or an `arrayProperties` value that
 * is neither `'refuse'` nor `'drop'`.
 */
function copyMode(options: unknown): WalkMode {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`copyUntrustedValue: options must be an object, got ${shownOption(options)}`);
  }
  refuseUnknownNames(options, COPY_OPTION_NAMES, 'copyUntrustedValue');
  const arrayProperties: unknown = (options as { arrayProperties?: unknown }).arrayProperties;
  if (arrayProperties === 'drop') return COPY_DROPPING_ARRAY_PROPERTIES;
  if (arrayProperties === undefined || arrayProperties === 'refuse') return COPY;
  throw new TypeError(`copyUntrustedValue: arrayProperties must be 'refuse' or 'drop', got ${shownOption(arrayProperties)}`);
}

/** `visit`'s rule for NaN and the infinities, reported as `non_json_value` (a content rule). */
const NON_FINITE = 'non_finite';

/** The content rules JSON text can produce, after which the walk goes on for size. */
function isContentRule(rule: string): boolean {
  return rule === 'forbidden_key' || rule === 'lone_surrogate' || rule === NON_FINITE;
}

function walkUntrustedValue(value: unknown, limits: Partial<JsonLimits> | undefined, mode: WalkMode): GuardOutcome<JsonValue> {
  const copy = mode !== CHECK;
  const { maxBytes, maxDepth, maxArrayItems, maxObjectKeys, maxStringLength, maxTotalNodes } = resolveLimitsForCall(limits);
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
  // The first content violation, once found: from then on the walk only looks for a size one.
  let content: GuardViolation | null = null;

  const fail = (rule: string, path: string): GuardOutcome<JsonValue> => {
    const violation: GuardViolation = { rule, path };
    return { ok: false, violation };
  };

  // A failure that ends the walk at `frame` (its member `segment`, when given): after a content
  // violation, that one is reported. Paths are built only here, on the way out.
  const stop = (rule: string, frame: Frame | null, segment?: string | number): GuardOutcome<JsonValue> =>
    content === null ? fail(rule, pathOf(frame, segment)) : { ok: false, violation: content };

  // What a rule `visit` found ends in: null to go on (a content rule, noted if it is the first),
  // else the outcome. Size rules win over a content violation found before.
  const settle = (rule: string, frame: Frame | null, segment?: string | number): GuardOutcome<JsonValue> | null => {
    if (rule === 'max_bytes') return fail(rule, '');
    if (rule.startsWith('max_')) return fail(rule, pathOf(frame, segment));
    if (isContentRule(rule)) {
      if (content === null) content = { rule: rule === NON_FINITE ? 'non_json_value' : rule, path: pathOf(frame, segment) };
      return null;
    }
    return stop(rule, frame, segment);
  };

  // Checks one value; a container is pushed for later. Returns the violation rule, or null.
  const visit = (child: unknown, parent: Frame | null, segment: string | number): string | null => {
    if (++nodes > maxTotalNodes) return 'max_total_nodes';
    switch (typeof child) {
      case 'string':
        if (child.length > maxStringLength) return 'max_string_length';
        units += child.length;
        fixedBytes += 2;
        // Strings carry the bulk of a large value: stop inside a container as soon as they alone
        // pass the limit.
        if (units > maxBytes) return 'max_bytes';
        if (content === null && !isWellFormedText(child)) return 'lone_surrogate';
        break;
      case 'number':
        numbers++;
        // `1e400` in an SDK's JSON text arrives as Infinity: refused, but the size is still measured.
        if (!Number.isFinite(child)) return NON_FINITE;
        break;
      case 'boolean':
        fixedBytes += child ? 4 : 5;
        break;
      case 'object': {
        if (child === null) {
          fixedBytes += 4;
          break;
        }
        const depth = parent === null ? 1 : parent.depth + 1;
        if (depth > maxDepth) return 'max_depth';
        const prototype: unknown = Object.getPrototypeOf(child);
        const isArray = Array.isArray(child);
        if (isArray) {
          if (prototype !== Array.prototype) return 'non_json_value';
        } else if (prototype !== Object.prototype && prototype !== null) {
          return 'non_json_value';
        }
        // Nothing is copied any more once a content violation is found: the outcome is a rejection.
        const own = copy && content === null ? (isArray ? [] : {}) : null;
        stack.push({ container: child, depth, parent, segment, copy: own });
        if (own !== null && parent !== null) place(parent, segment, own);
        return null;
      }
      default:
        return 'non_json_value'; // undefined, function, symbol, bigint
    }
    if (copy && parent !== null) place(parent, segment, child);
    return null;
  };

  // Puts a checked scalar, or a container's copy, into its parent's copy.
  const place = (parent: Frame, segment: string | number, item: unknown): void => {
    const target = parent.copy;
    // Never reached with a forbidden key (`__proto__` would be a setter here): finding one ends the copy.
    if (target === null || content !== null) return;
    if (Array.isArray(target)) target.push(item);
    else target[segment] = item;
  };

  const rootRule = visit(value, null, '');
  if (rootRule !== null) {
    const settled = settle(rootRule, null);
    if (settled !== null) return settled;
  }
  // The value returned on success: the input itself, or the copy of its root container.
  const result: unknown = copy ? (stack[0]?.copy ?? value) : value;

  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    // The size limit is about the whole text: its violation names no member (as parseUntrustedJson).
    if (lowerBound() > maxBytes) return fail('max_bytes', '');
    const { container } = frame;
    if (Array.isArray(container)) {
      const items: unknown[] = container;
      if (items.length > maxArrayItems) return fail('max_array_items', pathOf(frame));
      // For a copy: enumerable own properties besides the indexes (more keys than a dense array
      // has) or symbol properties, which the copy would silently lack. One count per array, after
      // the item limit, so it stays bounded. Fewer keys means a hole, which the walk below reports
      // where it is.
      if (mode === COPY && (Object.keys(items).length > items.length || Object.getOwnPropertySymbols(items).length !== 0)) {
        return stop('non_json_value', frame);
      }
      // Brackets and commas.
      fixedBytes += items.length === 0 ? 2 : items.length + 1;
      for (let index = 0; index < items.length; index++) {
        // A hole reads as undefined and is rejected with it.
        const rule = visit(items[index], frame, index);
        if (rule !== null) {
          const settled = settle(rule, frame, index);
          if (settled !== null) return settled;
        }
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
      if (key.length > maxStringLength) return fail('max_string_length', pathOf(frame));
      units += key.length;
      fixedBytes += 3;
      if (content === null) {
        const keyRule = isForbiddenKey(key) ? 'forbidden_key' : isWellFormedText(key) ? null : 'lone_surrogate';
        if (keyRule !== null) content = { rule: keyRule, path: pathOf(frame) };
      }
      // Read through the descriptor: a getter is never invoked, and is rejected.
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined || !descriptor.enumerable || !('value' in descriptor)) {
        return stop('non_json_value', frame, key);
      }
      const rule = visit(descriptor.value, frame, key);
      if (rule !== null) {
        const settled = settle(rule, frame, key);
        if (settled !== null) return settled;
      }
    }
    if (symbols !== 0) return stop('non_json_value', frame);
  }
  if (lowerBound() > maxBytes) return fail('max_bytes', '');
  // The bounds could not decide: count exactly (on the copy, when there is one: it holds the
  // values read), stopping past the limit.
  const upperBound = 6 * units + fixedBytes + MAX_NUMBER_BYTES * numbers;
  const measured = content === null ? result : value;
  if (upperBound > maxBytes && jsonByteLength(measured, maxBytes) > maxBytes) return fail('max_bytes', '');
  if (content !== null) return { ok: false, violation: content };
  return { ok: true, value: result as JsonValue };
}
