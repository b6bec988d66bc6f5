import { accessSync, constants } from 'node:fs';
import { StoreInputError } from '@toolseal/audit';
import type { Database } from 'better-sqlite3';

/**
 * Throws `StoreInputError` (option `path`) when `database` cannot be written: SQLite opens a file
 * this process may only read without an error, read-only, and every claim and append would then
 * fail with `SQLITE_READONLY` while the host looks healthy. Checked without a write or a lock (an
 * up-to-date file is reopened while another connection writes, without waiting): the connection's
 * own read-only flag, then whether this process may write the file (`access(W_OK)`).
 *
 * `openSqliteStores` makes the `access(W_OK)` check before it opens the file too
 * (`checkDatabaseFile`), so that a refused open leaves nothing behind; this one, once opened, also
 * catches a connection SQLite opened read-only for another reason.
 */
export function checkWritable(database: Database, path: string): void {
  if (path === ':memory:') return;
  if (database.readonly || !mayWrite(path)) throw readOnlyRefusal(path);
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
  return new StoreInputError('path', `${JSON.stringify(path)} is a database this process can only read: the stores write on every call`);
}
