import { checkPositiveInteger, checkSha256Hex } from './check-store-input.js';
import type { FindUnresolvedInput } from './idempotency-store.js';
import { MAX_FIND_UNRESOLVED_LIMIT } from './is-unresolved.js';
import { StoreInputError } from './store-input-error.js';

/**
 * Checks and copies a `findUnresolved` input (throws StoreInputError on a caller bug): a 64-hex
 * request digest and a whole `limit` from 1 to `MAX_FIND_UNRESOLVED_LIMIT`.
 */
export function checkFindUnresolvedInput(input: unknown): FindUnresolvedInput {
  if (typeof input !== 'object' || input === null) throw new StoreInputError('input', 'must be an object');
  const { request_sha256, limit } = input as Partial<FindUnresolvedInput>;
  const checkedLimit = checkPositiveInteger('limit', limit);
  if (checkedLimit > MAX_FIND_UNRESOLVED_LIMIT) throw new StoreInputError('limit', `must be at most ${MAX_FIND_UNRESOLVED_LIMIT}`);
  return { request_sha256: checkSha256Hex('request_sha256', request_sha256), limit: checkedLimit };
}
