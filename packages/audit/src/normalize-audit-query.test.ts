import { describe, expect, it } from 'vitest';
import { matchesAuditQuery, normalizeAuditQuery } from './normalize-audit-query.js';
import { StoreInputError } from './store-input-error.js';

const rejects = (run: () => unknown, field: string) => {
  try {
    run();
  } catch (error) {
    expect(StoreInputError.isInstance(error)).toBe(true);
    expect((error as StoreInputError).field).toBe(field);
    return;
  }
  throw new Error(`expected a StoreInputError for ${field}`);
};

describe('normalizeAuditQuery', () => {
  it('turns RFC 3339 bounds into the stored recorded_at form', () => {
    const query = normalizeAuditQuery(
      { from_time: '2026-07-19T02:00:00+02:00', to_time: '2026-07-19T00:00:01.5Z' },
      { limit: 10 },
    );
    expect(query).toEqual({
      kind: null,
      call_id: null,
      operation_id: null,
      idempotency_key: null,
      from_time: '2026-07-19T00:00:00.000Z',
      to_time: '2026-07-19T00:00:01.500Z',
      limit: 10,
      after: 0,
    });
  });

  it('rounds sub-millisecond bounds up, which keeps both bounds exact for millisecond timestamps', () => {
    expect(normalizeAuditQuery({ from_time: '2026-07-19T00:00:00.000001Z' }, { limit: 1 }).from_time).toBe('2026-07-19T00:00:00.001Z');
    expect(normalizeAuditQuery({ to_time: '2026-07-19T00:00:00.123000000Z' }, { limit: 1 }).to_time).toBe('2026-07-19T00:00:00.123Z');
    expect(normalizeAuditQuery({ to_time: '2028-02-29T23:59:59.999Z' }, { limit: 1 }).to_time).toBe('2028-02-29T23:59:59.999Z');
  });

  it('rejects what is not an RFC 3339 date-time, and bad pages', () => {
    rejects(() => normalizeAuditQuery({ from_time: '2026-07-19' }, { limit: 1 }), 'from_time');
    rejects(() => normalizeAuditQuery({ to_time: '2026-07-19T00:00:00' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({ to_time: '2026-13-40T00:00:00Z' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({ to_time: '2026-02-29T00:00:00Z' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({ to_time: '2026-07-19T24:00:00Z' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({ to_time: '2026-07-19T00:00:00+24:00' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({ to_time: '1969-12-31T23:59:59Z' }, { limit: 1 }), 'to_time');
    rejects(() => normalizeAuditQuery({}, { limit: 1.5 }), 'page.limit');
    rejects(() => normalizeAuditQuery({}, { limit: 1, after: -1 }), 'page.after');
    rejects(() => normalizeAuditQuery({ call_id: '' }, { limit: 1 }), 'call_id');
    rejects(() => normalizeAuditQuery({ kind: 'DROP TABLE' }, { limit: 1 }), 'kind');
  });

  it('refuses an unknown member of the filter or the page, which would otherwise widen the query', () => {
    rejects(() => normalizeAuditQuery({ idempotencyKey: 'k' } as never, { limit: 1 }), 'filter');
    rejects(() => normalizeAuditQuery({ [Symbol('kind')]: 'x' } as never, { limit: 1 }), 'filter');
    rejects(() => normalizeAuditQuery({}, { limit: 1, cursor: 5 } as never), 'page');
  });

  it('reads each member once: a getter cannot pass the check with one value and be kept with another', () => {
    let reads = 0;
    const filter = {
      get kind() {
        reads += 1;
        return reads === 1 ? 'sealed_call' : { toString: () => 'sealed_call' };
      },
    };
    expect(normalizeAuditQuery(filter as never, { limit: 1 }).kind).toBe('sealed_call');
    expect(reads).toBe(1);
  });
});

describe('matchesAuditQuery', () => {
  const row = {
    sequence: 5,
    kind: 'sealed_call',
    call_id: 'call-1',
    operation_id: 'op-1',
    idempotency_key: null,
    recorded_at: '2026-07-19T00:00:05.000Z',
  };
  it('applies every filter and the cursor', () => {
    const query = (filter: Parameters<typeof normalizeAuditQuery>[0], after?: number) =>
      normalizeAuditQuery(filter, after === undefined ? { limit: 1 } : { limit: 1, after });
    expect(matchesAuditQuery(row, query({ call_id: 'call-1', kind: 'sealed_call' }))).toBe(true);
    expect(matchesAuditQuery(row, query({ idempotency_key: 'k' }))).toBe(false);
    expect(matchesAuditQuery(row, query({ from_time: '2026-07-19T00:00:05Z' }))).toBe(true);
    expect(matchesAuditQuery(row, query({ to_time: '2026-07-19T00:00:05Z' }))).toBe(false);
    expect(matchesAuditQuery(row, query({}, 5))).toBe(false);
    expect(matchesAuditQuery(row, query({}, 4))).toBe(true);
  });
});
