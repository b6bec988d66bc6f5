import { statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import { mayWrite, readOnlyRefusal } from './check-writable.js';

/**
 * Refuses, with `StoreInputError` on `path`, a database path SQLite could not open as a file this
 * process reads and writes, before SQLite opens anything: so that the refusal names the option and
 * what is wrong (SQLite's own answer is a bare `SqliteError`, "unable to open database file" or
 * "attempt to write a readonly database", which a host that reports `StoreInputError` as a
 * configuration problem misses), and so that a refused open leaves nothing behind (a connection
 * SQLite opens read-only to a WAL file creates its `-wal` and `-shm` files in a directory this
 * process may write, owned by this process, and leaves them there when it closes).
 *
 * Refused: a path whose directory does not exist or is not a directory (better-sqlite3 checks only
 * that something of that name exists, so a regular file passed for a directory and SQLite failed
 * with SQLITE_CANTOPEN); a path that is a directory, or anything else that is not a regular file (a
 * FIFO, a device); an existing file this process may not write (`access(W_OK)`, as `checkWritable`
 * checks once the file is open); a new file in a directory this process may not write (SQLite
 * creates it there). A process running as root passes the last two, as it may write every file.
 *
 * What this cannot see without opening the file (an existing file in a directory this process may
 * not write, where SQLite cannot create the `-wal` and `-shm` files it needs; a file this process
 * may write but not read) SQLite reports when the store opens and first reads it, and
 * `sqliteOpenRefusal` turns that into the same kind of refusal.
 */
export function checkDatabaseFile(path: string): void {
  const directory = dirname(path);
  const parent = lookUp(directory);
  if (parent === 'ENOENT' || parent === 'ENOTDIR') {
    // ENOTDIR: a component of the directory's path is a regular file, so it does not exist either.
    throw new StoreInputError('path', `must be in an existing directory: ${JSON.stringify(directory)} does not exist`);
  }
  if (typeof parent === 'string') {
    throw new StoreInputError('path', `must be in a directory this process can look into: ${JSON.stringify(directory)} cannot be looked up (${parent})`);
  }
  if (!parent.isDirectory()) {
    throw new StoreInputError('path', `must be in an existing directory: ${JSON.stringify(directory)} is not a directory`);
  }
  const file = lookUp(path);
  if (file === 'ENOENT') {
    // A new file: SQLite creates it, and its -wal and -shm files, in the directory.
    if (!mayWrite(directory)) {
      throw new StoreInputError(
        'path',
        `must be in a directory this process can write: ${JSON.stringify(path)} does not exist, and SQLite would create it (and its -wal and -shm files) in ${JSON.stringify(directory)}`,
      );
    }
    return;
  }
  if (typeof file === 'string') {
    throw new StoreInputError('path', `${JSON.stringify(path)} cannot be looked up by this process (${file})`);
  }
  if (file.isDirectory()) throw new StoreInputError('path', `${JSON.stringify(path)} is a directory, not a database file`);
  if (!file.isFile()) throw new StoreInputError('path', `${JSON.stringify(path)} is not a regular file, so not a database file`);
  if (!mayWrite(path)) throw readOnlyRefusal(path);
}

/**
 * What SQLite answers, while the store opens a file and first reads or writes it, when this process
 * cannot open it for reading and writing, as a `StoreInputError` on `path`: `SQLITE_CANTOPEN` and
 * its extended codes (the file cannot be opened or created), `SQLITE_READONLY` and its extended
 * codes (`SQLITE_READONLY_DIRECTORY`: a WAL file in a directory this process may not write, where
 * SQLite cannot create its `-wal` and `-shm` files; a file opened read-only), and `SQLITE_PERM`.
 * `undefined` for every other error (SQLITE_BUSY, a damaged file...), which says nothing about
 * what the path names or this process may do with it.
 */
export function sqliteOpenRefusal(error: unknown, path: string): StoreInputError | undefined {
  if (!(error instanceof BetterSqlite3.SqliteError)) return undefined;
  const { code } = error;
  if (!code.startsWith('SQLITE_CANTOPEN') && !code.startsWith('SQLITE_READONLY') && code !== 'SQLITE_PERM') return undefined;
  return new StoreInputError(
    'path',
    `${JSON.stringify(path)} cannot be opened for reading and writing by this process (SQLite ${code}: ${JSON.stringify(error.message)}): ` +
      'it must be able to read and write the file and, unless its -wal and -shm files exist already and it may write them, to create files in its directory',
  );
}

/** `path`'s stats (`stat`, links followed), or the error code (`ENOENT`: nothing there) when it cannot be looked up. */
function lookUp(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (error) {
    return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'unknown error';
  }
}
