import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ManualClock,
  prepareAuditEntry,
  sealAuditEntry,
  StoreInputError,
  type ClaimOutcome,
  type IdempotencyRecord,
  type IdempotencyStore,
} from '@toolseal/audit';
import { checkIntentDigestMigration, findCompletedConformanceCases, findUnresolvedConformanceCases, recordIn, storeConformanceCases, type StoreFactory } from '@toolseal/audit/conformance';
import { createDigester, type Digester } from '@toolseal/digests';
import BetterSqlite3, { type Statement } from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { dropAppendOnlyTriggers, SCHEMA_TRIGGERS, sqliteTamper } from './__fixtures__/sqlite-tamper.js';
import { openSqliteStores, type SqliteStoresOptions } from './open-sqlite-stores.js';
import { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { SQLITE_FENCING_TOKEN_MAX, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, SQLITE_TOKEN_FLOOR_MAX } from './sqlite-migrations.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-sqlite-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const nextPath = () => join(directory, `store-${(files += 1)}.db`);
const T0 = Date.UTC(2026, 6, 19);
const REQUEST = 'a'.repeat(64);

describe('SQLite stores (WAL file): conformance', () => {
  const factory: StoreFactory = async ({ clock, digester, logId }) => {
    const stores = openSqliteStores({ path: nextPath(), clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, tamper: sqliteTamper(stores.database), close: async () => stores.close() };
  };
  for (const testCase of [...storeConformanceCases(factory), ...findUnresolvedConformanceCases(factory), ...findCompletedConformanceCases(factory)]) it(testCase.name, testCase.run);
});

describe('SQLite stores (:memory:): conformance', () => {
  const factory: StoreFactory = async ({ clock, digester, logId }) => {
    const stores = openSqliteStores({ path: ':memory:', clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, tamper: sqliteTamper(stores.database), close: async () => stores.close() };
  };
  for (const testCase of [...storeConformanceCases(factory), ...findUnresolvedConformanceCases(factory), ...findCompletedConformanceCases(factory)]) it(testCase.name, testCase.run);
});


describe('SQLite stores: findUnresolved', () => {
  // Ordering by key in UTF-16 code units (not SQLite's UTF-8 byte order) is a conformance case.
  it('finds records another connection wrote, and refuses malformed inputs with StoreInputError', async () => {
    const path = nextPath();
    const clock = new ManualClock(T0);
    const reader = openSqliteStores({ path, clock });
    const writer = openSqliteStores({ path, clock });
    try {
      await recordIn(writer.idempotencyStore, 'key-started', 'started');
      clock.advance(1);
      await recordIn(writer.idempotencyStore, 'key-unknown', 'unknown');
      const found = await reader.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
      expect(found).toEqual([await writer.idempotencyStore.get('key-started'), await writer.idempotencyStore.get('key-unknown')]);
      expect(found?.map((record) => record.state)).toEqual(['started', 'unknown']);
      for (const input of [{ request_sha256: 'A'.repeat(64), limit: 1 }, { request_sha256: REQUEST, limit: 101 }, { request_sha256: REQUEST }, undefined]) {
        let thrown: unknown;
        try {
          await reader.idempotencyStore.findUnresolved?.(input as never);
        } catch (error) {
          thrown = error;
        }
        expect(StoreInputError.isInstance(thrown), JSON.stringify(input)).toBe(true);
      }
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('is a read: answers while another connection holds the write lock', async () => {
    const path = nextPath();
    const stores = openSqliteStores({ path, lockTimeoutMs: 0 });
    await recordIn(stores.idempotencyStore, 'key-started', 'started');
    const holder = new BetterSqlite3(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      // lockTimeoutMs 0: a call that had to wait would fail with SqliteLockTimeoutError.
      const found = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 1 });
      expect(found?.map((record) => record.key)).toEqual(['key-started']);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      stores.close();
    }
  });

  it('retries SQLITE_BUSY through the lock waiter, and gives up after lockTimeoutMs with SqliteLockTimeoutError', async () => {
    // Long enough for three retries on a loaded machine (60 ms once gave up after two attempts,
    // 117 ms, while turbo ran other packages' tests beside this one); the give-up below waits it out.
    const stores = openSqliteStores({ path: nextPath(), lockTimeoutMs: 1_500 });
    await recordIn(stores.idempotencyStore, 'key-started', 'started');
    // A WAL reader meets SQLITE_BUSY only in rare moments (another connection recovering the WAL):
    // played here by the statement's first answers.
    const statementPrototype = Object.getPrototypeOf(stores.database.prepare('SELECT 1')) as Statement<unknown[], unknown>;
    const all = statementPrototype.all;
    let busyAnswers = 0;
    const spy = vi.spyOn(statementPrototype, 'all').mockImplementation(function (this: Statement<unknown[], unknown>, ...parameters: unknown[]) {
      if (this.source.includes('unresolved') && busyAnswers > 0) {
        busyAnswers -= 1;
        throw new BetterSqlite3.SqliteError('database is locked', 'SQLITE_BUSY');
      }
      return all.apply(this, parameters);
    });
    try {
      busyAnswers = 3;
      const found = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 1 });
      expect(found?.map((record) => record.key)).toEqual(['key-started']);
      expect(busyAnswers).toBe(0);
      busyAnswers = Number.POSITIVE_INFINITY;
      let thrown: unknown;
      try {
        await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 1 });
      } catch (error) {
        thrown = error;
      }
      expect(SqliteLockTimeoutError.isInstance(thrown) && thrown.operation).toBe('findUnresolved');
    } finally {
      spy.mockRestore();
      stores.close();
    }
  });
});

