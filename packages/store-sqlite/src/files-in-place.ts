// Internal to @toolseal/store-sqlite: the store's files, as they were when it opened them.
import { statSync } from 'node:fs';

/** Device and inode of a file, or `null` when it does not exist. */
type Identity = { readonly dev: bigint; readonly ino: bigint } | null;

/** The smallest `-shm` SQLite maps (one 32 KiB region): one cut shorter would crash a write (SIGBUS). */
const MIN_SHM_BYTES = 32_768n;

function identityOf(path: string, minBytes = 0n): Identity {
  const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
  return stats === undefined || stats.size < minBytes ? null : { dev: stats.dev, ino: stats.ino };
}

function sameFile(left: Identity, right: Identity): boolean {
  return left !== null && right !== null && left.dev === right.dev && left.ino === right.ino;
}

/**
 * The database file and its `-wal` and `-shm` files (through which SQLite shares its WAL, locks and
 * WAL index between processes) as this store opened them. `databaseFile` is the file SQLite opened,
 * as it names it (`PRAGMA database_list`: absolute, every symbolic link followed), so the companion
 * files are the ones SQLite uses. `check()`, called under the write lock before each write, throws
 * when any was moved, deleted or replaced since (or the `-shm` cut short): a process opening the
 * path afterwards would use another lock, WAL or index, both would win the same claim, and this
 * store's writes would go where nobody reads them. Three `stat` calls (about 13 µs, against the
 * hundreds of a write); `stat` takes no lock, so it never disturbs SQLite's. A file overwritten in
 * place (`cp` over it) keeps its inode and is not noticed.
 */
export function filesInPlace(databaseFile: string): { check(): void } {
  const walPath = `${databaseFile}-wal`;
  const shmPath = `${databaseFile}-shm`;
  const database = identityOf(databaseFile);
  const wal = identityOf(walPath);
  const shm = identityOf(shmPath, MIN_SHM_BYTES);
  return {
    check() {
      if (!sameFile(identityOf(databaseFile), database) || !sameFile(identityOf(walPath), wal) || !sameFile(identityOf(shmPath, MIN_SHM_BYTES), shm)) {
        throw new Error(
          `store-sqlite: ${JSON.stringify(databaseFile)} or its -wal or -shm file was moved, deleted or replaced while this store had it open; nothing was written. Other processes opening the path would not share this store's locks, so no write goes on: end this process without closing the store (see the README)`,
        );
      }
    },
  };
}
