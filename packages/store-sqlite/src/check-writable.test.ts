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
