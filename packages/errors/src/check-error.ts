import type { ErrorReason, ModelError } from '@toolseal/contracts';
import { ERROR_CATALOG, isErrorCode } from './catalog.js';

/**
 * The outcome of comparing an error body with the catalog. On success, `error` is a frozen copy
 * built from the values read during the check, never the object that was passed in.
 */
export type CheckErrorOutcome = { ok: true; error: ModelError } | { ok: false; problems: string[] };

const ERROR_KEYS: readonly string[] = ['category', 'code', 'reasons', 'recovery', 'retry_after_ms', 'safe_message'];
const REASON_KEYS: readonly string[] = ['field', 'rule'];
const MAX_REASONS = 16;
// A pointer built only from contract-known names and indexes (see ErrorReason.field).
const REASON_FIELD = /^(?:\/(?:[A-Za-z0-9_]{1,64}|[0-9]{1,6})){0,16}$/;
/**
 * Longest `ErrorReason.field`, in characters: the `maxLength` of `schemas/model-error.json`. The
 * pattern alone allows 16 segments of 64 characters (1,040): a field past this bound is refused,
 * so every error `checkError` passes is one the published schema accepts too.
 */
export const MAX_REASON_FIELD_LENGTH = 256;

function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Reflect.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The own data properties of an object, read once: their names in the object's order, and values by name. */
interface ExactData {
  readonly keys: readonly string[];
  readonly values: Readonly<Record<string, unknown>>;
}

/**
 * Reads the own properties of `value` once each, through their descriptors (never through `get`),
 * when they are exactly `keys` and each is an enumerable data property; `undefined` when the shape
 * differs. (`Reflect.ownKeys` never lists a key twice: a Proxy trap that tries throws.)
 */
function readExactData(value: object, keys: readonly string[]): ExactData | undefined {
  const own = Reflect.ownKeys(value);
  if (own.length !== keys.length) return undefined;
  // Only names from `keys` are ever written (`__proto__` is not one of them).
  const values: Record<string, unknown> = {};
  for (const key of own) {
    if (typeof key !== 'string' || !keys.includes(key)) return undefined;
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true) return undefined;
    values[key] = descriptor.value;
  }
  return { keys: own as string[], values };
}

/** A frozen plain object of `read`'s fields in their order, with `replace` overriding some values. */
function frozenCopy<T>(read: ExactData, replace?: { key: string; value: unknown }): T {
  const record: Record<string, unknown> = {};
  for (const key of read.keys) record[key] = key === replace?.key ? replace.value : read.values[key];
  return Object.freeze(record) as T;
}

type ReasonsRead = { ok: true; reasons: readonly ErrorReason[] } | { ok: false };

/**
 * Checks `reasons` (an array of at most 16 `{field, rule}`, with no holes, no other own
 * properties and no accessors at any level) and copies it. Problems go to `problems`.
 */
