export {
  openSqliteStores,
  DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
  MAX_SQLITE_BUSY_TIMEOUT_MS,
  DEFAULT_SQLITE_LOCK_TIMEOUT_MS,
  MAX_SQLITE_LOCK_TIMEOUT_MS,
  type SqliteStoresOptions,
  type SqliteStores,
} from './open-sqlite-stores.js';
export { SqliteLockTimeoutError } from './sqlite-lock-timeout-error.js';
export { migrateSqlite } from './migrate-sqlite.js';
export {
  SQLITE_MIGRATIONS,
  SQLITE_SCHEMA_VERSION,
  type SqliteMigration,
} from './sqlite-migrations.js';
