export { openSqliteStores, type SqliteStoresOptions, type SqliteStores } from './open-sqlite-stores.js';
export {
  migrateSqlite,
  SQLITE_MIGRATIONS,
  SQLITE_SCHEMA_VERSION,
  type SqliteMigration,
} from './sqlite-migrations.js';
