import { refuseUnknownNames } from './refuse-unknown-names.js';

/**
 * Bounds on untrusted JSON, checked before anything expensive happens to it. Every count is
 * inclusive: a value exactly at the limit passes.
 */
export interface JsonLimits {
  /** Largest input, in UTF-8 bytes. Checked first, before any scan. */
  maxBytes: number;
  /** Deepest nesting of arrays and objects. A scalar has depth 0, `[]` depth 1, `[[]]` depth 2. */
  maxDepth: number;
  /** Most items in one array. */
  maxArrayItems: number;
  /** Most keys in one object. */
  maxObjectKeys: number;
  /** Longest string value or key, in UTF-16 code units after escapes are decoded (JavaScript `length`). */
  maxStringLength: number;
  /** Most values in the whole document: every scalar, array and object counts once (keys do not). */
  maxTotalNodes: number;
}

/**
 * Defaults sized for tool arguments and tool outputs, not for bulk documents: 1 MiB, depth 32,
 * 4,096 items per array, 256 keys per object, 65,536 code units per string, 65,536 values in all.
 * Hosts tighten them per contract (a refund proposal needs a few hundred bytes).
 */
export const DEFAULT_JSON_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxBytes: 1_048_576,
  maxDepth: 32,
  maxArrayItems: 4_096,
  maxObjectKeys: 256,
  maxStringLength: 65_536,
  maxTotalNodes: 65_536,
});

/** The value given, for a message: `"10"`, `NaN`, `-1`, `null`. */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return value === null ? 'null' : typeof value;
}

/** The names of `JsonLimits`: a member of given limits with any other name is refused. */
const LIMIT_NAMES: readonly string[] = Object.keys(DEFAULT_JSON_LIMITS);

/**
 * Throws a `TypeError` for a member of `limits` that is no limit: `{ maxByte: 10 }` would
 * otherwise keep the 1 MiB default while its author believes the input is bounded at 10 bytes.
 * `where` tells given limits (`JSON limits`) from the defaults of `resolveJsonLimits`.
 */
function refuseUnknownLimits(limits: object, where = 'JSON limits'): void {
  refuseUnknownNames(limits, LIMIT_NAMES, where, 'limit');
}

function pick(value: unknown, fallback: number, name: string): number {
  const chosen = value === undefined ? fallback : value;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < 0) {
    throw new TypeError(`JSON limit ${name} must be a non-negative safe integer, got ${shown(chosen)}`);
  }
  return chosen;
}

/**
 * Every limits object `resolveJsonLimits` returned (frozen, all six limits checked), and
 * `DEFAULT_JSON_LIMITS`. Given one of these back, `resolveJsonLimits` and every entry point return
 * it at once: a caller that resolves its limits at start-up and passes them to every call pays no
 * per-call check. Only objects made here are remembered, never one merely frozen elsewhere (that
 * is checked in full). Entry points do not remember what they resolve for one call (a `WeakSet`
 * insertion costs more than the check it would save): only `resolveJsonLimits` does.
 */
const RESOLVED_LIMITS = new WeakSet<object>([DEFAULT_JSON_LIMITS]);

/**
 * Fills unset limits from `defaults` (`DEFAULT_JSON_LIMITS` unless given). A limit that is absent
 * or explicitly `undefined` takes the default: `{ maxBytes: undefined }` never widens a package's
 * own defaults to the guard's. Limits are host configuration, not input: a limit (or default) that
 * is not a non-negative safe integer (`'10'`, `-1`, `NaN`, `null`, `1.5`, `Infinity`), a member
 * that is no limit (`maxByte`, a misspelt `maxBytes`, which would leave the default in force), or
 * limits that are neither `undefined` nor an object, throw a `TypeError` naming the limit, at every
 * entry point that takes limits (`parseUntrustedJson`, `scanJsonText`, `checkUntrustedValue`,
 * `copyUntrustedValue`), whatever the input. A member of `defaults` that is no limit throws too
 * (`{ ...PACKAGE_LIMITS, maxByte: 10 }` would keep the package's `maxBytes`), unless `defaults` is
 * itself a result of this function or `DEFAULT_JSON_LIMITS`.
 *
 * The result is frozen. Given back a result of its own (or `DEFAULT_JSON_LIMITS`), it returns that
 * object at once, whatever `defaults`: such an object holds all six limits, each a non-negative safe
 * integer, and no other member, so every `pick` would take the given value and never the default,
 * and nothing would be refused: resolving it again would give the same six values. Limits resolved
 * once at start-up and passed to every guard call therefore cost nothing per call. Any other object
 * (one frozen elsewhere included) is checked in full, every time.
 */
export function resolveJsonLimits(
  limits?: Partial<JsonLimits>,
  defaults: Readonly<JsonLimits> = DEFAULT_JSON_LIMITS,
): Readonly<JsonLimits> {
  const resolved = resolveLimitsForCall(limits, defaults);
  if (RESOLVED_LIMITS.has(resolved)) return resolved;
  Object.freeze(resolved);
  RESOLVED_LIMITS.add(resolved);
  return resolved;
}

/**
 * `resolveJsonLimits` for one guard call (not exported by the package): the same checks and the
 * same values, and the same object at once for limits `resolveJsonLimits` returned, but a fresh
 * object is neither frozen nor remembered. Its result must not leave the call.
 */
export function resolveLimitsForCall(
  limits: Partial<JsonLimits> | undefined,
  defaults: Readonly<JsonLimits> = DEFAULT_JSON_LIMITS,
): Readonly<JsonLimits> {
  if (typeof limits === 'object' && limits !== null && RESOLVED_LIMITS.has(limits)) return limits as Readonly<JsonLimits>;
  if (defaults === DEFAULT_JSON_LIMITS && limits === undefined) return DEFAULT_JSON_LIMITS;
  if (limits !== undefined && (typeof limits !== 'object' || limits === null)) {
    throw new TypeError(`JSON limits must be an object of limits, got ${shown(limits)}`);
  }
  if (limits !== undefined) refuseUnknownLimits(limits);
  // Defaults other than the guard's own come from `resolveJsonLimits` alone (every entry point
  // passes none), so this costs the guard calls nothing; a package's defaults resolved once are
  // taken as they are.
  if (defaults !== DEFAULT_JSON_LIMITS && !RESOLVED_LIMITS.has(defaults)) refuseUnknownLimits(defaults, 'JSON limits (defaults)');
  const given: Partial<Record<keyof JsonLimits, unknown>> = limits ?? {};
  return {
    maxBytes: pick(given.maxBytes, defaults.maxBytes, 'maxBytes'),
    maxDepth: pick(given.maxDepth, defaults.maxDepth, 'maxDepth'),
    maxArrayItems: pick(given.maxArrayItems, defaults.maxArrayItems, 'maxArrayItems'),
    maxObjectKeys: pick(given.maxObjectKeys, defaults.maxObjectKeys, 'maxObjectKeys'),
    maxStringLength: pick(given.maxStringLength, defaults.maxStringLength, 'maxStringLength'),
    maxTotalNodes: pick(given.maxTotalNodes, defaults.maxTotalNodes, 'maxTotalNodes'),
  };
}
