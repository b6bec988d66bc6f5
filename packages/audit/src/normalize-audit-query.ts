import type { AuditPageRequest, AuditQuery } from './audit-log.js';
import { checkIdentifier, checkNonNegativeInteger } from './check-store-input.js';
import { StoreInputError } from './store-input-error.js';

/** Most entries one `query` page may return. */
export const MAX_AUDIT_PAGE_LIMIT = 1000;

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const KIND = /^[a-z][a-z0-9_]{0,63}$/;

/** A checked query: times are in the stored `recorded_at` form, so stores compare them as text. */
export interface NormalizedAuditQuery {
  kind: string | null;
  call_id: string | null;
  operation_id: string | null;
  idempotency_key: string | null;
  /** Inclusive, `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  from_time: string | null;
  /** Exclusive, `YYYY-MM-DDTHH:MM:SS.sssZ`. */
  to_time: string | null;
  limit: number;
  /** Return entries with a sequence above this (0 = from the start). */
  after: number;
}

const FILTER_KEYS: ReadonlySet<string> = new Set(['kind', 'call_id', 'operation_id', 'idempotency_key', 'from_time', 'to_time']);
const PAGE_KEYS: ReadonlySet<string> = new Set(['limit', 'after']);

/** Throws unless every own key of `value` is one of `known`: a misspelt filter must not match everything. */
function refuseUnknownKeys(field: string, value: object, known: ReadonlySet<string>): void {
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string' || !known.has(key)) {
      throw new StoreInputError(field, `has an unknown member (known: ${[...known].join(', ')})`);
    }
  }
}

/**
 * Checks a query and page (throws StoreInputError on a caller bug): an unknown member of either is
 * refused (`{ idempotencyKey }` would otherwise ask for the whole log), and every member is read
 * once, so the value checked is the value kept.
 */
export function normalizeAuditQuery(filter: AuditQuery, page: AuditPageRequest): NormalizedAuditQuery {
  if (typeof filter !== 'object' || filter === null) throw new StoreInputError('filter', 'must be an object');
  if (typeof page !== 'object' || page === null) throw new StoreInputError('page', 'must be an object');
  refuseUnknownKeys('filter', filter, FILTER_KEYS);
  refuseUnknownKeys('page', page, PAGE_KEYS);
  const { kind, call_id, operation_id, idempotency_key, from_time, to_time } = filter;
  const { limit, after } = page;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE_LIMIT) {
    throw new StoreInputError('page.limit', `must be an integer from 1 to ${MAX_AUDIT_PAGE_LIMIT}`);
  }
  if (kind !== undefined && (typeof kind !== 'string' || !KIND.test(kind))) {
    throw new StoreInputError('kind', 'must match ^[a-z][a-z0-9_]{0,63}$');
  }
  return {
    kind: kind ?? null,
    call_id: call_id === undefined ? null : checkIdentifier('call_id', call_id),
    operation_id: operation_id === undefined ? null : checkIdentifier('operation_id', operation_id),
    idempotency_key: idempotency_key === undefined ? null : checkIdentifier('idempotency_key', idempotency_key),
    from_time: from_time === undefined ? null : normalizeTime('from_time', from_time),
    to_time: to_time === undefined ? null : normalizeTime('to_time', to_time),
    limit,
    after: after === undefined ? 0 : checkNonNegativeInteger('page.after', after),
  };
}

/** True when a stored row matches the filter part of a normalized query (for in-memory stores). */
export function matchesAuditQuery(
  row: { sequence: number; kind: string; call_id: string | null; operation_id: string | null; idempotency_key: string | null; recorded_at: string },
  query: NormalizedAuditQuery,
): boolean {
  return (
    row.sequence > query.after &&
    (query.kind === null || row.kind === query.kind) &&
    (query.call_id === null || row.call_id === query.call_id) &&
    (query.operation_id === null || row.operation_id === query.operation_id) &&
    (query.idempotency_key === null || row.idempotency_key === query.idempotency_key) &&
    (query.from_time === null || row.recorded_at >= query.from_time) &&
    (query.to_time === null || row.recorded_at < query.to_time)
  );
}

// Stored times have millisecond precision, so a bound with finer digits rounds up: for integer
// milliseconds t, `t >= 0.4 ms` and `t < 0.4 ms` mean the same as against 1 ms.
function normalizeTime(field: string, value: unknown): string {
  const match = typeof value === 'string' ? RFC3339.exec(value) : null;
  if (match === null) throw new StoreInputError(field, 'must be an RFC 3339 date-time');
  const [, seconds = '', fraction = '', zone = ''] = match;
  if (!isRealDateTime(seconds, zone)) throw new StoreInputError(field, 'must be an RFC 3339 date-time');
  const milliseconds = fraction.padEnd(3, '0').slice(0, 3);
  const roundUp = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  const epochMs = Date.parse(`${seconds}.${milliseconds}${zone}`);
  if (Number.isNaN(epochMs)) throw new StoreInputError(field, 'must be an RFC 3339 date-time');
  const rounded = new Date(epochMs + roundUp);
  if (rounded.getUTCFullYear() > 9999 || rounded.getUTCFullYear() < 1970) {
    throw new StoreInputError(field, 'must fall between 1970 and 9999');
  }
  return rounded.toISOString();
}

// Date.parse rolls 2026-02-30 over to March and accepts 24:00; a query bound must be a real time.
function isRealDateTime(dateTime: string, zone: string): boolean {
  const [year, month, day, hour, minute, second] = dateTime.split(/[-T:]/).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const zoneOk = zone === 'Z' || (Number(zone.slice(1, 3)) <= 23 && Number(zone.slice(4, 6)) <= 59);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && zoneOk;
}
