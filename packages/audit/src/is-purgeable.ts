import type { IdempotencyRecord } from './idempotency-store.js';

/**
 * Retention rule shared by every store: a record may go once nothing can depend on it any more.
 * `completed` and `released` records that finished at or before `cutoff`, and `claimed` records
 * whose lease ran out at or before `cutoff` (the handler never started). `started` and `unknown`
 * records are never purged: they still need a result or a status query.
 *
 * In every case the record's fencing token must also be at or below `cutoff`. A record's token
 * runs ahead of the clock when it was claimed more often than milliseconds passed (claim, release,
 * claim... within one millisecond), or when it was claimed above the store's token floor after a
 * clock step back; such a record waits until the clock has passed its token. What keeps a key's
 * next record above every token a purged one handed out is the store's token floor (the highest
 * token of any record it deleted; `planIdempotencyTransition`), whatever the clock does; this
 * condition, which did that job before the floor existed, keeps retention as it was.
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