function readReasons(reasons: unknown, code: string, allowedRules: readonly string[], problems: string[]): ReasonsRead {
  if (!Array.isArray(reasons)) {
    problems.push('reasons is not an array');
    return { ok: false };
  }
  const lengthDescriptor = Reflect.getOwnPropertyDescriptor(reasons, 'length');
  const length: unknown = lengthDescriptor !== undefined && 'value' in lengthDescriptor ? lengthDescriptor.value : undefined;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    problems.push('reasons is not an array');
    return { ok: false };
  }
  if (length > MAX_REASONS) {
    problems.push(`more than ${MAX_REASONS} reasons`);
    return { ok: false };
  }
  // Only the indexes below `length` and `length` itself: no named or symbol properties.
  const own = Reflect.ownKeys(reasons);
  if (own.length > length + 1) {
    problems.push('reasons is not an array');
    return { ok: false };
  }
  for (const key of own) {
    if (key === 'length') continue;
    if (typeof key !== 'string' || !/^(?:0|[1-9][0-9]?)$/.test(key) || Number(key) >= length) {
      problems.push('reasons is not an array');
      return { ok: false };
    }
  }
  const copies: ErrorReason[] = [];
  let ok = true;
  for (let index = 0; index < length; index++) {
    const descriptor = Reflect.getOwnPropertyDescriptor(reasons, String(index));
    // A hole, an accessor or a hidden element is not a reason.
    const read =
      descriptor !== undefined && 'value' in descriptor && descriptor.enumerable === true && isPlainObject(descriptor.value)
        ? readExactData(descriptor.value, REASON_KEYS)
        : undefined;
    if (read === undefined) {
      problems.push(`reasons/${index} is not {field, rule}`);
      ok = false;
      continue;
    }
    const { field, rule } = read.values;
    if (typeof field !== 'string' || !REASON_FIELD.test(field)) {
      problems.push(`reasons/${index}/field is not a contract-safe pointer`);
      ok = false;
    } else if (field.length > MAX_REASON_FIELD_LENGTH) {
      problems.push(`reasons/${index}/field is longer than ${MAX_REASON_FIELD_LENGTH} characters`);
      ok = false;
    }
    if (typeof rule !== 'string' || !allowedRules.includes(rule)) {
      problems.push(`reasons/${index}/rule is not allowed for ${code}`);
      ok = false;
    }
    copies.push(frozenCopy<ErrorReason>(read));
  }
  return ok ? { ok: true, reasons: Object.freeze(copies) } : { ok: false };
}

function check(error: unknown): CheckErrorOutcome {
  if (!isPlainObject(error)) return { ok: false, problems: ['error is not a plain object'] };
  const read = readExactData(error, ERROR_KEYS);
  if (read === undefined) return { ok: false, problems: ['error fields differ from the catalog shape'] };
  const { values } = read;
  const code = values['code'];
  if (!isErrorCode(code)) return { ok: false, problems: ['code is not in the catalog'] };
  const entry = ERROR_CATALOG[code];
  const problems: string[] = [];
  if (values['category'] !== entry.category) problems.push('category differs from the catalog');
  if (values['safe_message'] !== entry.safe_message) problems.push('safe_message differs from the catalog');
  if (values['recovery'] !== entry.recovery) problems.push('recovery differs from the catalog');

  const retry = values['retry_after_ms'];
  const rule = entry.retry_after;
  if (retry === null) {
    if (rule.policy === 'required') problems.push('retry_after_ms is required');
  } else if (rule.policy === 'forbidden') {
    problems.push('retry_after_ms is not allowed');
  } else if (typeof retry !== 'number' || !Number.isSafeInteger(retry) || retry < rule.min_ms || retry > rule.max_ms) {
    problems.push(`retry_after_ms must be an integer from ${rule.min_ms} to ${rule.max_ms}`);
  }

  const reasons = readReasons(values['reasons'], code, entry.reason_rules, problems);
  if (problems.length > 0 || !reasons.ok) return { ok: false, problems };
  // The copy holds exactly the values that were checked, in the order the caller listed them.
  return { ok: true, error: frozenCopy<ModelError>(read, { key: 'reasons', value: reasons.reasons }) };
}

/**
 * Compares an error body with the fixed catalog exactly: the field set, code, category, message
 * text, recovery, the retry-after rule and the allowed reason rules. Used again at verification,
 * so a model or a tampered store cannot rewrite a recovery.
 *
 * Only plain data passes: plain objects (prototype `Object.prototype` or `null`) and real arrays
 * without holes, whose every property is an own, enumerable data property (no getters or setters)
 * of the catalog shape. Each value is read exactly once, and on success `error` is a deeply frozen
 * copy built from those values, never the caller's object: later reads of `error` see what was
 * checked. Never throws: a value that cannot be read (for example a Proxy whose traps throw) is
 * reported as `{ ok: false, problems: ['error could not be read'] }`.
 */
export function checkError(error: unknown): CheckErrorOutcome {
  try {
    return check(error);
  } catch {
    return { ok: false, problems: ['error could not be read'] };
  }
}
