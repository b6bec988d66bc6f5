// purgeExpired in batches and verifyChain page by page: the long calls let the event loop, this
// connection's other calls and other connections' writes run between their steps, and give the
// answers the one-statement versions gave. The batch and page sizes are lowered (module state of
// this test file only: vitest runs each file in its own module graph) to cross many boundaries
// with a few records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuditChainVerifier,
  auditGenesisHash,
  ManualClock,
  prepareAuditEntry,
  sealAuditEntry,
  type AuditHead,
  type ChainVerification,
  type StoredAuditRow,
} from '@toolseal/audit';
import { recordIn, storeConformanceCases, type StoreFactory } from '@toolseal/audit/conformance';
import { createDigester, type Digester } from '@toolseal/digests';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dropAppendOnlyTriggers, sqliteTamper } from './__fixtures__/sqlite-tamper.js';
import { openSqliteStores } from './open-sqlite-stores.js';
import { SQLITE_BATCH_LIMITS } from './sqlite-batch-limits.js';
import { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-sqlite-batches-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const nextPath = () => join(directory, `store-${(files += 1)}.db`);
const T0 = Date.UTC(2026, 6, 19);
const REQUEST = 'a'.repeat(64);
const DEFAULT_LIMITS = { ...SQLITE_BATCH_LIMITS };

/** Sets the batch and page sizes for one test; `afterEach` puts the defaults back. */
function setLimits(limits: Partial<typeof SQLITE_BATCH_LIMITS>): void {
  Object.assign(SQLITE_BATCH_LIMITS, limits);
}
afterEach(() => {
  Object.assign(SQLITE_BATCH_LIMITS, DEFAULT_LIMITS);
  vi.restoreAllMocks();
});

const statementPrototype = () =>
  Object.getPrototypeOf(new BetterSqlite3(':memory:').prepare('SELECT 1')) as Statement<unknown[], unknown>;

/** Counts the runs (`run`) or reads (`iterate`) of statements whose SQL contains `marker`. */
function countStatements(method: 'run' | 'iterate', marker: string) {
  const prototype = statementPrototype();
  const original = prototype[method] as (...parameters: unknown[]) => unknown;
  const calls: { inTransaction: boolean }[] = [];
  vi.spyOn(prototype, method).mockImplementation(function (this: Statement<unknown[], unknown>, ...parameters: unknown[]) {
    if (this.source.includes(marker)) calls.push({ inTransaction: this.database.inTransaction });
    return original.apply(this, parameters) as never;
  } as never);
  return calls;
}

const countRecords = (database: Database) => database.prepare('SELECT count(*) FROM idempotency_records').pluck().get() as number;

/** `count` records released at T0, purgeable once the clock has moved past T0 + 1 (their token). */
async function releasedRecords(store: Parameters<typeof recordIn>[0], count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) await recordIn(store, `key-${index}`, 'released');
}

