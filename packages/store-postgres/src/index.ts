export {
  openPostgresStores,
  DEFAULT_MAX_PENDING_APPENDS,
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_UNITS,
  MAX_PENDING_UNITS,
  type PostgresStoresOptions,
  type PostgresStores,
} from './open-postgres-stores.js';
export { PostgresAppendQueueFullError } from './postgres-append-queue-full-error.js';
export { PostgresWriteContentionError } from './postgres-write-contention-error.js';
export {
  migratePostgres,
  quoteSchemaName,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  type PostgresMigration,
} from './postgres-migrations.js';
