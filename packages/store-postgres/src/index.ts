export { openPostgresStores, type PostgresStoresOptions, type PostgresStores } from './open-postgres-stores.js';
export {
  migratePostgres,
  quoteSchemaName,
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  type PostgresMigration,
} from './postgres-migrations.js';
