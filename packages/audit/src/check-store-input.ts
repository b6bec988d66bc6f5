import { isSha256Hex, type Digester } from '@toolseal/digests';
import { isWellFormedText } from '@toolseal/guard';
import type { Clock } from './clock.js';
import { StoreInputError } from './store-input-error.js';


/** Longest idempotency key, call id or operation id a store accepts (characters). */
export const MAX_IDENTIFIER_LENGTH = 256;

/** Throws unless `value` is a string every store can hold byte-exactly (no NUL, no lone surrogate). */
export function checkStorableText(field: string, value: unknown, maxLength: number, minLength = 0): string {
  if (typeof value !== 'string') throw new StoreInputError(field, 'must be a string');
  if (value.length < minLength) throw new StoreInputError(field, `must have at least ${minLength} characters`);
  if (value.length > maxLength) throw new StoreInputError(field, `must have at most ${maxLength} characters`);
  // PostgreSQL `text` cannot hold NUL, and an unpaired surrogate has no UTF-8 form: either would
  // be stored as something other than what the caller passed.
  if (value.includes('\u0000') || !isWellFormedText(value)) {
    throw new StoreInputError(field, 'must not contain NUL or unpaired surrogates');
  }
  return value;
}

/** Throws unless `value` is a non-empty storable identifier of at most MAX_IDENTIFIER_LENGTH characters. */
export function checkIdentifier(field: string, value: unknown): string {
  return checkStorableText(field, value, MAX_IDENTIFIER_LENGTH, 1);
}

/** Throws unless `value` is `null` or a storable identifier. */
export function checkOptionalIdentifier(field: string, value: unknown): string | null {
  return value === null ? null : checkIdentifier(field, value);
}

/** Throws unless `value` is a 64-character lowercase hexadecimal SHA-256. */
export function checkSha256Hex(field: string, value: unknown): string {
  if (!isSha256Hex(value)) {
    throw new StoreInputError(field, 'must be 64 lowercase hexadecimal characters');
  }
  return value;
}

/** Throws unless `value` is a positive safe integer. */
export function checkPositiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new StoreInputError(field, 'must be a positive safe integer');
  }
  return value;
}

/** Throws unless `value` is a non-negative safe integer. */
export function checkNonNegativeInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StoreInputError(field, 'must be a non-negative safe integer');
  }
  return value;
}

/** Longest lease a store grants (ms): a day (a dispatcher's own leases are at most about two hours: a deadline plus its lease margin). */
export const MAX_LEASE_MS = 86_400_000;

/**
 * A store option or input that is a whole number from `min` to `max`: `value`, or `fallback` when
 * it is `undefined` and a fallback is given; otherwise StoreInputError naming `field`, saying the
 * range as `what` ("an integer", "a whole number of milliseconds") and, when given, `why`.
 */
export function checkIntegerInRange(
  field: string,
  value: unknown,
  range: { readonly min: number; readonly max: number; readonly fallback?: number; readonly what?: string; readonly why?: string },
): number {
  if (value === undefined && range.fallback !== undefined) return range.fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
    const why = range.why === undefined ? '' : ` (${range.why})`;
    throw new StoreInputError(field, `must be ${range.what ?? 'an integer'} from ${range.min} to ${range.max}${why}`);
  }
  return value;
}

/** Throws unless `value` is a lease from 1 ms to `MAX_LEASE_MS`: a longer one could outlast every clock reading a store accepts, and the record could never be taken over or purged. */
export function checkLeaseMs(value: unknown): number {
  return checkIntegerInRange('lease_ms', value, { min: 1, max: MAX_LEASE_MS });
}

/** Smallest `maxBodyBytes` a store can be opened with: 4 KiB, room for any dispatcher's minimal entry body. */
export const MIN_AUDIT_BODY_BYTES_LIMIT = 4 * 1024;
/** Largest `maxBodyBytes` a store can be opened with: 64 MiB. */
export const MAX_AUDIT_BODY_BYTES_LIMIT = 64 * 1024 * 1024;

/**
 * The `maxBodyBytes` option of a store, checked when the store is opened (`undefined`: the
 * default): an integer from `MIN_AUDIT_BODY_BYTES_LIMIT` to `MAX_AUDIT_BODY_BYTES_LIMIT`, or
 * StoreInputError, so a malformed setting fails at start-up rather than as a refusal of every
 * append (a dispatcher's minimal body, appended when a full one is refused, must always fit).
 */
export function checkMaxBodyBytes(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return checkIntegerInRange('maxBodyBytes', value, { min: MIN_AUDIT_BODY_BYTES_LIMIT, max: MAX_AUDIT_BODY_BYTES_LIMIT });
}

/**
 * The `older_than_ms` of a `purgeExpired` input, read once: throws `StoreInputError` for an input
 * that is not an object (as every other store method does) or a value that is not a non-negative
 * safe integer.
 */
export function checkPurgeInput(input: unknown): number {
  if (typeof input !== 'object' || input === null) throw new StoreInputError('input', 'must be an object');
  return checkNonNegativeInteger('older_than_ms', (input as { older_than_ms?: unknown }).older_than_ms);
}

/**
 * Throws `StoreInputError` (its `field` the option's name) for a member of a store's `options`
 * whose name is not in `known`, before anything is opened: a misspelt option (`busyTimeoutMS`,
 * `logID`) would otherwise leave the default in force without a word.
 */
export function checkOptionNames(options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new StoreInputError(name, `is not an option (known options: ${known.join(', ')})`);
    }
  }
}

/**
 * A store's `clock` option: an object with a `now()` method (`systemClock`, `ManualClock`), or
 * StoreInputError naming `field`, so a malformed clock fails when the store is opened rather than
 * at its first lease or append ("clock.now is not a function"). `now()` is not called here.
 */
export function checkClock(value: unknown, field = 'clock'): Clock {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || typeof (value as Partial<Clock>).now !== 'function') {
    throw new StoreInputError(field, 'must be a clock: an object with a now() method returning epoch milliseconds (systemClock, ManualClock)');
  }
  return value as Clock;
}

/** A store's checked `digester` option, and the `keyed` value read (once) and checked from it. */
export interface CheckedDigester {
  readonly digester: Digester;
  /** The digester's `keyed`, as read by the check: report this one (`auditLog.keyed`), never a second read. */
  readonly keyed: boolean;
}

/**
 * A store's `digester` option: what the audit chain needs of a `Digester` (`digestTagged` and
 * `digestText` functions, `keyed` a boolean), or StoreInputError naming `field`, so a malformed
 * digester (`{}`) fails when the store is opened rather than at the first append. Returns the
 * digester with the `keyed` value it checked: `keyed` is read once, so a getter cannot pass the
 * check as a boolean and then report something else as the store's `auditLog.keyed`.
 */
export function checkDigester(value: unknown, field = 'digester'): CheckedDigester {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) {
    throw new StoreInputError(field, 'must be a digester (createDigester of @toolseal/digests)');
  }
  const members = value as Partial<Record<keyof Digester, unknown>>;
  for (const name of ['digestTagged', 'digestText'] as const) {
    if (typeof members[name] !== 'function') {
      throw new StoreInputError(field, `must be a digester (createDigester of @toolseal/digests): its ${name} is not a function`);
    }
  }
  const keyed: unknown = members.keyed;
  if (typeof keyed !== 'boolean') {
    throw new StoreInputError(field, 'must be a digester (createDigester of @toolseal/digests): its keyed is not a boolean');
  }
  return Object.freeze({ digester: value as Digester, keyed });
}