describe('SQLite stores: migrations', () => {
  const INTENT = '1'.repeat(64);
  const INTENT_OLD = '2'.repeat(64);

  /** A file as version `version` of this package left it, with a started record in it. */
  function fileAtVersion(version: number): string {
    const path = nextPath();
    const old = new BetterSqlite3(path);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version <= version)) {
      for (const statement of migration.statements) old.exec(statement);
      old.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, '2026-07-01T00:00:00.000Z');
    }
    old
      .prepare(
        `INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
         VALUES ('key-old', ?, 'started', 'host-old', 7, ?, ?, ?)`,
      )
      .run(REQUEST, T0 + 60_000, T0 - 5, T0);
    // Records under intent keys: an unresolved one gets its digest from the key; a resolved one and
    // a key that only looks like one do not.
    const insert = old.prepare(
      `INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       VALUES (?, ?, ?, 'host-old', 1, 0, ?, ?)`,
    );
    insert.run(`intent-${INTENT_OLD}`, '4'.repeat(64), 'unknown', T0 - 4, T0);
    insert.run(`intent-${'3'.repeat(64)}`, '4'.repeat(64), 'released', T0 - 3, T0);
    insert.run(`intent-${'G'.repeat(64)}`, '4'.repeat(64), 'unknown', T0 - 2, T0);
    old.close();
    return path;
  }

  const queryPlan = (stores: ReturnType<typeof openSqliteStores>, column: string) =>
    (
      stores.database.prepare(`EXPLAIN QUERY PLAN SELECT key FROM idempotency_records WHERE ${column} = ? ORDER BY created_at`).all(REQUEST) as {
        detail: string;
      }[]
    )
      .map((step) => step.detail)
      .join('\n');

  for (const version of [1, 2]) {
    it(`migrates a file created at version ${version} to the intent column and index, keeping its records readable and findable`, async () => {
      const path = fileAtVersion(version);
      const clock = new ManualClock(T0);
      const stores = openSqliteStores({ path, clock });
      try {
        expect(SQLITE_SCHEMA_VERSION).toBe(6);
        expect(stores.schemaVersion).toBe(6);
        expect(stores.database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3, 4, 5, 6]);
        expect(queryPlan(stores, 'request_sha256')).toMatch(/INDEX idempotency_records_request \(request_sha256=\?\)/);
        expect(queryPlan(stores, 'intent_sha256')).toMatch(/INDEX idempotency_records_intent \(intent_sha256=\?\)/);
        await checkIntentDigestMigration(stores.idempotencyStore, { request: REQUEST, intent: INTENT, intentOld: INTENT_OLD, now: T0 });
      } finally {
        stores.close();
      }
      // Reopening applies nothing again.
      const reopened = openSqliteStores({ path, clock });
      expect(reopened.database.prepare('SELECT count(*) FROM schema_version').pluck().get()).toBe(6);
      expect((await reopened.idempotencyStore.get('key-new'))?.intent_sha256).toBe(INTENT);
      reopened.close();
    });
  }

  it('adds the triggers against INSERT OR REPLACE to a file at version 3: its chain keeps verifying, appends continue after it', async () => {
    const path = nextPath();
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const old = new BetterSqlite3(path);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version <= 3)) {
      for (const statement of migration.statements) old.exec(statement);
      old.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, '2026-07-01T00:00:00.000Z');
    }
    // Three entries as version 3 of this package appended them: the row, then the head.
    let previous = '0'.repeat(64);
    for (let sequence = 1; sequence <= 3; sequence += 1) {
      const prepared = prepareAuditEntry({ kind: 'sealed_call', call_id: `call-${sequence}`, operation_id: null, idempotency_key: null, body: { sequence } });
      const row = sealAuditEntry(prepared, { sequence, recorded_at: '2026-07-01T00:00:00.000Z', previous_hash: previous }, digester);
      old
        .prepare(
          `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (@sequence, @recorded_at, @kind, @call_id, @operation_id, @idempotency_key, @previous_hash, @entry_hash, @canonical)`,
        )
        .run(row);
      old.prepare('UPDATE audit_head SET sequence = ?, entry_hash = ? WHERE id = 1').run(sequence, row.entry_hash);
      previous = row.entry_hash;
    }
    // Version 3 let REPLACE through: the reason for version 4.
    expect(() => old.prepare('INSERT OR REPLACE INTO audit_head (id, sequence, entry_hash) VALUES (1, 3, ?)').run(previous)).not.toThrow();
    old.close();

    const stores = openSqliteStores({ path, digester });
    try {
      expect(stores.schemaVersion).toBe(6);
      expect(stores.database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(triggerNames(stores.database)).toEqual(SCHEMA_TRIGGERS);
      expect(() => stores.database.prepare('INSERT OR REPLACE INTO audit_head (id, sequence, entry_hash) VALUES (1, 3, ?)').run(previous)).toThrow(
        /only follows appends/,
      );
      expect(() => stores.database.exec('INSERT OR REPLACE INTO audit_log SELECT * FROM audit_log WHERE sequence = 2')).toThrow(/append-only|only at the head/);
      expect(await stores.auditLog.verifyChain()).toEqual({ ok: true, checked: 3, head: { sequence: 3, entry_hash: previous }, anchored: false });
      expect((await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-4', operation_id: null, idempotency_key: null, body: { sequence: 4 } })).previous_hash).toBe(
        previous,
      );
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
    } finally {
      stores.close();
    }
  });

  it('migrates a version 4 file with records to the token floor: seeded from the clock at the migration, raised by every deletion, records kept', async () => {
    // The review: a record purged before the upgrade, whose tokens the floor cannot know; its key
    // is claimed again after the clock stepped back. The seed (the clock reading when the file was
    // upgraded) is above every token a purge before it could have deleted.
    const path = fileAtVersion(4);
    const old = new BetterSqlite3(path);
    const insert = old.prepare(
      `INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       VALUES (?, ?, 'released', 'host-old', ?, ?, ?, ?)`,
    );
    insert.run('key-released', REQUEST, T0 - 999, T0 - 998, T0 - 999, T0 - 998);
    // Version 4 purged this one (token T0 - 500, at or below its cutoff), keeping nothing of it.
    insert.run('key-purged-before', REQUEST, T0 - 500, T0 - 499, T0 - 500, T0 - 499);
    old.exec("DELETE FROM idempotency_records WHERE key = 'key-purged-before'");
    expect(triggerNames(old)).not.toContain('idempotency_records_raise_token_floor');
    old.close();

    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path, clock });
    try {
      expect(stores.schemaVersion).toBe(6);
      expect(stores.database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(triggerNames(stores.database)).toEqual(SCHEMA_TRIGGERS);
      const floor = () => stores.database.prepare('SELECT id, token FROM idempotency_token_floor').all();
      expect(floor()).toEqual([{ id: 1, token: T0 }]);
      // The records of version 4 read back as they were.
      expect(await stores.idempotencyStore.get('key-old')).toMatchObject({ state: 'started', fencing_token: 7 });
      expect(await stores.idempotencyStore.get('key-released')).toMatchObject({ state: 'released', fencing_token: T0 - 999 });
      // A claim of a released record adds one to its token (the floor is for keys without a record).
      expect(await stores.idempotencyStore.claim({ key: 'key-released', request_sha256: REQUEST, owner: 'host-new', lease_ms: 1_000 })).toMatchObject({
        kind: 'claimed',
        fencing_token: T0 - 998,
      });
      // The clock steps back past the purged record's time: the key's next record starts above the seed.
      clock.set(T0 - 600);
      expect(await stores.idempotencyStore.claim({ key: 'key-purged-before', request_sha256: REQUEST, owner: 'host-new', lease_ms: 1_000 })).toEqual({
        kind: 'claimed',
        fencing_token: T0 + 1,
        lease_expires_at: T0 + 400,
        took_over: false,
      });
      expect(await stores.idempotencyStore.release({ key: 'key-purged-before', fencing_token: T0 - 500, handler_declared_not_started: true })).toEqual({
        ok: false,
        reason: 'fenced',
        state: 'claimed',
      });
      // Every deletion raises it, a purge batch and a raw DELETE alike; nothing lowers it.
      clock.set(T0 + 10_000);
      // The two claims above, and the released record fileAtVersion left under an intent key (token 1).
      expect(await stores.idempotencyStore.purgeExpired({ older_than_ms: 0 })).toBe(3);
      expect(floor()).toEqual([{ id: 1, token: T0 + 1 }]);
      stores.database.exec("DELETE FROM idempotency_records WHERE key = 'key-old'");
      expect(floor()).toEqual([{ id: 1, token: T0 + 1 }]);
      expect(() => stores.database.exec('UPDATE idempotency_token_floor SET token = 0')).toThrow(/only rises/);
      expect(() => stores.database.exec('DELETE FROM idempotency_token_floor')).toThrow(/only rises/);
      expect(() => stores.database.exec('INSERT OR REPLACE INTO idempotency_token_floor (id, token) VALUES (1, 0)')).toThrow(/only rises/);
      // A process of version 4 still running on the file plans a first token from its clock alone:
      // behind the floor, its insert is refused instead of repeating a purged token.
      expect(() =>
        stores.database
          .prepare(
            `INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
             VALUES ('key-purged-before', ?, 'claimed', 'host-v4', ?, ?, ?, ?)`,
          )
          .run(REQUEST, T0 + 1, T0 + 1_000, T0, T0),
      ).toThrow(/at or below the token floor/);
      expect(await stores.idempotencyStore.get('key-purged-before')).toBeUndefined();
    } finally {
      stores.close();
    }
    // Reopening applies nothing and seeds nothing again.
    const reopened = openSqliteStores({ path, clock: new ManualClock(T0 + 86_400_000) });
    expect(reopened.database.prepare('SELECT token FROM idempotency_token_floor').pluck().get()).toBe(T0 + 1);
    reopened.close();
  });

  it('starts a new file with a token floor of 0, and migrates a version 4 file with migrateSqlite alone (no clock reading) to a floor of 0, refusing a reading above 8.64e15', () => {
    const fresh = openSqliteStores({ path: nextPath(), clock: new ManualClock(T0) });
    expect(fresh.database.prepare('SELECT token FROM idempotency_token_floor').pluck().get()).toBe(0);
    fresh.close();
    const database = new BetterSqlite3(fileAtVersion(4));
    try {
      expect(() => migrateSqlite(database, '2026-07-19T00:00:00.000Z', -1)).toThrow(RangeError);
      // Above the largest clock reading (8.64e15): it would seed the floor past the bound version 6
      // sets, and every first claim would then fail. Refused before anything is written.
      for (const reading of [8_640_000_000_000_001, Number.MAX_SAFE_INTEGER - 1]) {
        expect(() => migrateSqlite(database, '2026-07-19T00:00:00.000Z', reading)).toThrow(RangeError);
      }
      expect(database.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(4);
      expect(migrateSqlite(database, '2026-07-19T00:00:00.000Z')).toBe(6);
      expect(database.prepare('SELECT token FROM idempotency_token_floor').pluck().get()).toBe(0);
    } finally {
      database.close();
    }
  });

  it('migrates a version 5 file with records and a raised floor to the token bounds (version 6), changing no row', async () => {
    const path = fileAtVersion(5);
    const old = new BetterSqlite3(path);
    // Version 5 purged a record: the floor is its token.
    old
      .prepare(
        `INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
         VALUES ('key-purged', ?, 'released', 'host-old', ?, 0, ?, ?)`,
      )
      .run(REQUEST, T0 - 10, T0 - 20, T0 - 10);
    old.exec("DELETE FROM idempotency_records WHERE key = 'key-purged'");
    expect(old.prepare('SELECT token FROM idempotency_token_floor').pluck().get()).toBe(T0 - 10);
    // Version 5 let a forged floor through: the reason for version 6.
    expect(triggerNames(old)).not.toContain('idempotency_token_floor_bounded');
    const recordsBefore = old.prepare('SELECT * FROM idempotency_records ORDER BY key').all();
    old.close();

    const clock = new ManualClock(T0 - 100);
    const stores = openSqliteStores({ path, clock });
    try {
      expect(stores.schemaVersion).toBe(6);
      expect(stores.database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(triggerNames(stores.database)).toEqual(SCHEMA_TRIGGERS);
      // No row changed: the floor is not seeded again, the records read back as they were.
      expect(stores.database.prepare('SELECT token FROM idempotency_token_floor').pluck().get()).toBe(T0 - 10);
      expect(stores.database.prepare('SELECT * FROM idempotency_records ORDER BY key').all()).toEqual(recordsBefore);
      expect(await stores.idempotencyStore.get('key-old')).toMatchObject({ state: 'started', fencing_token: 7 });
      // The purged key's next record starts above the floor (the clock is behind it), and forged floors are refused now.
      expect(await stores.idempotencyStore.claim({ key: 'key-purged', request_sha256: REQUEST, owner: 'host-new', lease_ms: 1_000 })).toMatchObject({
        kind: 'claimed',
        fencing_token: T0 - 9,
      });
      expect(() => stores.database.exec('UPDATE idempotency_token_floor SET token = 9007199254740994')).toThrow(/stays at most 8640000000000000/);
    } finally {
      stores.close();
    }
    // Reopening applies nothing again.
    const reopened = openSqliteStores({ path, clock });
    expect(reopened.database.prepare('SELECT count(*) FROM schema_version').pluck().get()).toBe(6);
    reopened.close();
  });

  it('refuses a file written by a newer version of this package', () => {
    const path = nextPath();
    openSqliteStores({ path }).close();
    const newer = new BetterSqlite3(path);
    newer.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SQLITE_SCHEMA_VERSION + 1, 'later');
    newer.close();
    expect(() => openSqliteStores({ path })).toThrow(/newer than this package/);
  });
});

