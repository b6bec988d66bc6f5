import type { IdempotencyRecord } from './idempotency-store.js';

/** The largest `limit` `findUnresolved` and `findCompleted` accept. */
export const MAX_FIND_UNRESOLVED_LIMIT = 100;

/**
 * Whether a write may be running or may have run under `record` without a known outcome, at `now`
 * (epoch ms of the injected clock): `started` (whatever its lease: an expired one only waits for a
 * claim to turn it `unknown`), `unknown`, or `claimed` while its lease is live (its owner may start
 * any moment). `completed` and `released` records, and claims whose lease ran out, are resolved:
 * nothing more can happen under them. The rule of `findUnresolved`, shared by every store.
 */
export function isUnresolved(record: IdempotencyRecord, now: number): boolean {
  switch (record.state) {
    case 'started':
    case 'unknown':
      return true;
    case 'claimed':
      return now < record.lease_expires_at;
    case 'completed':
    case 'released':
      return false;
  }
}

/**
 * The first `limit` of `records`, oldest first: by `created_at`, then by `key` in UTF-16 code-unit
 * order (JavaScript's string comparison). The order of `findUnresolved` and `findCompleted`, for
 * stores whose database orders text otherwise. Sorts `records` in place and returns it, or a
 * copy of its first `limit` when it is longer.
 */
export function oldestFirst(records: IdempotencyRecord[], limit: number): IdempotencyRecord[] {
  records.sort((a, b) => a.created_at - b.created_at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return records.length > limit ? records.slice(0, limit) : records;
}
