import type { IdempotencyRecord } from './idempotency-store.js';

/**
 * Retention rule shared by every store: a record may go once nothing can depend on it any more.
 * `completed` and `released` records that finished at or before `cutoff`, and `claimed` records
 * whose lease ran out at or before `cutoff` (the handler never started). `started` and `unknown`
 * records are never purged: they still need a result or a status query.
 *
 * In every case the record's fencing token must also be at or below `cutoff`: a key's next record
 * starts at the clock reading plus one (`planIdempotencyTransition`), so it then starts above every
 * token the purged record ever handed out, and a stale owner's late write can never match it. A
 * record's token only runs ahead of the clock when it was claimed more often than milliseconds
 * passed (claim, release, claim... within one millisecond); such a record waits until the clock
 * has passed its token.
 */
export function isPurgeable(record: IdempotencyRecord, cutoff: number): boolean {
  if (record.fencing_token > cutoff) return false;
  switch (record.state) {
    case 'completed':
    case 'released':
      return record.updated_at <= cutoff;
    case 'claimed':
      return record.lease_expires_at <= cutoff;
    case 'started':
    case 'unknown':
      return false;
  }
}
