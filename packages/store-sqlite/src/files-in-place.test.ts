import { closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreInputError } from '@toolseal/audit';
import { afterAll, describe, expect, it } from 'vitest';
import { filesInPlace } from './files-in-place.js';
import { openSqliteStores } from './open-sqlite-stores.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-files-in-place-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const REQUEST = 'a'.repeat(64);
const MOVED = 'was moved, deleted or replaced while this store had it open; nothing was written';

function folder(name: string): string {
  const path = join(directory, name);
  mkdirSync(path);
  return path;
}

const claim = (stores: ReturnType<typeof openSqliteStores>, key: string) =>
  stores.idempotencyStore.claim({ key, request_sha256: REQUEST, owner: 'host-a', lease_ms: 60_000 });

/**
 * Opens a store at `path` (which leads to the file `real`), starts a claim, moves `real` away while
 * open and closes the store, leaving the claim in `real`'s -wal alone: opening `path` again must be
 * refused, not give a fresh store that frees the key.
 */
async function expectOrphanedWalRefused(path: string, real: string): Promise<void> {
  const stores = openSqliteStores({ path });
  await claim(stores, 'refund-7');
  renameSync(real, `${real}.moved`);
  stores.close();
  expect(statSync(`${real}-wal`).size).toBeGreaterThan(0);
  let thrown: unknown;
  try {
    openSqliteStores({ path });
  } catch (error) {
    thrown = error;
  }
  expect(StoreInputError.isInstance(thrown) && thrown.field).toBe('path');
  expect(String(thrown)).toContain('its -wal file holds');
}

describe('the store files checked before each write', () => {
  it('follows a symbolic link as SQLite does: a store opened through one writes, its -wal and -shm named after the target (fresh-eyes review F1)', async () => {
    const at = folder('symlink');
    const real = join(at, 'real.db');
    symlinkSync(real, join(at, 'link.db'));
    for (const round of ['new file', 'existing file']) {
      const stores = openSqliteStores({ path: join(at, 'link.db') });
      expect((await claim(stores, `k-${round}`)).kind, round).toBe('claimed');
      await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-1', operation_id: null, idempotency_key: null, body: { round } });
      await stores.idempotencyStore.purgeExpired({ older_than_ms: 0 });
      expect(statSync(`${real}-shm`).size, round).toBeGreaterThan(0);
      stores.close();
    }
  });

  it('refuses a symbolic link leading to an empty path beside a -wal holding frames (fresh-eyes review F1)', async () => {
    const at = folder('symlink-orphan');
    const real = join(at, 'real.db');
    symlinkSync(real, join(at, 'link.db'));
    await expectOrphanedWalRefused(join(at, 'link.db'), real);
  });

  it('finds the -wal of a link whose relative target climbs out of a linked directory, as the kernel resolves it (fresh-eyes review 3, F1)', async () => {
    // current -> releases/v2, releases/v2/store.db -> ../shared/store.db: the file is
    // releases/shared/store.db, not shared/store.db beside `current`.
    const at = folder('dotdot');
    mkdirSync(join(at, 'releases', 'v2'), { recursive: true });
    mkdirSync(join(at, 'releases', 'shared'));
    mkdirSync(join(at, 'shared'));
    symlinkSync(join(at, 'releases', 'v2'), join(at, 'current'));
    symlinkSync('../shared/store.db', join(at, 'releases', 'v2', 'store.db'));
    await expectOrphanedWalRefused(join(at, 'current', 'store.db'), join(at, 'releases', 'shared', 'store.db'));
  });

  it('refuses writes once the -wal is deleted (fresh-eyes review F3: a second process then won a started key)', async () => {
    const path = join(folder('wal-deleted'), 'store.db');
    const stores = openSqliteStores({ path });
    await claim(stores, 'before');
    unlinkSync(`${path}-wal`);
    await expect(claim(stores, 'after')).rejects.toThrow(MOVED);
    stores.close();
  });

  it('keeps checking the files it opened after the process changes directory (a relative path)', async () => {
    const first = folder('first');
    const second = folder('second');
    const before = process.cwd();
    try {
      process.chdir(first);
      const stores = openSqliteStores({ path: 'store.db' });
      // Another folder with a store of the same name: not the files opened.
      process.chdir(second);
      openSqliteStores({ path: 'store.db' }).close();
      expect((await claim(stores, 'k')).kind).toBe('claimed');
      unlinkSync(join(first, 'store.db-shm'));
      await expect(claim(stores, 'k2')).rejects.toThrow(MOVED);
      stores.close();
    } finally {
      process.chdir(before);
    }
  });

  it('throws once a file is replaced by another under its name', () => {
    const at = folder('replaced');
    for (const name of ['store.db', 'store.db-wal', 'store.db-shm']) writeFileSync(join(at, name), 'x'.repeat(40_000));
    // Held open, as SQLite holds the store's files: an inode cannot be reused while it is.
    const held = ['store.db', 'store.db-wal', 'store.db-shm'].map((name) => openSync(join(at, name), 'r'));
    try {
      const files = filesInPlace(join(at, 'store.db'));
      expect(() => files.check()).not.toThrow();
      for (const name of ['store.db', 'store.db-wal', 'store.db-shm']) {
        const replaced = filesInPlace(join(at, 'store.db'));
        unlinkSync(join(at, name));
        writeFileSync(join(at, name), 'x'.repeat(40_000));
        expect(() => replaced.check(), name).toThrow('was moved, deleted or replaced');
      }
    } finally {
      for (const descriptor of held) closeSync(descriptor);
    }
  });
});
