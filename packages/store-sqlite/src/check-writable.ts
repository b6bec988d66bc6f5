import { accessSync, constants } from 'node:fs';
import { StoreInputError } from '@toolseal/audit';
import type { Database } from 'better-sqlite3';

/**
 * Throws `StoreInputError` (option `path`) when `database` cannot be written: SQLite opens a file
 * this process may only read without an error, read-only, and every claim and append would then
 * fail with `SQLITE_READONLY` while the host looks healthy. Checked without a write or a lock (an
 * up-to-date file is reopened while another connection writes, without waiting): the connection's
 * own read-only flag, then whether this process may write the file (`access(W_OK)`).
 */
export function checkWritable(database: Database, path: string): void {
  if (path === ':memory:') return;
  let writable = !database.readonly;
  if (writable) {
    try {
      accessSync(path, constants.W_OK);
    } catch {
      writable = false;
    }
  }
  if (!writable) {
    throw new StoreInputError('path', `${JSON.stringify(path)} is a database this process can only read: the stores write on every call`);
  }
}