describe('SQLite stores: purgeExpired in batches', () => {
  it('deletes at most purgeBatchRecords per DELETE transaction, and the event loop and this connection\'s writes run between batches', async () => {
    setLimits({ purgeBatchRecords: 3 });
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path: ':memory:', clock });
    try {
      await releasedRecords(stores.idempotencyStore, 10);
      clock.advance(1_000);
      const deletes = countStatements('run', 'DELETE FROM idempotency_records');
      const seenBetweenBatches: number[] = [];
      const purging = stores.idempotencyStore.purgeExpired({ older_than_ms: 0 });
      // Queued after the purge started: it runs before the purge ends only if the purge yields.
      setImmediate(() => seenBetweenBatches.push(countRecords(stores.database)));
      const claim = stores.idempotencyStore.claim({ key: 'key-new', request_sha256: REQUEST, owner: 'host-b', lease_ms: 60_000 });
      expect(await purging).toBe(10);
      expect(await claim).toMatchObject({ kind: 'claimed', took_over: false });
      // 3 + 3 + 3 + 1: four statements, each in a transaction of its own (which checks the files
      // under the write lock first); the event loop ran between them (below).
      expect(deletes).toEqual(Array.from({ length: 4 }, () => ({ inTransaction: true })));
      expect(seenBetweenBatches).toHaveLength(1);
      // The callback saw a purge under way: some records gone, some left (the new claim among them).
      expect(seenBetweenBatches[0]).toBeGreaterThan(1);
      expect(seenBetweenBatches[0]).toBeLessThan(11);
      expect(countRecords(stores.database)).toBe(1);
      expect((await stores.idempotencyStore.get('key-new'))?.state).toBe('claimed');
    } finally {
      stores.close();
    }
  });

  it('stops after a batch that deleted fewer than purgeBatchRecords, also an exact multiple (then one empty batch)', async () => {
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path: ':memory:', clock });
    try {
      await releasedRecords(stores.idempotencyStore, 6);
      await recordIn(stores.idempotencyStore, 'key-started', 'started');
      clock.advance(1_000);
      setLimits({ purgeBatchRecords: 3 });
      const deletes = countStatements('run', 'DELETE FROM idempotency_records');
      expect(await stores.idempotencyStore.purgeExpired({ older_than_ms: 0 })).toBe(6);
      expect(deletes).toHaveLength(3);
      expect(await stores.idempotencyStore.purgeExpired({ older_than_ms: 0 })).toBe(0);
      expect(deletes).toHaveLength(4);
      expect((await stores.idempotencyStore.get('key-started'))?.state).toBe('started');
    } finally {
      stores.close();
    }
  });

  it('releases the write lock between batches: another connection writes in between, without waiting', async () => {
    setLimits({ purgeBatchRecords: 2 });
    const path = nextPath();
    const clock = new ManualClock(T0);
    const purger = openSqliteStores({ path, clock });
    // lockTimeoutMs 0, busyTimeoutMs 0: a write meeting the lock fails at once.
    const other = openSqliteStores({ path, clock, lockTimeoutMs: 0, busyTimeoutMs: 0 });
    try {
      await releasedRecords(purger.idempotencyStore, 8);
      clock.advance(1_000);
      let between: Promise<unknown> | undefined;
      let leftWhenOtherWrote = -1;
      const purging = purger.idempotencyStore.purgeExpired({ older_than_ms: 0 });
      setImmediate(() => {
        leftWhenOtherWrote = countRecords(other.database);
        between = other.idempotencyStore.claim({ key: 'key-other', request_sha256: REQUEST, owner: 'host-b', lease_ms: 60_000 });
      });
      expect(await purging).toBe(8);
      expect(await between).toMatchObject({ kind: 'claimed', took_over: false });
      expect(leftWhenOtherWrote).toBeGreaterThan(0);
      expect(leftWhenOtherWrote).toBeLessThan(8);
      expect((await purger.idempotencyStore.get('key-other'))?.owner).toBe('host-b');
    } finally {
      purger.close();
      other.close();
    }
  });

  it('a batch that cannot get the lock rejects with SqliteLockTimeoutError; earlier batches stay deleted, and a later purge finishes', async () => {
    setLimits({ purgeBatchRecords: 2 });
    const path = nextPath();
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path, clock, lockTimeoutMs: 0, busyTimeoutMs: 0 });
    const holder = new BetterSqlite3(path);
    try {
      await releasedRecords(stores.idempotencyStore, 6);
      clock.advance(1_000);
      const purging = stores.idempotencyStore.purgeExpired({ older_than_ms: 0 });
      setImmediate(() => holder.exec('BEGIN IMMEDIATE'));
      const error = await purging.then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(SqliteLockTimeoutError.isInstance(error) && error.operation).toBe('purgeExpired');
      holder.exec('ROLLBACK');
      const left = countRecords(stores.database);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(6);
      expect(left % 2).toBe(0);
      expect(await stores.idempotencyStore.purgeExpired({ older_than_ms: 0 })).toBe(left);
    } finally {
      holder.close();
      stores.close();
    }
  });

  it('closing the stores during a purge ends it at the next batch', async () => {
    setLimits({ purgeBatchRecords: 2 });
    const path = nextPath();
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path, clock });
    await releasedRecords(stores.idempotencyStore, 6);
    clock.advance(1_000);
    const purging = stores.idempotencyStore.purgeExpired({ older_than_ms: 0 });
    setImmediate(() => stores.close());
    await expect(purging).rejects.toThrow(/not open/);
    const reopened = openSqliteStores({ path, clock });
    try {
      expect(countRecords(reopened.database)).toBe(4);
    } finally {
      reopened.close();
    }
  });
});

