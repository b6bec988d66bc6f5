import { closeSync, lstatSync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { devNull } from 'node:os';
import { dirname, resolve, sep } from 'node:path';
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
 * Refused: a path ending with a path separator (`new.db/`: SQLite would create `new.db`, which
 * every later open of `new.db/` would then find not to be a directory); a path whose directory does not exist or is not a directory (better-sqlite3 checks only
 * that something of that name exists, so a regular file passed for a directory and SQLite failed
 * with SQLITE_CANTOPEN); a path that is a directory, or anything else that is not a regular file (a
 * FIFO, a device); an existing file with more than one hard link (SQLite names its `-wal` and
 * `-shm` files, through which connections share the WAL and its locks, after the name it opens:
 * processes opening the file through two names would not share them, and both could win the first
 * claim of a key); an existing file this process may not write (`access(W_OK)`, as `checkWritable`
 * checks once the file is open); an existing `-wal` or `-shm` file beside it this process may not
 * write (SQLite would open the database read-only); a new file in a directory this process may not
 * write (SQLite creates it there). A process running as root passes the `access` checks, as it may
 * write every file.
 *
 * Probed with `access`, never by opening the files: closing a descriptor of a file releases every
 * POSIX lock this process holds on it, so opening and closing the database, `-wal` or `-shm` file
 * here would drop the locks of another connection of this process to it. SQLite's fallback to
 * read-only that `access` cannot foresee (an append-only or immutable file) `checkWritable` finds
 * once the file is open.
 *
 * What this cannot see without opening the file (an existing file in a directory this process may
 * not write, where SQLite cannot create the `-wal` and `-shm` files it needs; a file this process
 * may write but not read) SQLite reports when the store opens and first reads it, and
 * `sqliteOpenRefusal` turns that into the same kind of refusal.
 */
export function checkDatabaseFile(path: string): void {
  if (path.endsWith('/') || path.endsWith(sep)) {
    // `dirname` drops the separator ('new.db/' is in '.'), and SQLite opened and created 'new.db'
    // while every later look-up of 'new.db/' failed with ENOTDIR.
    throw new StoreInputError('path', `must name a file: ${JSON.stringify(path)} ends with a path separator`);
  }
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
    checkCompanionFiles(path);
    refuseOrphanedWal(path);
    return;
  }
  if (typeof file === 'string') {
    throw new StoreInputError('path', `${JSON.stringify(path)} cannot be looked up by this process (${file})`);
  }
  if (file.isDirectory()) throw new StoreInputError('path', `${JSON.stringify(path)} is a directory, not a database file`);
  if (!file.isFile()) throw new StoreInputError('path', `${JSON.stringify(path)} is not a regular file, so not a database file`);
  if (file.nlink > 1) {
    // SQLite names the -wal and -shm files after the name it was given: two processes opening one
    // file through two names would each use a WAL and a lock of their own, and both win a claim.
    throw new StoreInputError(
      'path',
      `${JSON.stringify(path)} has ${file.nlink} hard links: a store file must have one name, as SQLite locks it through files named after it (its -wal and -shm files), and connections opening it through different names would not see each other's writes or locks`,
    );
  }
  if (!mayWrite(path)) throw readOnlyRefusal(path);
  checkCompanionFiles(path);
  if (file.size === 0) refuseOrphanedWal(path);
}

/**
 * Refuses a missing or empty database file beside a `-wal` file holding frames. SQLite deletes
 * such a `-wal` when it opens the file, and it may be the only copy of committed records: SQLite
 * skips the checkpoint at close for a file that was moved or deleted while open, so after a
 * `mv toolseal.db elsewhere` the records are in `toolseal.db-wal` alone. Opening the path would
 * give a fresh store, every key free again, and a started write's handler could run twice. (A
 * database SQLite switched to WAL has its header in the file itself, so a crash never leaves this.)
 */
function refuseOrphanedWal(path: string): void {
  // SQLite names the -wal after the file a symbolic link leads to, not after the link.
  const wal = lookUp(`${linkTarget(path)}-wal`);
  if (typeof wal !== 'string' && wal.isFile() && wal.size > 0) {
    throw new StoreInputError(
      'path',
      `${JSON.stringify(path)} is missing or empty, but its -wal file holds ${wal.size} bytes, possibly the only copy of committed records (was the database moved or deleted while open?): restore the database file, or delete its -wal and -shm files deliberately, before opening it`,
    );
  }
}

