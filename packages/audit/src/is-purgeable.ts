import type { IdempotencyRecord } from './idempotency-store.js';

/**
 * Retention rule shared by every store: a record may go once nothing can depend on it any more.
 * `completed` and `released` records that finished at or before `cutoff`, and `claimed` records
 * whose lease ran out at or before `cutoff` (the handler never started). `started` and `unknown`
 * records are never purged: they still need a result or a status query.
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