/** The verification as the single-transaction implementation made it: the oracle for the paged one. */
function verifyInOneRead(database: Database, digester: Digester, options: { from?: number; anchor?: AuditHead; logId?: string } = {}): ChainVerification {
  const from = options.from ?? 1;
  return database.transaction(() => {
    const head = database.prepare<[], { sequence: number; entry_hash: string }>('SELECT sequence, entry_hash FROM audit_head WHERE id = 1').get();
    if (head === undefined) throw new Error('audit_head row is missing');
    const verifier = new AuditChainVerifier({
      digester,
      from,
      previousHash:
        from === 1
          ? auditGenesisHash(digester, options.logId)
          : (database.prepare<[number], { entry_hash: string }>('SELECT entry_hash FROM audit_log WHERE sequence = ?').get(from - 1)?.entry_hash ??
            null),
      storedHead: head.sequence === 0 ? null : head,
      ...(options.anchor === undefined ? {} : { anchor: options.anchor }),
    });
    const rows = database
      .prepare<[number], StoredAuditRow>(
        'SELECT sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical FROM audit_log WHERE sequence >= ? ORDER BY sequence',
      )
      .iterate(from);
    for (const row of rows) {
      if (!verifier.push(row)) break;
    }
    return verifier.finish();
  }).deferred();
}

const appendInput = (index: number) => ({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });

describe('SQLite stores: verifyChain page by page', () => {
  it('reads at most verifyPageRows rows per read, and the event loop runs between pages', async () => {
    const stores = openSqliteStores({ path: ':memory:' });
    try {
      for (let index = 1; index <= 9; index += 1) await stores.auditLog.append(appendInput(index));
      setLimits({ verifyPageRows: 2 });
      const pages = countStatements('iterate', 'FROM audit_log');
      let callbackRan = false;
      let callbackRanFirst = false;
      const verifying = stores.auditLog.verifyChain().then((result) => {
        callbackRanFirst = callbackRan;
        return result;
      });
      setImmediate(() => {
        callbackRan = true;
      });
      const head = await stores.auditLog.head();
      expect(await verifying).toEqual({ ok: true, checked: 9, head, anchored: false });
      expect(callbackRanFirst).toBe(true);
      // 2 + 2 + 2 + 2 + 1 rows: five reads, the first inside the read transaction that read the head.
      expect(pages.map((page) => page.inTransaction)).toEqual([true, false, false, false, false]);
    } finally {
      stores.close();
    }
  });

  it('ends a page early once its canonical text reaches verifyPageTextUnits (at least one row a page)', async () => {
    const stores = openSqliteStores({ path: ':memory:' });
    try {
      for (let index = 1; index <= 4; index += 1) await stores.auditLog.append(appendInput(index));
      setLimits({ verifyPageRows: 100, verifyPageTextUnits: 1 });
      const pages = countStatements('iterate', 'FROM audit_log');
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
      expect(pages).toHaveLength(4);
    } finally {
      stores.close();
    }
  });

  it('verifies up to the last entry stored when it began; entries appended meanwhile (this or another connection) wait for the next verification', async () => {
    setLimits({ verifyPageRows: 2 });
    const path = nextPath();
    const digester = createDigester({ key: new Uint8Array(32).fill(3) });
    const stores = openSqliteStores({ path, digester });
    const other = openSqliteStores({ path, digester });
    try {
      for (let index = 1; index <= 6; index += 1) await stores.auditLog.append(appendInput(index));
      const headAtStart = await stores.auditLog.head();
      const order: string[] = [];
      const verifying = stores.auditLog.verifyChain().then((result) => {
        order.push('verified');
        return result;
      });
      const appending = Promise.all([stores.auditLog.append(appendInput(7)), other.auditLog.append(appendInput(8))]).then(() => order.push('appended'));
      expect(await verifying).toEqual({ ok: true, checked: 6, head: headAtStart, anchored: false });
      await appending;
      expect(order).toEqual(['appended', 'verified']);
      expect(await stores.auditLog.verifyChain()).toEqual({ ok: true, checked: 8, head: await other.auditLog.head(), anchored: false });
    } finally {
      stores.close();
      other.close();
    }
  });

  it('closing the stores during a verification rejects it at the next page', async () => {
    setLimits({ verifyPageRows: 2 });
    const stores = openSqliteStores({ path: ':memory:' });
    for (let index = 1; index <= 6; index += 1) await stores.auditLog.append(appendInput(index));
    const verifying = stores.auditLog.verifyChain();
    setImmediate(() => stores.close());
    await expect(verifying).rejects.toThrow(/not open/);
  });

  describe('gives the verdicts of one read at every page size, tampering at and across page boundaries included', () => {
    const N = 8;
    const key = new Uint8Array(32).fill(5);
    const attacker = createDigester({ key: new Uint8Array(32).fill(6) });
    const COLUMNS = 'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';

    function forged(sequence: number, previousHash: string, digester: Digester): StoredAuditRow {
      const prepared = prepareAuditEntry({ kind: 'approval', call_id: 'call-forged', operation_id: null, idempotency_key: null, body: { forged: true } });
      return sealAuditEntry(prepared, { sequence, recorded_at: '2026-07-19T00:00:00.000Z', previous_hash: previousHash }, digester);
    }

    type Tamper = (database: Database, at: number, digester: Digester) => void;
    /** Raw-SQL tamperings of a chain of N entries, each at position `at` (1..N). */
    const tamperings = {
      'edit a body': (database, at) =>
        database.exec(`UPDATE audit_log SET canonical = replace(canonical, '"index":${at}', '"index":99') WHERE sequence = ${at}`),
      'edit a query column': (database, at) => database.exec(`UPDATE audit_log SET call_id = 'hidden' WHERE sequence = ${at}`),
      'rewrite a previous_hash': (database, at) => database.exec(`UPDATE audit_log SET previous_hash = '${'e'.repeat(64)}' WHERE sequence = ${at}`),
      'delete an entry': (database, at) => database.exec(`DELETE FROM audit_log WHERE sequence = ${at}`),
      'delete and renumber': (database, at) =>
        database.exec(`DELETE FROM audit_log WHERE sequence = ${at}; UPDATE audit_log SET sequence = sequence - 1 WHERE sequence > ${at};`),
      'swap with the next entry': (database, at) =>
        database.exec(`
          UPDATE audit_log SET sequence = -1 WHERE sequence = ${at};
          UPDATE audit_log SET sequence = ${at} WHERE sequence = ${at + 1};
          UPDATE audit_log SET sequence = ${at + 1} WHERE sequence = -1;`),
      'move an entry to the end': (database, at) => database.exec(`UPDATE audit_log SET sequence = ${N + 5} WHERE sequence = ${at}`),
      'insert a forged entry (wrong key)': (database, at) => insertShifted(database, at, attacker),
      'insert a self-consistent forged entry': (database, at, digester) => insertShifted(database, at, digester),
      'replay an earlier entry': (database, at) =>
        database.exec(`
          UPDATE audit_log SET sequence = sequence + 100 WHERE sequence >= ${at};
          UPDATE audit_log SET sequence = sequence - 99 WHERE sequence >= 100;
          INSERT INTO audit_log SELECT ${at}, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical
            FROM audit_log WHERE sequence = ${Math.max(at - 1, 1)};`),
      'truncate the tail': (database, at) => database.exec(`DELETE FROM audit_log WHERE sequence >= ${at}`),
      'rewind the head': (database, at) =>
        database.exec(`UPDATE audit_head SET sequence = ${at - 1}, entry_hash = coalesce((SELECT entry_hash FROM audit_log WHERE sequence = ${at - 1}), '${'0'.repeat(64)}')`),
      'rewrite the head hash': (database, at) => database.exec(`UPDATE audit_head SET sequence = ${at}, entry_hash = '${'d'.repeat(64)}'`),
      'append behind the head': (database, at, digester) => {
        const last = database.prepare<[], { entry_hash: string }>(`SELECT entry_hash FROM audit_log WHERE sequence = ${N}`).get();
        insertRow(database, forged(N + at, last?.entry_hash ?? '', digester));
      },
      'a row far beyond 2^53': (database, at) =>
        database
          .prepare(`INSERT INTO audit_log (${COLUMNS}) SELECT ?, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical FROM audit_log WHERE sequence = ?`)
          .run(at % 2 === 0 ? 9_223_372_036_854_775_807n : 2n ** 60n + BigInt(at), at),
    } satisfies Record<string, Tamper>;

    function insertRow(database: Database, row: StoredAuditRow): void {
      database.prepare(`INSERT INTO audit_log (${COLUMNS}) VALUES (@sequence, @recorded_at, @kind, @call_id, @operation_id, @idempotency_key, @previous_hash, @entry_hash, @canonical)`).run(row);
    }

    function insertShifted(database: Database, at: number, digester: Digester): void {
      const previous = database.prepare<[], { entry_hash: string }>(`SELECT entry_hash FROM audit_log WHERE sequence = ${at - 1}`).get();
      database.exec(`UPDATE audit_log SET sequence = sequence + 100 WHERE sequence >= ${at}; UPDATE audit_log SET sequence = sequence - 99 WHERE sequence >= 100;`);
      insertRow(database, forged(at, previous?.entry_hash ?? auditGenesisHash(digester, undefined), digester));
    }

    const pageSizes: Partial<typeof SQLITE_BATCH_LIMITS>[] = [
      { verifyPageRows: 1 },
      { verifyPageRows: 2 },
      { verifyPageRows: 3 },
      { verifyPageRows: 4 },
      { verifyPageRows: 7 },
      { verifyPageRows: 100, verifyPageTextUnits: 150 },
      { ...DEFAULT_LIMITS },
    ];

    for (const [name, tamper] of Object.entries(tamperings)) {
      it(name, async () => {
        for (const keyed of [true, false]) {
          for (let at = 1; at <= N; at += 1) {
            const digester = keyed ? createDigester({ key }) : createDigester();
            const stores = openSqliteStores({ path: ':memory:', digester });
            try {
              const entries: AuditHead[] = [];
              for (let index = 1; index <= N; index += 1) entries.push(await stores.auditLog.append(appendInput(index)));
              dropAppendOnlyTriggers(stores.database);
              tamper(stores.database, at, digester);
              const anchorAt = (index: number) => ({ sequence: index, entry_hash: entries[index - 1]?.entry_hash ?? '' });
              const optionSets = [{}, { anchor: anchorAt(N) }, { from: 3 }, { from: 4, anchor: anchorAt(3) }, { from: N + 1, anchor: anchorAt(N) }];
              for (const options of optionSets) {
                const expected = verifyInOneRead(stores.database, digester, options);
                for (const limits of pageSizes) {
                  setLimits(limits);
                  expect(await stores.auditLog.verifyChain(options), `${keyed ? 'keyed' : 'unkeyed'}, at ${at}, ${JSON.stringify({ options, limits })}`).toEqual(
                    expected,
                  );
                }
                setLimits(DEFAULT_LIMITS);
              }
            } finally {
              stores.close();
            }
          }
        }
      });
    }

    it('names the same position when the tampered entry is the last or the first of a page', async () => {
      setLimits({ verifyPageRows: 3 });
      // Pages of three rows: rows 1-3, 4-6, 7-9.
      const cases: [keyof typeof tamperings, number, Partial<ChainVerification>][] = [
        ['edit a body', 3, { position: 3, problem: 'edited', detail: 'entry_hash_mismatch' }],
        ['edit a body', 4, { position: 4, problem: 'edited', detail: 'entry_hash_mismatch' }],
        ['edit a query column', 6, { position: 6, problem: 'edited', detail: 'column_mismatch' }],
        ['rewrite a previous_hash', 7, { position: 7, problem: 'broken_link', detail: 'previous_hash_mismatch' }],
        ['delete an entry', 3, { position: 3, problem: 'deleted', detail: 'missing' }],
        ['delete an entry', 4, { position: 4, problem: 'deleted', detail: 'missing' }],
        // Entry 4 at row 3 (the end of the first page), entry 3 at row 4 (the start of the second).
        ['swap with the next entry', 3, { position: 3, problem: 'reordered', detail: 'entry_out_of_order' }],
        // Entry 1 moved past the end: the scan for it runs through every later page.
        ['move an entry to the end', 1, { position: 1, problem: 'reordered', detail: 'entry_out_of_order' }],
        // A forged entry at row 3 is told from an edited one by the row after it, on the next page.
        ['insert a forged entry (wrong key)', 3, { position: 3, problem: 'inserted', detail: 'forged_entry' }],
        ['insert a self-consistent forged entry', 3, { position: 3, problem: 'inserted', detail: 'forked' }],
        ['replay an earlier entry', 4, { position: 4, problem: 'inserted', detail: 'sequence_repeated' }],
        ['truncate the tail', 4, { position: 4, problem: 'deleted', detail: 'truncated' }],
        ['rewind the head', 7, { position: 7, problem: 'inserted', detail: 'beyond_head' }],
        ['append behind the head', 1, { position: 9, problem: 'inserted', detail: 'beyond_head' }],
        ['a row far beyond 2^53', 3, { position: 9, problem: 'inserted', detail: 'sequence_repeated' }],
      ];
      for (const [name, at, expected] of cases) {
        const tamper: Tamper = tamperings[name];
        const digester = createDigester({ key });
        const stores = openSqliteStores({ path: ':memory:', digester });
        try {
          for (let index = 1; index <= N; index += 1) await stores.auditLog.append(appendInput(index));
          dropAppendOnlyTriggers(stores.database);
          tamper(stores.database, at, digester);
          expect(await stores.auditLog.verifyChain(), `${name} at ${at}`).toMatchObject({ ok: false, ...expected });
        } finally {
          stores.close();
        }
      }
    });
  });
});

describe('SQLite stores: conformance with one-record batches and one-row pages', () => {
  beforeEach(() => setLimits({ purgeBatchRecords: 1, verifyPageRows: 1 }));
  const factory: StoreFactory = async ({ clock, digester, logId }) => {
    const stores = openSqliteStores({ path: ':memory:', clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, tamper: sqliteTamper(stores.database), close: async () => stores.close() };
  };
  for (const testCase of storeConformanceCases(factory)) {
    if (/^(retention|verifyChain|tamper|log identity|concurrency: concurrent appends)/.test(testCase.name)) it(testCase.name, testCase.run);
  }
});