/**
 * Refuses a `-wal` or `-shm` file beside `path` this process may not write (`access(W_OK)`), left
 * by a process of another user (one running as root killed while it had the file open, say):
 * SQLite would open the database read-only, without an error.
 */
function checkCompanionFiles(path: string): void {
  // Named after the file a symbolic link leads to, as SQLite names them.
  const target = linkTarget(path);
  for (const suffix of ['-wal', '-shm']) {
    const companion = `${target}${suffix}`;
    if (typeof lookUp(companion) !== 'string' && !mayWrite(companion)) {
      throw new StoreInputError(
        'path',
        `${JSON.stringify(path)} is a database this process can only read: its ${suffix} file ${JSON.stringify(companion)} exists and this process may not write it (left by a process of another user?), so SQLite would open the database read-only`,
      );
    }
  }
}

/**
 * What SQLite answers, while the store opens a file and first reads or writes it, when this process
 * cannot open it for reading and writing, as a `StoreInputError` on `path` (or, when the process
 * has no file descriptor left, a plain `Error` saying so, SQLite's error as its `cause`: SQLite
 * answers `SQLITE_CANTOPEN` then too, and a host must not read that as a problem with `path`): `SQLITE_CANTOPEN` and
 * its extended codes (the file cannot be opened or created), `SQLITE_READONLY` and its extended
 * codes (`SQLITE_READONLY_DIRECTORY`: a WAL file in a directory this process may not write, where
 * SQLite cannot create its `-wal` and `-shm` files; a file opened read-only), and `SQLITE_PERM`.
 * `undefined` for every other error (SQLITE_BUSY, a damaged file...), which says nothing about
 * what the path names or this process may do with it.
 */
export function sqliteOpenRefusal(error: unknown, path: string): Error | undefined {
  if (!(error instanceof BetterSqlite3.SqliteError)) return undefined;
  const { code } = error;
  if (!code.startsWith('SQLITE_CANTOPEN') && !code.startsWith('SQLITE_READONLY') && code !== 'SQLITE_PERM') return undefined;
  const exhausted = code.startsWith('SQLITE_CANTOPEN') ? descriptorsExhausted() : undefined;
  if (exhausted !== undefined) {
    return new Error(
      `openSqliteStores: ${JSON.stringify(path)} could not be opened because this process has no file descriptor left (${exhausted}; SQLite ${code}), not because of the path: retry once descriptors are freed`,
      { cause: error },
    );
  }
  return new StoreInputError(
    'path',
    `${JSON.stringify(path)} cannot be opened for reading and writing by this process (SQLite ${code}: ${JSON.stringify(error.message)}): ` +
      'it must be able to read and write the file and, unless its -wal and -shm files exist already and it may write them, to create files in its directory',
  );
}

/**
 * `EMFILE` or `ENFILE` when this process (or the system) has no file descriptor left, found by
 * opening the null device (never the store's file: closing a descriptor of it would release the
 * POSIX locks this process holds on it); `undefined` otherwise.
 */
function descriptorsExhausted(): string | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(devNull, 'r');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    return code === 'EMFILE' || code === 'ENFILE' ? code : undefined;
  }
  closeSync(descriptor);
  return undefined;
}

/** `path`'s stats (`stat`, links followed), or the error code (`ENOENT`: nothing there) when it cannot be looked up. */
/**
 * `path` with its final symbolic links followed, as SQLite follows them to name the -wal and -shm
 * files (a dangling link included: SQLite creates the file it leads to); `path` itself when it is
 * no link, or cannot be read as one.
 */
function linkTarget(path: string): string {
  let current = path;
  for (let links = 0; links < 40; links++) {
    try {
      if (!lstatSync(current).isSymbolicLink()) return current;
      // Against the directory's real path, as the kernel resolves it: a `..` in the target leads
      // out of the directory a symbolic link in the path leads to, not out of the link's own.
      current = resolve(realpathSync(dirname(current)), readlinkSync(current));
    } catch {
      return current;
    }
  }
  return current;
}

function lookUp(path: string): Stats | string {
  try {
    return statSync(path);
  } catch (error) {
    return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : 'unknown error';
  }
}
