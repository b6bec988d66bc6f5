// Internal to @toolseal/store-sqlite: the store's files, as they were when it opened them.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Device and inode of a file, or `null` when it does not exist. */
type Identity = { readonly dev: bigint; readonly ino: bigint } | null;

function identityOf(path: string): Identity {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined ? null : { dev: stats.dev, ino: stats.ino };
}

function sameFile(left: Identity, right: Identity): boolean {
  return left !== null && right !== null && left.dev === right.dev && left.ino === right.ino;
}

/**
 * The database file and its `-shm` file (through which SQLite shares its locks and WAL index
 * between processes) as this store opened them. `check()`, called before each write, throws when
 * either was moved, deleted or replaced since: a process opening the path afterwards would use
 * another lock and another WAL, both would win the same claim, and this store's writes would go
 * into a file nobody opens again. Two `stat` calls (microseconds, against the hundreds of a
 * write); `stat` takes no lock, so it never disturbs SQLite's.
 */
export function filesInPlace(given: string): { check(): void } {
  // Resolved now, as SQLite resolved it when it opened the file: a later `chdir` of the process
  // must not make a relative path name other files.
  const path = resolve(given);
  const shmPath = `${path}-shm`;
  const database = identityOf(path);
  const shm = identityOf(shmPath);
  return {
    check() {
      if (!sameFile(identityOf(path), database) || !sameFile(identityOf(shmPath), shm)) {
        throw new Error(
          `store-sqlite: ${JSON.stringify(path)} or its -shm file was moved, deleted or replaced while this store had it open; nothing was written. Other processes opening the path would not share this store's locks, so no write goes on: restore the files and reopen the store`,
        );
      }
    },
  };
}
