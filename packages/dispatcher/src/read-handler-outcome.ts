import type { ErrorReason } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';
import type { HandlerErrorCode } from './dispatcher-tool.js';

/** A handler's answer after reading it. Nothing of it has been trusted yet except `code`. */
export type ReadOutcome =
  /**
   * The envelope without its `kind` member, otherwise untouched (same prototype, same property
   * descriptors, accessors not invoked), for `sealResult` to check against the output contract.
   */
  | { kind: 'data'; envelope: unknown }
  /** A catalogued refusal that `makeError` accepted. */
  | { kind: 'error'; code: HandlerErrorCode; retryAfterMs?: number; reasons?: readonly ErrorReason[] }
  /** Anything else: not an object, no known `kind`, or an error the catalog refuses. */
  | { kind: 'garbage' };

const GARBAGE: ReadOutcome = Object.freeze({ kind: 'garbage' });

/** The catalogued refusals a handler may answer; the only errors a write's record is completed with. */
export const HANDLER_ERROR_CODES: ReadonlySet<string> = new Set<HandlerErrorCode>([
  'NOT_FOUND',
  'RULE_REJECTED',
  'FACTS_UNAVAILABLE',
  'STATE_CHANGED',
  'RATE_LIMIT',
]);

/** Reads the value of an own data property; `undefined` for a missing one or an accessor. */
function dataValue(descriptors: PropertyDescriptorMap, key: string): unknown {
  const descriptor = Object.hasOwn(descriptors, key) ? descriptors[key] : undefined;
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
}

/**
 * Reads what a handler returned (or a status query, with `dataKind: 'committed'`) without trusting
 * it: only own data properties are read, no getter is ever invoked, and the data envelope keeps
 * every other property exactly as it was, so the output contract still sees an injected top-level
 * `status`, an accessor or a class instance and refuses it. An error must be one a handler may
 * answer with, with options the catalog allows for its code; otherwise it is garbage.
 *
 * Never throws (a hostile proxy is garbage).
 */
export function readHandlerOutcome(value: unknown, dataKind: 'data' | 'committed'): ReadOutcome {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return GARBAGE;
  try {
    const plain = plainEnvelope(value, dataKind);
    if (plain !== null) return { kind: 'data', envelope: plain };
    const descriptors = Object.getOwnPropertyDescriptors(value);
    const kind = dataValue(descriptors, 'kind');
    if (kind === dataKind) {
      delete descriptors['kind'];
      return { kind: 'data', envelope: Object.create(Object.getPrototypeOf(value) as object | null, descriptors) };
    }
    if (kind !== 'error' || dataKind !== 'data') return GARBAGE;
    const code = dataValue(descriptors, 'code');
    if (typeof code !== 'string' || !HANDLER_ERROR_CODES.has(code)) return GARBAGE;
    const retryAfterMs = dataValue(descriptors, 'retryAfterMs');
    const reasons = dataValue(descriptors, 'reasons');
    if (retryAfterMs !== undefined && typeof retryAfterMs !== 'number') return GARBAGE;
    if (reasons !== undefined && !Array.isArray(reasons)) return GARBAGE;
    const options: { retryAfterMs?: number; reasons?: ErrorReason[] } = {};
    if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;
    // A private copy of plain reasons: field and rule strings only.
    if (reasons !== undefined) options.reasons = copyReasons(reasons);
    makeError(code as HandlerErrorCode, options);
    return { kind: 'error', code: code as HandlerErrorCode, ...options };
  } catch {
    return GARBAGE;
  }
}

/**
 * The common case, cheaply: a plain object whose own properties are all enumerable, string-keyed
 * data properties, with `kind: dataKind`. Returns the same properties without `kind` in a new plain
 * object (the same value for every check that follows), or `null` for anything else, which takes
 * the descriptor-preserving path.
 */
function plainEnvelope(value: object, dataKind: string): object | null {
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.getOwnPropertySymbols(value).length > 0) return null;
  const envelope: Record<string, unknown> = {};
  let kindSeen = false;
  for (const key of Object.getOwnPropertyNames(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    // An own "__proto__" cannot be copied by assignment; leave it to the slow path (and the guard).
    if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true || key === '__proto__') return null;
    if (key === 'kind') kindSeen = descriptor.value === dataKind;
    else envelope[key] = descriptor.value;
  }
  return kindSeen ? envelope : null;
}

function copyReasons(reasons: readonly unknown[]): ErrorReason[] {
  if (reasons.length > 16) throw new RangeError('too many reasons');
  return reasons.map((reason) => {
    if (typeof reason !== 'object' || reason === null) throw new TypeError('reason must be an object');
    const descriptors = Object.getOwnPropertyDescriptors(reason);
    const field = dataValue(descriptors, 'field');
    const rule = dataValue(descriptors, 'rule');
    if (typeof field !== 'string' || typeof rule !== 'string') throw new TypeError('reason needs field and rule');
    return { field, rule };
  });
}

/** Reads what a status query returned: `committed` data, `not_committed`, or `unknown`. */
export function readStatusOutcome(value: unknown): ReadOutcome | { kind: 'not_committed' } | { kind: 'unknown' } {
  const read = readHandlerOutcome(value, 'committed');
  if (read.kind === 'data') return read;
  try {
    if (typeof value === 'object' && value !== null) {
      const kind = dataValue(Object.getOwnPropertyDescriptors(value), 'kind');
      if (kind === 'not_committed') return { kind: 'not_committed' };
    }
  } catch {
    // A hostile proxy: unknown.
  }
  return { kind: 'unknown' };
}
