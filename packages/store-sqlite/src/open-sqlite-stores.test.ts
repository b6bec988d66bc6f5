import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, StoreInputError, type ClaimOutcome } from '@toolseal/audit';
import { storeConformanceCases } from '@toolseal/audit/conformance';
import { createDigester } from '@toolseal/digests';
import { afterAll, describe, expect, it } from 'vitest';
import { dropAppendOnlyTriggers, sqliteTamper } from './__fixtures__/sqlite-tamper.js';
import { openSqliteStores } from './open-sqlite-stores.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-sqlite-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const nextPath = () => join(directory, `store-${(files += 1)}.db`);
const T0 = Date.UTC(2026, 6, 19);
const REQUEST = 'a'.repeat(64);

describe('SQLite stores (WAL file): conformance', () => {
  const cases = storeConformanceCases(async ({ clock, digester, logId }) => {
    const stores = openSqliteStores({ path: nextPath(), clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, tamper: sqliteTamper(stores.database), close: async () => stores.close() };
  });
  for (const testCase of cases) it(testCase.name, testCase.run);
});

describe('SQLite stores (:memory:): conformance', () => {
  const cases = storeConformanceCases(async ({ clock, digester, logId }) => {
    const stores = openSqliteStores({ path: ':memory:', clock, digester, ...(logId === undefined ? {} : { logId }) });
    return { ...stores, tamper: sqliteTamper(stores.database), close: async () => stores.close() };
  });
  for (const testCase of cases) it(testCase.name, testCase.run);
});

describe('SQLite stores: connection settings', () => {
  it('uses WAL, the busy timeout and synchronous FULL by default', () => {
    const stores = openSqliteStores({ path: nextPath(), busyTimeoutMs: 1234 });
    try {
      expect(stores.database.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(stores.database.pragma('busy_timeout', { simple: true })).toBe(1234);
      expect(stores.database.pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      stores.close();
    }
    const normal = openSqliteStores({ path: nextPath(), synchronous: 'normal' });
    expect(normal.database.pragma('synchronous', { simple: true })).toBe(1);
    normal.close();
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