describe('SQLite stores: connection settings', () => {
  it('uses WAL, the busy timeout and synchronous FULL by default', () => {
    const stores = openSqliteStores({ path: nextPath(), busyTimeoutMs: 250 });
    try {
      expect(stores.database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(stores.database.pragma('busy_timeout', { simple: true })).toBe(250);
      expect(stores.database.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      stores.close();
    }
    const normal = openSqliteStores({ path: nextPath(), synchronous: 'normal' });
    // The default synchronous wait of one attempt is short: 25 ms, not the whole lock timeout.
    expect(normal.database.pragma('busy_timeout', { simple: true })).toBe(25);
    expect(normal.database.pragma('synchronous', { simple: true })).toBe(1);
    normal.close();
  });

  it('refuses lock timeouts out of range, naming the option, before the file is created', () => {
    const cases: [Partial<SqliteStoresOptions>, string][] = [
      [{ busyTimeoutMs: 1001 }, 'busyTimeoutMs'],
      [{ busyTimeoutMs: 10_000 }, 'busyTimeoutMs'],
      [{ busyTimeoutMs: -1 }, 'busyTimeoutMs'],
      [{ busyTimeoutMs: 2.5 }, 'busyTimeoutMs'],
      [{ busyTimeoutMs: Number.NaN }, 'busyTimeoutMs'],
      [{ lockTimeoutMs: -1 }, 'lockTimeoutMs'],
      [{ lockTimeoutMs: 3_600_001 }, 'lockTimeoutMs'],
      [{ lockTimeoutMs: Number.POSITIVE_INFINITY }, 'lockTimeoutMs'],
      [{ synchronous: 'off' as 'full' }, 'synchronous'],
      [{ maxBodyBytes: Number.NaN }, 'maxBodyBytes'],
      [{ maxBodyBytes: -1 }, 'maxBodyBytes'],
      [{ maxBodyBytes: 1.5 }, 'maxBodyBytes'],
      [{ maxBodyBytes: Number.POSITIVE_INFINITY }, 'maxBodyBytes'],
      [{ maxBodyBytes: '1048576' as unknown as number }, 'maxBodyBytes'],
    ];
    for (const [options, field] of cases) {
      const path = nextPath();
      let thrown: unknown;
      try {
        openSqliteStores({ path, ...options });
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown) && thrown.field, JSON.stringify(options)).toBe(field);
      expect(existsSync(path)).toBe(false);
    }
    expect(() => openSqliteStores({ path: nextPath(), busyTimeoutMs: 10_000 })).toThrow(
      'busyTimeoutMs: must be a whole number of milliseconds from 0 to 1000 (one attempt to take a lock blocks the event loop this long; the total wait is lockTimeoutMs)',
    );
    // The bounds themselves are accepted.
    openSqliteStores({ path: nextPath(), busyTimeoutMs: 0, lockTimeoutMs: 0 }).close();
    openSqliteStores({ path: nextPath(), busyTimeoutMs: 1000, lockTimeoutMs: 3_600_000 }).close();
  });

  it('refuses a missing, blank, padded or NUL-bearing path instead of opening a temporary database that vanishes on close', () => {
    for (const path of [undefined, '', ' ', '\t\n', ' :memory: ', ' toolseal.db', 'toolseal\u0000.db', 42]) {
      let thrown: unknown;
      try {
        openSqliteStores({ path } as unknown as SqliteStoresOptions);
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown) && thrown.field, String(path)).toBe('path');
    }
    expect(() => openSqliteStores(null as unknown as SqliteStoresOptions)).toThrow(StoreInputError);
  });

  it('keeps records and the chain across close and reopen', async () => {
    const path = nextPath();
    const clock = new ManualClock(T0);
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const first = openSqliteStores({ path, clock, digester });
    await first.idempotencyStore.claim({ key: 'k', request_sha256: REQUEST, owner: 'a', lease_ms: 1000 });
    const entry = await first.auditLog.append({ kind: 'sealed_call', call_id: 'c', operation_id: null, idempotency_key: 'k', body: { n: 1 } });
    first.close();
    const second = openSqliteStores({ path, clock, digester });
    try {
      expect((await second.idempotencyStore.get('k'))?.state).toBe('claimed');
      expect(await second.auditLog.verifyChain()).toEqual({ ok: true, checked: 1, head: { sequence: 1, entry_hash: entry.entry_hash }, anchored: false });
      // A different key cannot verify the stored chain.
      const other = openSqliteStores({ path, clock, digester: createDigester({ key: new Uint8Array(32).fill(8) }) });
      expect(await other.auditLog.verifyChain()).toMatchObject({ ok: false, position: 1, problem: 'edited' });
      other.close();
    } finally {
      second.close();
    }
  });

  it('keeps a log identity across reopen; opened without it (or with another) the chain fails at entry 1', async () => {
    const path = nextPath();
    const clock = new ManualClock(T0);
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const first = openSqliteStores({ path, clock, digester, logId: 'tenant-cedar' });
    const entry = await first.auditLog.append({ kind: 'sealed_call', call_id: 'c', operation_id: null, idempotency_key: null, body: { n: 1 } });
    first.close();
    const genesisMismatch = { ok: false, position: 1, problem: 'broken_link', detail: 'genesis_mismatch' };
    for (const [logId, expected] of [
      ['tenant-cedar', { ok: true, checked: 1, head: { sequence: 1, entry_hash: entry.entry_hash }, anchored: false }],
      ['tenant-maple', genesisMismatch],
      [undefined, genesisMismatch],
    ] as const) {
      const reopened = openSqliteStores({ path, clock, digester, ...(logId === undefined ? {} : { logId }) });
      try {
        expect(await reopened.auditLog.verifyChain(), String(logId)).toEqual(expected);
      } finally {
        reopened.close();
      }
    }
  });

  it('refuses a malformed log identity before the file is created', () => {
    const path = nextPath();
    let thrown: unknown;
    try {
      openSqliteStores({ path, logId: '' });
    } catch (error) {
      thrown = error;
    }
    expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('logId');
    expect(existsSync(path)).toBe(false);
  });
});

