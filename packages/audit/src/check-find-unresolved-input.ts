import { checkPositiveInteger, checkSha256Hex } from './check-store-input.js';
import type { CheckedFindUnresolvedInput, FindCompletedInput, FindUnresolvedInput } from './idempotency-store.js';
import { MAX_FIND_UNRESOLVED_LIMIT } from './is-unresolved.js';
import { StoreInputError } from './store-input-error.js';

/**
 * Checks and copies a `findUnresolved` input (throws StoreInputError on a caller bug): a whole
 * `limit` from 1 to `MAX_FIND_UNRESOLVED_LIMIT` and exactly one 64-hex digest, `request_sha256` or
 * `intent_sha256` (a field set to `undefined` counts as absent). The copy holds only the digest
 * that was given: `{ request_sha256, limit }` or `{ intent_sha256, limit }`.
 */
export function checkFindUnresolvedInput(input: unknown): CheckedFindUnresolvedInput {
  if (typeof input !== 'object' || input === null) throw new StoreInputError('input', 'must be an object');
  const { request_sha256, intent_sha256, limit } = input as Partial<Record<keyof FindUnresolvedInput, unknown>>;
  const checkedLimit = checkLookupLimit(limit);
  if (intent_sha256 === undefined) {
    if (request_sha256 === undefined) {
      throw new StoreInputError('request_sha256', 'exactly one of request_sha256 and intent_sha256 must be given');
    }
    return { request_sha256: checkSha256Hex('request_sha256', request_sha256), limit: checkedLimit };
  }
  if (request_sha256 !== undefined) {
    throw new StoreInputError('intent_sha256', 'exactly one of request_sha256 and intent_sha256 must be given, not both');
  }
  return { intent_sha256: checkSha256Hex('intent_sha256', intent_sha256), limit: checkedLimit };
}

/**
 * Checks and copies a `findCompleted` input (throws StoreInputError on a caller bug): a 64-hex
 * `intent_sha256` and a whole `limit` from 1 to `MAX_FIND_UNRESOLVED_LIMIT`.
 */
export function checkFindCompletedInput(input: unknown): FindCompletedInput {
  if (typeof input !== 'object' || input === null) throw new StoreInputError('input', 'must be an object');
  const { intent_sha256, limit } = input as Partial<Record<keyof FindCompletedInput, unknown>>;
  return { intent_sha256: checkSha256Hex('intent_sha256', intent_sha256), limit: checkLookupLimit(limit) };
}

function checkLookupLimit(limit: unknown): number {
  const checked = checkPositiveInteger('limit', limit);
  if (checked > MAX_FIND_UNRESOLVED_LIMIT) throw new StoreInputError('limit', `must be at most ${MAX_FIND_UNRESOLVED_LIMIT}`);
  return checked;
}
