import type { IdempotencyRecord } from './idempotency-store.js';

/**
 * Retention rule shared by every store: a record may go once nothing can depend on it any more.
 * `completed` and `released` records that finished at or before `cutoff`, and `claimed` records
 * whose lease ran out at or before `cutoff` (the handler never started). `started` and `unknown`
 * records are never purged: they still need a result or a status query.
 *
 * The fencing token plays no part: the store's token floor (the highest token of any record it
 * deleted; `planIdempotencyTransition`) keeps a key's next record above every token a purged one
 * handed out, whatever the clock does. (Before the floor, a record also waited until its token was
 * at or below `cutoff`; with the floor that only delayed retention, for a whole store when one
 * purge raised the floor far ahead of the clock.)
 */
export function isPurgeable(record: IdempotencyRecord, cutoff: number): boolean {
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
