import type { ModelError } from '@toolseal/contracts';
import { GUARD_RULES, makeError } from '@toolseal/errors';

/** The rules the guard itself reports; each is an `INVALID_ARGUMENTS` reason rule in the catalog. */
export { GUARD_RULES };

/** One of `GUARD_RULES`. */
export type GuardRule = (typeof GUARD_RULES)[number];

/** Why the guard refused a value: the first rule broken, and where. */
export interface GuardViolation {
  /** A guard rule (`GUARD_RULES`), which is also an `INVALID_ARGUMENTS` reason rule. */
  rule: string;
  /**
   * JSON Pointer to the offending location, cut short at the first segment that is not a plain
   * name (`[A-Za-z0-9_]{1,64}`) or index, and at 16 segments, so it is always a valid
   * `ErrorReason.field`. Key rules (`duplicate_key`, `forbidden_key`, `max_object_keys`, and
   * `lone_surrogate` or `max_string_length` found in a key) point at the object, never at the key.
   * The path still names the plain-name keys leading to the violation, which the input chose: cut
   * it to the contract's declared fields (`createDeclaredFields`) before the model reads it.
   */
  path: string;
}

/** The guard's result: the checked value, or the first violation. */
export type GuardOutcome<T> = { ok: true; value: T } | { ok: false; violation: GuardViolation };

/**
 * The catalogued `INVALID_ARGUMENTS` error for a guard violation, with one field-level reason, its
 * field the violation's path as it is (see `GuardViolation.path`: cut it to declared fields first
 * when the input may name keys the contract does not know).
 */
export function guardViolationToError(violation: GuardViolation): ModelError {
  return makeError('INVALID_ARGUMENTS', { reasons: [{ field: violation.path, rule: violation.rule }] });
}