describe('SQLite stores: options (configuration review)', () => {
  /** What `open` throws (`undefined` when it returns). */
  const refusal = (open: () => unknown): unknown => {
    try {
      open();
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('refuses an unknown option, naming it, before the file is created', () => {
    for (const name of ['busyTimeoutMS', 'logID', 'digest', 'connectionString']) {
      const path = nextPath();
      const thrown = refusal(() => openSqliteStores({ path, [name]: 5 } as unknown as SqliteStoresOptions));
      expect(StoreInputError.isInstance(thrown) && thrown.field, name).toBe(name);
      expect(String(thrown)).toContain('is not an option (known options: path, clock, digester, busyTimeoutMs');
      expect(existsSync(path)).toBe(false);
    }
  });

  it('refuses a store file with a second hard link through either name, and opens it again once it has one (review: two processes opening it through two names both won the first claim of a key)', () => {
    const path = nextPath();
    openSqliteStores({ path }).close();
    const link = join(directory, `link-${files}.db`);
    linkSync(path, link);
    const bytes = readFileSync(path);
    for (const name of [path, link]) {
      const thrown = refusal(() => openSqliteStores({ path: name }));
      expect(StoreInputError.isInstance(thrown) && thrown.field, name).toBe('path');
      expect(String(thrown)).toContain('has 2 hard links');
    }
    // Nothing opened: no -wal or -shm file beside either name, and the bytes as they were.
    expect(readdirSync(directory).filter((name) => name.startsWith(`link-${files}.db`) || name.startsWith(`store-${files}.db`)).sort()).toEqual([
      `link-${files}.db`,
      `store-${files}.db`,
    ]);
    expect(readFileSync(path)).toEqual(bytes);
    unlinkSync(link);
    const stores = openSqliteStores({ path });
    expect(stores.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    stores.close();
  });

  it('refuses a missing or empty database beside a -wal holding frames, which may be the only copy of committed records (fault review F1)', async () => {
    // A store file moved away while open: SQLite skips the checkpoint at close, so the started
    // record lives in the -wal alone, which opening the path would delete, freeing the key.
    const path = nextPath();
    const first = openSqliteStores({ path, clock: new ManualClock(T0) });
    const claim = await first.idempotencyStore.claim({ key: 'refund-7', request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 });
    if (claim.kind !== 'claimed') throw new Error('not claimed');
    await first.idempotencyStore.markStarted({ key: 'refund-7', fencing_token: claim.fencing_token, lease_ms: 60_000 });
    renameSync(path, `${path}.moved`);
    first.close();
    const walBytes = statSync(`${path}-wal`).size;
    expect(walBytes).toBeGreaterThan(0);
    for (const empty of [false, true]) {
      if (empty) writeFileSync(path, '');
      const thrown = refusal(() => openSqliteStores({ path }));
      expect(StoreInputError.isInstance(thrown) && thrown.field, `empty file: ${empty}`).toBe('path');
      expect(String(thrown)).toContain(`its -wal file holds ${walBytes} bytes`);
      // Nothing deleted: the -wal is as it was.
      expect(statSync(`${path}-wal`).size).toBe(walBytes);
    }
    // Moved back, the record is there.
    renameSync(`${path}.moved`, path);
    const reopened = openSqliteStores({ path, clock: new ManualClock(T0) });
    expect(await reopened.idempotencyStore.get('refund-7')).toMatchObject({ state: 'started', owner: 'host-a' });
    reopened.close();
  });

  it('refuses every write once its file was moved or replaced, or its -shm deleted, while open, writing nothing (fault review F2: two processes both won a key)', async () => {
    const changes: Array<[string, (path: string) => void]> = [
      ['the -shm deleted', (path) => unlinkSync(`${path}-shm`)],
      ['the file renamed', (path) => renameSync(path, `${path}.moved`)],
      ['the file deleted', (path) => unlinkSync(path)],
    ];
    for (const [label, change] of changes) {
      const path = nextPath();
      const stores = openSqliteStores({ path, clock: new ManualClock(T0) });
      const store = stores.idempotencyStore;
      await store.claim({ key: 'before', request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 });
      await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-1', operation_id: null, idempotency_key: null, body: { n: 1 } });
      change(path);
      const writes: Array<[string, () => Promise<unknown>]> = [
        ['claim', () => store.claim({ key: 'after', request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 })],
        ['append', () => stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-2', operation_id: null, idempotency_key: null, body: { n: 2 } })],
        ['purgeExpired', () => store.purgeExpired({ older_than_ms: 0 })],
      ];
      for (const [name, write] of writes) {
        await expect(write(), `${label}: ${name}`).rejects.toThrow('was moved, deleted or replaced while this store had it open; nothing was written');
      }
      // Reads go on, from what this connection sees: nothing was written.
      expect(await store.get('after'), label).toBeUndefined();
      expect((await stores.auditLog.head())?.sequence, label).toBe(1);
      stores.close();
    }
  });

  it('refuses a path ending with a path separator before anything is created (review: "new.db/" created and migrated new.db, then was refused)', () => {
    const path = nextPath();
    const thrown = refusal(() => openSqliteStores({ path: `${path}/` }));
    expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('path');
    expect(String(thrown)).toContain('ends with a path separator');
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a clock without now() at open, naming the option, instead of "clock.now is not a function"', () => {
    for (const clock of [{}, { now: 5 }, null, 'system']) {
      const path = nextPath();
      const thrown = refusal(() => openSqliteStores({ path, clock } as unknown as SqliteStoresOptions));
      expect(StoreInputError.isInstance(thrown) && thrown.field, JSON.stringify(clock)).toBe('clock');
      expect(existsSync(path)).toBe(false);
    }
  });

  it('refuses a digester without what the chain needs at open, not at the first append', () => {
    const digester = createDigester();
    for (const bad of [{}, null, { ...digester, digestTagged: 1 }, { ...digester, digestText: undefined }, { ...digester, keyed: undefined }]) {
      const path = nextPath();
      const thrown = refusal(() => openSqliteStores({ path, digester: bad } as unknown as SqliteStoresOptions));
      expect(StoreInputError.isInstance(thrown) && thrown.field, JSON.stringify(bad)).toBe('digester');
      expect(existsSync(path)).toBe(false);
    }
  });

  it('reports whether its chain is keyed: unkeyed by default, keyed with a keyed digester', () => {
    const plain = openSqliteStores({ path: nextPath() });
    const keyed = openSqliteStores({ path: nextPath(), digester: createDigester({ key: new Uint8Array(32).fill(7) }) });
    const explicit = openSqliteStores({ path: ':memory:', digester: createDigester() });
    try {
      expect(plain.auditLog.keyed).toBe(false);
      expect(keyed.auditLog.keyed).toBe(true);
      expect(explicit.auditLog.keyed).toBe(false);
    } finally {
      plain.close();
      keyed.close();
      explicit.close();
    }
  });


  it("refuses a path in a directory that does not exist with StoreInputError ('path'), not better-sqlite3's bare TypeError", () => {
    const missing = join(directory, 'no-such-directory', 'toolseal.db');
    const thrown = refusal(() => openSqliteStores({ path: missing }));
    expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('path');
    expect(String(thrown)).toContain('must be in an existing directory');
    expect(existsSync(join(directory, 'no-such-directory'))).toBe(false);
  });

  it("the review: refuses a path under a regular file, a directory, and a device with StoreInputError ('path'), not a raw SqliteError", () => {
    // better-sqlite3 checked only that something named like the directory exists: a regular file
    // passed, and SQLite failed with a bare SQLITE_CANTOPEN ("unable to open database file").
    const plain = join(directory, 'plain-file');
    writeFileSync(plain, 'not a directory');
    const folder = join(directory, 'a-directory');
    mkdirSync(folder);
    const cases: [string, RegExp][] = [
      [join(plain, 'toolseal.db'), /must be in an existing directory: ".*plain-file" is not a directory/],
      [join(plain, 'below', 'toolseal.db'), /must be in an existing directory: ".*below" does not exist/],
      [folder, /"[^"]*a-directory" is a directory, not a database file/],
      ['/dev/null', /"\/dev\/null" is not a regular file/],
    ];
    for (const [path, message] of cases) {
      const thrown = refusal(() => openSqliteStores({ path }));
      expect(StoreInputError.isInstance(thrown) && thrown.field, path).toBe('path');
      expect(String(thrown), path).toMatch(message);
    }
    expect(readFileSync(plain, 'utf8')).toBe('not a directory');
    expect(readdirSync(folder)).toEqual([]);
  });

  it("the review: refuses what SQLite alone finds it cannot open with StoreInputError ('path'), naming SQLite's code, creating nothing", () => {
    // A path longer than SQLite's limit (512 bytes) in a directory that exists and may be written:
    // nothing to see before opening, and SQLite answers SQLITE_CANTOPEN.
    const deep = join(directory, 'd'.repeat(200), 'e'.repeat(200));
    mkdirSync(deep, { recursive: true });
    const path = join(deep, `${'x'.repeat(150)}.db`);
    const thrown = refusal(() => openSqliteStores({ path }));
    expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('path');
    expect(String(thrown)).toContain(`${JSON.stringify(path)} cannot be opened for reading and writing by this process (SQLite SQLITE_CANTOPEN: "unable to open database file")`);
    expect(readdirSync(deep)).toEqual([]);
  });

  it("the review: refuses a SQLite URI ('file:...') with StoreInputError ('path'), opening no file", () => {
    // better-sqlite3's SQLite interprets no URI: `file::memory:` was a file of that name in the
    // working directory, and `file:<missing directory>/...` a bare SQLITE_CANTOPEN.
    const literal = join(process.cwd(), 'file::memory:');
    const uris = ['file::memory:', `file:${join(directory, 'no-such-directory', 'toolseal.db')}`, `file:${join(directory, 'uri.db')}`];
    try {
      for (const path of uris) {
        const thrown = refusal(() => openSqliteStores({ path }));
        expect(StoreInputError.isInstance(thrown) && thrown.field, path).toBe('path');
        expect(String(thrown), path).toContain("must be a filesystem path or ':memory:', not a SQLite URI");
      }
      expect(existsSync(literal)).toBe(false);
    } finally {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${literal}${suffix}`, { force: true });
    }
    // A file whose name begins with 'file:' is still a path, written as one.
    const stores = openSqliteStores({ path: join(directory, 'file:named.db') });
    stores.close();
    expect(existsSync(join(directory, 'file:named.db'))).toBe(true);
  });
});

const AUDIT_COLUMNS = 'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';
const triggerNames = (database: import('better-sqlite3').Database) =>
  database.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all();

describe('SQLite stores: append-only triggers', () => {
  it('refuse raw updates, deletes, inserts away from the head, and head rewinds', async () => {
    const stores = openSqliteStores({ path: nextPath() });
    try {
      for (let index = 0; index < 3; index += 1) {
        await stores.auditLog.append({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { index } });
      }
      const { database } = stores;
      expect(() => database.exec("UPDATE audit_log SET kind = 'approval' WHERE sequence = 2")).toThrow(/append-only/);
      expect(() => database.exec('DELETE FROM audit_log WHERE sequence = 3')).toThrow(/append-only/);
      expect(() =>
        database.exec(
          "INSERT INTO audit_log VALUES (9, '2026-07-19T00:00:00.000Z', 'approval', NULL, NULL, NULL, 'x', 'y', '{}')",
        ),
      ).toThrow(/only at the head/);
      expect(() => database.exec('UPDATE audit_head SET sequence = 2')).toThrow(/only follows appends/);
      expect((await stores.auditLog.verifyChain()).ok).toBe(true);
    } finally {
      stores.close();
    }
  });

  it('refuse INSERT OR REPLACE over an entry and every insert into audit_head, with recursive_triggers off or on', async () => {
    // REPLACE deletes the row it conflicts with without firing delete triggers (recursive_triggers
    // off, SQLite's default) and fires no update trigger: it rewound and moved the head and
    // rewrote entries under the triggers of version 1 alone.
    const digester = createDigester();
    const stores = openSqliteStores({ path: nextPath(), digester });
    try {
      for (let index = 1; index <= 5; index += 1) {
        await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { amount: index * 100 } });
      }
      const { database } = stores;
      const rows = () => database.prepare(`SELECT ${AUDIT_COLUMNS} FROM audit_log ORDER BY sequence`).all();
      const head = () => database.prepare('SELECT id, sequence, entry_hash FROM audit_head').all();
      const rowsBefore = rows();
      const headBefore = head();
      const row2 = database.prepare<[], { entry_hash: string; recorded_at: string }>('SELECT entry_hash, recorded_at FROM audit_log WHERE sequence = 2').get();
      const forged = sealAuditEntry(
        prepareAuditEntry({ kind: 'sealed_call', call_id: 'call-3', operation_id: null, idempotency_key: null, body: { amount: 999_999 } }),
        { sequence: 3, recorded_at: row2?.recorded_at ?? '', previous_hash: row2?.entry_hash ?? '' },
        digester,
      );
      const insertForged = (verb: string) =>
        database
          .prepare(
            `${verb} INTO audit_log (${AUDIT_COLUMNS}) VALUES (@sequence, @recorded_at, @kind, @call_id, @operation_id, @idempotency_key, @previous_hash, @entry_hash, @canonical)`,
          )
          .run(forged);
      for (const recursiveTriggers of ['OFF', 'ON']) {
        database.pragma(`recursive_triggers = ${recursiveTriggers}`);
        // The rewind, rewrite and move forward again of the review's reproduction, each refused.
        expect(() => database.prepare('INSERT OR REPLACE INTO audit_head (id, sequence, entry_hash) VALUES (1, 2, ?)').run(row2?.entry_hash)).toThrow(
          /only follows appends/,
        );
        expect(() => database.prepare('REPLACE INTO audit_head (id, sequence, entry_hash) VALUES (1, 2, ?)').run(row2?.entry_hash)).toThrow(/only follows appends/);
        expect(() =>
          database
            .prepare('INSERT INTO audit_head (id, sequence, entry_hash) VALUES (1, 2, ?) ON CONFLICT (id) DO UPDATE SET sequence = excluded.sequence')
            .run(row2?.entry_hash),
        ).toThrow(/only follows appends/);
        for (const verb of ['INSERT OR REPLACE', 'REPLACE', 'INSERT OR IGNORE', 'INSERT']) {
          expect(() => insertForged(verb), verb).toThrow(/append-only|only at the head/);
        }
      }
      // The head row cannot be deleted; with that trigger dropped, the head check of version 1 has
      // nothing to compare with, yet an existing entry is still never replaced, nor a head inserted,
      // and verifyChain reports the missing head as tampering (a verdict, not an exception).
      expect(() => database.exec('DELETE FROM audit_head')).toThrow(/only follows appends/);
      database.exec('DROP TRIGGER audit_head_no_delete');
      database.exec('DELETE FROM audit_head');
      expect(() => insertForged('INSERT OR REPLACE')).toThrow(/append-only/);
      expect(() => database.prepare('INSERT INTO audit_head (id, sequence, entry_hash) VALUES (1, 2, ?)').run(row2?.entry_hash)).toThrow(/only follows appends/);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: false, problem: 'edited', detail: 'head_missing' });
      database.exec(SQLITE_MIGRATIONS.find((migration) => migration.version === 4)?.statements.find((statement) => statement.includes('audit_head_no_delete')) ?? '');
      // Restoring the head from the last entry means lifting the insert guard for that one insert.
      database.exec('DROP TRIGGER audit_head_no_insert');
      database.prepare('INSERT INTO audit_head (id, sequence, entry_hash) VALUES (1, ?, ?)').run(5, (rowsBefore[4] as { entry_hash: string }).entry_hash);
      database.exec(SQLITE_MIGRATIONS.find((migration) => migration.version === 4)?.statements.find((statement) => statement.includes('audit_head_no_insert')) ?? '');
      expect(triggerNames(database)).toEqual(SCHEMA_TRIGGERS);
      expect(rows()).toEqual(rowsBefore);
      expect(head()).toEqual(headBefore);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 5 });
      // Appends are inserts at the head: still accepted.
      expect((await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-6', operation_id: null, idempotency_key: null, body: { amount: 600 } })).sequence).toBe(6);
    } finally {
      stores.close();
    }
  });
});

describe('SQLite stores: token bounds (the review: a forged floor or token made every claim throw, for good)', () => {
  const floorOf = (stores: ReturnType<typeof openSqliteStores>) => stores.database.prepare('SELECT token FROM idempotency_token_floor').pluck().get();
  const claim = (stores: ReturnType<typeof openSqliteStores>, key: string) =>
    stores.idempotencyStore.claim({ key, request_sha256: REQUEST, owner: 'host-1', lease_ms: 1_000 });

  it('refuses a token floor raised above the largest clock reading (2^53 and more included); at that bound, claims still get safe tokens', async () => {
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path: nextPath(), clock });
    try {
      // Under version 5 the first one passed (the floor only rose) and every first claim threw a RangeError.
      for (const forged of ['9007199254740994', '9007199254740992', '9007199254740991', '9007199254740990', '8640000000000001']) {
        expect(() => stores.database.exec(`UPDATE idempotency_token_floor SET token = ${forged}`), forged).toThrow(
          /toolseal idempotency_token_floor stays at most 8640000000000000/,
        );
      }
      expect(floorOf(stores)).toBe(0);
      expect(await claim(stores, 'key-a')).toMatchObject({ kind: 'claimed', fencing_token: T0 + 1 });
      // The bound itself is a floor the file may hold (a raise to it passes): a first claim gets one
      // more, a safe integer, and a takeover one more again.
      expect(SQLITE_TOKEN_FLOOR_MAX).toBe(8_640_000_000_000_000);
      stores.database.exec(`UPDATE idempotency_token_floor SET token = ${SQLITE_TOKEN_FLOOR_MAX}`);
      expect(await claim(stores, 'key-b')).toEqual({ kind: 'claimed', fencing_token: SQLITE_TOKEN_FLOOR_MAX + 1, lease_expires_at: T0 + 1_000, took_over: false });
      expect(await stores.idempotencyStore.release({ key: 'key-b', fencing_token: SQLITE_TOKEN_FLOOR_MAX + 1 })).toMatchObject({ ok: true });
      expect(await claim(stores, 'key-b')).toMatchObject({ kind: 'claimed', fencing_token: SQLITE_TOKEN_FLOOR_MAX + 2, took_over: false });
      expect(await claim(stores, 'key-c')).toMatchObject({ kind: 'claimed', fencing_token: SQLITE_TOKEN_FLOOR_MAX + 1 });
      // Such a record cannot be deleted: the floor cannot hold its token, and a purge that forgot it
      // could hand it out again. The purge fails, whole (the README's known limit of a forged floor).
      clock.advance(10_000);
      await expect(stores.idempotencyStore.purgeExpired({ older_than_ms: 0 })).rejects.toThrow(/idempotency_token_floor stays at most 8640000000000000/);
      expect((await stores.idempotencyStore.get('key-a'))?.state).toBe('claimed');
      expect(floorOf(stores)).toBe(SQLITE_TOKEN_FLOOR_MAX);
    } finally {
      stores.close();
    }
  });

  it('refuses a record whose fencing token is above Number.MAX_SAFE_INTEGER - 1, inserted, updated or upserted, and the deletion of one above the floor\'s bound', async () => {
    const clock = new ManualClock(T0);
    const stores = openSqliteStores({ path: nextPath(), clock });
    const { database } = stores;
    const insert = (key: string, token: string) =>
      database.exec(`INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
        VALUES ('${key}', '${REQUEST}', 'released', 'forger', ${token}, 0, 0, 0)`);
    try {
      expect(SQLITE_FENCING_TOKEN_MAX).toBe(Number.MAX_SAFE_INTEGER - 1);
      // Under version 5 each was stored, and deleting it raised the floor past 2^53.
      for (const token of ['9007199254740994', '9007199254740992', '9007199254740991']) {
        expect(() => insert('key-forged', token), token).toThrow(/toolseal idempotency fencing token above 9007199254740990/);
      }
      expect(await stores.idempotencyStore.get('key-forged')).toBeUndefined();
      expect(await claim(stores, 'key-a')).toMatchObject({ kind: 'claimed', fencing_token: T0 + 1 });
      expect(() => database.exec("UPDATE idempotency_records SET fencing_token = 9007199254740991 WHERE key = 'key-a'")).toThrow(/fencing token above/);
      expect(() =>
        database.exec(`INSERT INTO idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
          VALUES ('key-a', '${REQUEST}', 'released', 'forger', 1, 0, 0, 0) ON CONFLICT (key) DO UPDATE SET fencing_token = 9007199254740994`),
      ).toThrow(/fencing token above/);
      expect(await stores.idempotencyStore.get('key-a')).toMatchObject({ state: 'claimed', owner: 'host-1', fencing_token: T0 + 1 });
      // A token up to the bound is stored and reads back exactly; above the floor's bound, it cannot
      // be deleted (the delete's raise of the floor is refused, and the delete with it).
      insert('key-high', String(SQLITE_FENCING_TOKEN_MAX));
      expect((await stores.idempotencyStore.get('key-high'))?.fencing_token).toBe(SQLITE_FENCING_TOKEN_MAX);
      expect(() => database.exec("DELETE FROM idempotency_records WHERE key = 'key-high'")).toThrow(/idempotency_token_floor stays at most 8640000000000000/);
      expect(floorOf(stores)).toBe(0);
      // Its takeover's token would be past the bound: that one key's claim fails, nothing is written.
      await expect(claim(stores, 'key-high')).rejects.toThrow(/fencing token above 9007199254740990/);
      expect((await stores.idempotencyStore.get('key-high'))?.owner).toBe('forger');
      // Every other claim keeps working, the first claims of new keys included.
      expect(await claim(stores, 'key-b')).toMatchObject({ kind: 'claimed', fencing_token: T0 + 1, took_over: false });
      expect(await claim(stores, 'key-a')).toMatchObject({ kind: 'in_progress' });
      // A record at the floor's bound is deleted as before, raising the floor to it.
      insert('key-at-bound', String(SQLITE_TOKEN_FLOOR_MAX));
      database.exec("DELETE FROM idempotency_records WHERE key = 'key-at-bound'");
      expect(floorOf(stores)).toBe(SQLITE_TOKEN_FLOOR_MAX);
      expect(await claim(stores, 'key-c')).toMatchObject({ kind: 'claimed', fencing_token: SQLITE_TOKEN_FLOOR_MAX + 1 });
    } finally {
      stores.close();
    }
  });
});

describe('SQLite stores: raw SQL tampering', () => {
  async function tampered(edit: (database: import('better-sqlite3').Database) => void) {
    const stores = openSqliteStores({ path: nextPath() });
    for (let index = 1; index <= 6; index += 1) {
      await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    dropAppendOnlyTriggers(stores.database);
    edit(stores.database);
    const verification = await stores.auditLog.verifyChain();
    stores.close();
    return verification;
  }

  it('detects an edited body at its position', async () => {
    const result = await tampered((database) =>
      database.exec(`UPDATE audit_log SET canonical = replace(canonical, '"index":3', '"index":4') WHERE sequence = 3`),
    );
    expect(result).toEqual({ ok: false, position: 3, problem: 'edited', detail: 'entry_hash_mismatch' });
  });

  it('detects a deleted row at its position', async () => {
    expect(await tampered((database) => database.exec('DELETE FROM audit_log WHERE sequence = 3'))).toMatchObject({
      ok: false,
      position: 3,
      problem: 'deleted',
    });
  });

  it('detects reordered rows at the first position', async () => {
    const result = await tampered((database) =>
      database.exec(`
        UPDATE audit_log SET sequence = -3 WHERE sequence = 3;
        UPDATE audit_log SET sequence = 3 WHERE sequence = 4;
        UPDATE audit_log SET sequence = 4 WHERE sequence = -3;`),
    );
    expect(result).toMatchObject({ ok: false, position: 3, problem: 'reordered' });
  });

  it('detects an inserted copy of a row', async () => {
    const result = await tampered((database) =>
      database.exec(`
        UPDATE audit_log SET sequence = sequence + 100 WHERE sequence >= 3;
        UPDATE audit_log SET sequence = sequence - 99 WHERE sequence >= 100;
        INSERT INTO audit_log SELECT 3, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical
          FROM audit_log WHERE sequence = 2;`),
    );
    expect(result).toMatchObject({ ok: false, position: 3, problem: 'inserted' });
  });

  it('detects a hidden query column', async () => {
    const result = await tampered((database) => database.exec("UPDATE audit_log SET call_id = NULL WHERE sequence = 5"));
    expect(result).toEqual({ ok: false, position: 5, problem: 'edited', detail: 'column_mismatch' });
  });
});

describe('SQLite stores: eight connections on one WAL file', () => {
  it('interleaved duplicate claims have exactly one winner per key', async () => {
    const path = nextPath();
    const clock = new ManualClock(T0);
    const connections = Array.from({ length: 8 }, () => openSqliteStores({ path, clock }));
    try {
      const keys = Array.from({ length: 20 }, (_, index) => `key-${index}`);
      const runs = new Map<string, number>();
      const outcomes: ClaimOutcome[] = [];
      // 200 claims per key, round-robin over the connections, each winner running the handler.
      const attempts: Promise<void>[] = [];
      for (let round = 0; round < 200; round += 1) {
        for (const [index, key] of keys.entries()) {
          const connection = connections[(round + index) % connections.length];
          if (connection === undefined) throw new Error('connection');
          attempts.push(
            (async () => {
              // Let other attempts' handlers and completions run in between.
              for (let yields = (round * 7 + index) % 5; yields > 0; yields -= 1) await new Promise(setImmediate);
              const store = connection.idempotencyStore;
              const claim = await store.claim({ key, request_sha256: REQUEST, owner: `connection-${round % 8}`, lease_ms: 60_000 });
              outcomes.push(claim);
              if (claim.kind !== 'claimed') return;
              expect((await store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 60_000 })).ok).toBe(true);
              runs.set(key, (runs.get(key) ?? 0) + 1);
              expect((await store.complete({ key, fencing_token: claim.fencing_token, result: { sealed_json: '{}', receipt: null } })).ok).toBe(true);
            })(),
          );
        }
      }
      await Promise.all(attempts);
      expect(outcomes).toHaveLength(4000);
      expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(20);
      expect([...runs.values()]).toEqual(Array.from({ length: 20 }, () => 1));
      expect(outcomes.filter((outcome) => outcome.kind === 'completed').length).toBeGreaterThan(0);
    } finally {
      for (const connection of connections) connection.close();
    }
  });
});

describe('SQLite stores: another connection of this process holds the write lock', () => {
  /** A second connection on `path` that takes the write lock now (as a backup or a long batch would). */
  function holdWriteLock(path: string) {
    const holder = new BetterSqlite3(path);
    holder.exec('BEGIN IMMEDIATE');
    return {
      release: () => {
        holder.exec('COMMIT');
        holder.close();
      },
    };
  }
  const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
  const claimInput = (key: string, owner = 'host-a') => ({ key, request_sha256: REQUEST, owner, lease_ms: 60_000 });
  const appendInput = (index: number) => ({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });

  it('waits without holding the event loop: a timer of this process releases the lock and the calls then succeed', async () => {
    const path = nextPath();
    const stores = openSqliteStores({ path });
    const lock = holdWriteLock(path);
    try {
      // With a synchronous busy wait, this timer could not fire before the wait gave up.
      setTimeout(lock.release, 150);
      const started = performance.now();
      const [claim, entry] = await Promise.all([stores.idempotencyStore.claim(claimInput('k')), stores.auditLog.append(appendInput(1))]);
      expect(performance.now() - started).toBeGreaterThanOrEqual(100);
      expect(claim).toMatchObject({ kind: 'claimed', took_over: false });
      expect(entry.sequence).toBe(1);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 1 });
    } finally {
      stores.close();
    }
  });

  it('plans a retried write again from what the other connection committed meanwhile', async () => {
    const path = nextPath();
    const clock = new ManualClock(T0);
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const waiting = openSqliteStores({ path, clock, digester });
    const other = openSqliteStores({ path, clock, digester });
    try {
      other.database.exec('BEGIN IMMEDIATE');
      const claim = waiting.idempotencyStore.claim(claimInput('k', 'host-a'));
      const append = waiting.auditLog.append(appendInput(2));
      await sleep(60);
      // While the first connection waits, the other claims the same key and appends, then commits.
      const otherClaim = await other.idempotencyStore.claim(claimInput('k', 'host-b'));
      const otherEntry = await other.auditLog.append(appendInput(1));
      other.database.exec('COMMIT');
      expect(otherClaim).toMatchObject({ kind: 'claimed', took_over: false });
      // Not a second winner, and no error from a stale plan: the key is now held by host-b.
      expect(await claim).toEqual({ kind: 'in_progress', lease_expires_at: T0 + 60_000, retry_after_ms: 60_000 });
      expect((await waiting.idempotencyStore.get('k'))?.owner).toBe('host-b');
      const entry = await append;
      expect(entry.sequence).toBe(2);
      expect(entry.previous_hash).toBe(otherEntry.entry_hash);
      expect(await waiting.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2 });
    } finally {
      waiting.close();
      other.close();
    }
  });

  it('gives up after lockTimeoutMs with SqliteLockTimeoutError, and writes nothing even after the lock is free', async () => {
    const path = nextPath();
    const stores = openSqliteStores({ path, lockTimeoutMs: 80 });
    const lock = holdWriteLock(path);
    const outcomes = await Promise.allSettled([
      stores.idempotencyStore.claim(claimInput('k')),
      stores.auditLog.append(appendInput(1)),
      stores.idempotencyStore.purgeExpired({ older_than_ms: 0 }),
    ]);
    lock.release();
    try {
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
      const errors = outcomes.map((outcome) => (outcome.status === 'rejected' ? outcome.reason : null));
      expect(errors.map((error) => SqliteLockTimeoutError.isInstance(error) && error.operation)).toEqual(['claim', 'append', 'purgeExpired']);
      // Longer than any retry pause: a retry left running would have written by now.
      await sleep(150);
      expect(await stores.idempotencyStore.get('k')).toBeUndefined();
      expect(await stores.auditLog.head()).toBeNull();
      // The store works again once the lock is free.
      expect(await stores.idempotencyStore.claim(claimInput('k'))).toMatchObject({ kind: 'claimed', took_over: false });
    } finally {
      stores.close();
    }
  });

  it('keeps the call order of one connection\'s writes while they wait', async () => {
    const path = nextPath();
    const stores = openSqliteStores({ path });
    const lock = holdWriteLock(path);
    try {
      const appends = [1, 2, 3, 4].map((index) => stores.auditLog.append(appendInput(index)));
      setTimeout(lock.release, 40);
      const entries = await Promise.all(appends);
      expect(entries.map((entry) => [entry.sequence, entry.call_id])).toEqual([
        [1, 'call-1'],
        [2, 'call-2'],
        [3, 'call-3'],
        [4, 'call-4'],
      ]);
    } finally {
      stores.close();
    }
  });

  it('closing the stores ends a wait: the call fails at its next attempt and writes nothing', async () => {
    const path = nextPath();
    const stores = openSqliteStores({ path });
    const lock = holdWriteLock(path);
    const claim = stores.idempotencyStore.claim(claimInput('k'));
    await sleep(20);
    stores.close();
    lock.release();
    await expect(claim).rejects.toThrow(/not open/);
    const reopened = openSqliteStores({ path });
    try {
      expect(await reopened.idempotencyStore.get('k')).toBeUndefined();
    } finally {
      reopened.close();
    }
  });

  it('reopens an up-to-date file while another connection holds the write lock, without waiting', () => {
    const path = nextPath();
    openSqliteStores({ path }).close();
    const lock = holdWriteLock(path);
    try {
      const started = performance.now();
      const stores = openSqliteStores({ path, lockTimeoutMs: 2000 });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(stores.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
      stores.close();
    } finally {
      lock.release();
    }
  });
});
