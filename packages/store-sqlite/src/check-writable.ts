import { accessSync, constants } from 'node:fs';
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';

/**
 * Throws `StoreInputError` (option `path`) when `database` cannot be written: SQLite opens a file
 * this process may only read without an error, read-only, and every claim and append would then
 * fail with `SQLITE_READONLY` while the host looks healthy.
 *
 * Checked first, without opening anything: whether this process may write the file
 * (`access(W_OK)`). Then, since SQLite also falls back to read-only where `access` says the file is
 * writable (an append-only or immutable file, which a process running as root passes; a `-wal` or
 * `-shm` file this process cannot open for writing), by asking SQLite itself: `BEGIN IMMEDIATE`,
 * then `ROLLBACK`. better-sqlite3's `readonly` is only the option the connection was opened with,
 * not what SQLite made of the file, and it has no call for `sqlite3_db_readonly`: so the check
 * begins a write transaction (`BEGIN IMMEDIATE`), changes the first page (the header's
 * `user_version`, set to the value it holds), which SQLite refuses with `SQLITE_READONLY` on a
 * connection it opened read-only, and rolls back. Nothing reaches the file: in WAL mode a rolled
 * back page is only dropped from the cache.
 *
 * The attempt does not wait for the write lock (`busy_timeout` 0 for it): when another connection
 * holds it (`SQLITE_BUSY`), the check passes without knowing, as it did before it asked SQLite,
 * and a connection SQLite opened read-only is then found by the first claim or append
 * (`SQLITE_READONLY`).
 *
 * `openSqliteStores` makes the `access(W_OK)` check before it opens the file too
 * (`checkDatabaseFile`), so that a refused open leaves nothing behind; this one, once opened, also
 * catches a connection SQLite opened read-only for another reason.
 */
export function checkWritable(database: Database, path: string): void {
  if (path === ':memory:') return;
  if (!mayWrite(path) || !beginsWriting(database)) throw readOnlyRefusal(path);
}

/** Whether this process may write `path` (`access(W_OK)`: a process running as root may write every file). */
export function mayWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The refusal of a database this process can only read. */
export function readOnlyRefusal(path: string): StoreInputError {
  return new StoreInputError(
    'path',
    `${JSON.stringify(path)} is a database this process can only read: the stores write on every call ` +
      '(SQLite opened it read-only: the file, or its -wal or -shm file, cannot be opened for writing by this process)',
  );
}

/**
 * Whether SQLite lets `database` change a page (in a transaction rolled back at once): false when
 * it answers `SQLITE_READONLY` (or one of its extended codes), true too when another connection
 * holds the write lock (`SQLITE_BUSY`). Another error is thrown as it is.
 */
function beginsWriting(database: Database): boolean {
  const timeout: unknown = database.pragma('busy_timeout', { simple: true });
  database.pragma('busy_timeout = 0');
  try {
    database.exec('BEGIN IMMEDIATE');
    // SQLite lets a connection to a file it opened read-only begin (in WAL mode), and refuses the
    // first page it changes: the header's user_version, set to what it holds, then rolled back.
    const version: unknown = database.pragma('user_version', { simple: true });
    database.pragma(`user_version = ${typeof version === 'number' ? version : 0}`);
    database.exec('ROLLBACK');
    return true;
  } catch (error) {
    if (database.inTransaction) database.exec('ROLLBACK');
    if (!(error instanceof BetterSqlite3.SqliteError)) throw error;
    if (error.code.startsWith('SQLITE_READONLY')) return false;
    // SQLITE_BUSY: another connection holds the write lock; the stores' calls wait for it.
    if (error.code.startsWith('SQLITE_BUSY')) return true;
    throw error;
  } finally {
    database.pragma(`busy_timeout = ${typeof timeout === 'number' ? timeout : 0}`);
  }
}
