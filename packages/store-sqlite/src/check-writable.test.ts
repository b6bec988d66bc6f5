import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWritable } from './check-writable.js';
import { openSqliteStores } from './open-sqlite-stores.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-writable-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('checkWritable (review: a read-only database opened as healthy, then every write failed)', () => {
  it('refuses a connection that can only read, naming the path option, and leaves the file as it was', () => {
    const path = join(directory, 'stores.db');
    openSqliteStores({ path }).close();
    const readOnly = new BetterSqlite3(path, { readonly: true });
    try {
      const before = readOnly.pragma('user_version', { simple: true });
      let thrown: unknown;
      try {
        checkWritable(readOnly, path);
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown)).toBe(true);
      expect((thrown as StoreInputError).field).toBe('path');
      expect((thrown as Error).message).toMatch(/can only read/);
      expect(readOnly.inTransaction).toBe(false);
      expect(readOnly.pragma('user_version', { simple: true })).toBe(before);
    } finally {
      readOnly.close();
    }
  });

  it('refuses a connection SQLite lets only read though it was not opened read-only (review: the check read the constructor option, not SQLite)', () => {
    const path = join(directory, 'query-only.db');
    openSqliteStores({ path }).close();
    const database = new BetterSqlite3(path);
    try {
      // What SQLite makes of a file it falls back to opening read-only (an append-only file, a
      // -shm file this process cannot write): writes refused with SQLITE_READONLY, though the
      // connection's readonly option is false and this process may write the file.
      database.pragma('query_only = 1');
      expect(database.readonly).toBe(false);
      let thrown: unknown;
      try {
        checkWritable(database, path);
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown)).toBe(true);
      expect((thrown as StoreInputError).field).toBe('path');
      expect((thrown as Error).message).toMatch(/can only read/);
      expect(database.inTransaction).toBe(false);
      // Its busy_timeout as it was.
      expect(database.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      database.close();
    }
  });

  it('passes a writable connection while another connection holds the write lock, without waiting for it', () => {
    const path = join(directory, 'busy.db');
    openSqliteStores({ path }).close();
    const holder = new BetterSqlite3(path);
    const database = new BetterSqlite3(path);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      checkWritable(database, path);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(database.inTransaction).toBe(false);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      database.close();
    }
  });

  it('passes a writable connection without changing anything, and the stores still open and write', async () => {
    const path = join(directory, 'writable.db');
    const stores = openSqliteStores({ path });
    const version = stores.database.pragma('user_version', { simple: true });
    checkWritable(stores.database, path);
    expect(stores.database.inTransaction).toBe(false);
    expect(stores.database.pragma('user_version', { simple: true })).toBe(version);
    await stores.auditLog.append({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: {} });
    expect((await stores.auditLog.verifyChain()).ok).toBe(true);
    stores.close();
  });
});
