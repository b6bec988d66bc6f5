// SQLite answers SQLITE_CANTOPEN both for a path it cannot open and for a process with no file
// descriptor left: the second is no problem with the path, and must not be refused as one.
import * as fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { devNull, tmpdir } from 'node:os';
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sqliteOpenRefusal } from './check-database-file.js';
import { openSqliteStores } from './open-sqlite-stores.js';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, openSync: vi.fn(actual.openSync) };
});

const openSync = vi.mocked(fs.openSync);
afterEach(() => openSync.mockReset());

function refusalWhenOpening(code: string): Error | undefined {
  return sqliteOpenRefusal(new BetterSqlite3.SqliteError('unable to open database file', code), '/srv/toolseal.db');
}

function failOpen(code: string): void {
  openSync.mockImplementation(() => {
    throw Object.assign(new Error(`${code}: too many open files`), { code });
  });
}

describe('sqliteOpenRefusal when the process has no file descriptor left', () => {
  it('says so, with SQLite\'s error as the cause, instead of a StoreInputError on path (EMFILE, ENFILE)', () => {
    for (const code of ['EMFILE', 'ENFILE']) {
      failOpen(code);
      const refusal = refusalWhenOpening('SQLITE_CANTOPEN');
      expect(StoreInputError.isInstance(refusal), code).toBe(false);
      expect(refusal?.message).toContain(`no file descriptor left (${code}; SQLite SQLITE_CANTOPEN), not because of the path`);
      expect(refusal?.cause).toBeInstanceOf(BetterSqlite3.SqliteError);
      expect(openSync).toHaveBeenCalledWith(devNull, 'r');
    }
  });

  it('refuses the path as before when a descriptor can be had, or the probe fails otherwise', () => {
    const refusal = refusalWhenOpening('SQLITE_CANTOPEN');
    expect(StoreInputError.isInstance(refusal) && refusal.field).toBe('path');
    failOpen('EACCES');
    expect(StoreInputError.isInstance(refusalWhenOpening('SQLITE_CANTOPEN'))).toBe(true);
  });

  it('probes only for SQLITE_CANTOPEN: a read-only file is a problem with the path whatever the descriptors', () => {
    failOpen('EMFILE');
    expect(StoreInputError.isInstance(refusalWhenOpening('SQLITE_READONLY_DIRECTORY'))).toBe(true);
    expect(openSync).not.toHaveBeenCalled();
  });
});

describe('openSqliteStores when SQLite fails after the file opened, with no descriptor left', () => {
  it('decides the refusal before it closes the connection (closing frees a descriptor, and the probe would then pass)', () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolseal-sqlite-descriptors-'));
    // No descriptor left until the failed connection is closed.
    let exhausted = false;
    const originalClose = BetterSqlite3.prototype.close;
    const close = vi.spyOn(BetterSqlite3.prototype, 'close').mockImplementation(function (this: BetterSqlite3.Database) {
      exhausted = false;
      return originalClose.call(this);
    });
    const originalPragma = BetterSqlite3.prototype.pragma;
    const pragma = vi.spyOn(BetterSqlite3.prototype, 'pragma').mockImplementation(function (this: BetterSqlite3.Database, source: string, options?: BetterSqlite3.PragmaOptions) {
      if (source === 'journal_mode = WAL') {
        exhausted = true;
        throw new BetterSqlite3.SqliteError('unable to open database file', 'SQLITE_CANTOPEN');
      }
      return originalPragma.call(this, source, options);
    });
    const actualOpenSync = openSync.getMockImplementation();
    openSync.mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      if (exhausted) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      return (actualOpenSync as typeof fs.openSync)(...args);
    });
    try {
      let thrown: unknown;
      try {
        openSqliteStores({ path: join(directory, 'store.db') }).close();
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown)).toBe(false);
      expect(String(thrown)).toContain('no file descriptor left (EMFILE; SQLite SQLITE_CANTOPEN)');
      expect(close).toHaveBeenCalled();
    } finally {
      close.mockRestore();
      pragma.mockRestore();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
