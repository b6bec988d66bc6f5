import type { Database } from 'better-sqlite3';
import { checkSqliteSchema } from './check-sqlite-schema.js';
import { applySqliteMigrations } from './sqlite-migrations.js';

/**
 * Brings the database to SQLITE_SCHEMA_VERSION, for hosts that migrate ahead of time. Idempotent:
 * reopening applies nothing and takes no write lock (the version is read first); two processes
 * migrating at once serialize on the write lock (BEGIN IMMEDIATE) and apply each step once.
 *
 * Before any write it checks the file as `openSqliteStores` does (`checkSqliteSchema`): a file that
 * is not a SQLite database, another application's database, one written by a newer version of this
 * package, one where an object of the schema was dropped or changed, or one with a foreign trigger
 * on a store table throws `StoreInputError` (option `path`, the database's `name`) and is left as
 * it was; so does a file SQLite cannot read for want of write access (a WAL file in a directory this
 * process may not write, where SQLite cannot create its `-wal` and `-shm` files). A migration that fails because the file changed since the check (another process of a
 * newer version upgraded it first) is refused in the same words.
 *
 * `clockReading` (epoch ms, default 0) is the clock reading of the migration: an upgrade to
 * version 5 seeds the token floor with it. `openSqliteStores` passes its clock's reading; with 0,
 * fencing across a clock step back covers only the records purged after the upgrade. A reading
 * that is not a safe integer from 0 to 8.64e15 (`SQLITE_TOKEN_FLOOR_MAX`, the largest a store's
 * clock gives) throws a RangeError before anything is written.
 */
export function migrateSqlite(database: Database, appliedAt: string, clockReading = 0): number {
  checkSqliteSchema(database, database.name);
  return applyCheckedSqliteMigrations(database, database.name, appliedAt, clockReading);
}

/**
 * The migrations for a file `checkSqliteSchema` has just accepted: when they fail (the file changed
 * since the check), it is checked again, so that a file another process made unacceptable meanwhile
 * is refused in the check's words rather than the failed statement's.
 */
export function applyCheckedSqliteMigrations(database: Database, path: string, appliedAt: string, clockReading: number): number {
  try {
    return applySqliteMigrations(database, appliedAt, clockReading);
  } catch (error) {
    checkSqliteSchema(database, path);
    throw error;
  }
}
