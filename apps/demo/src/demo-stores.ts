import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createMemoryStores, type Clock } from '@toolseal/audit';
import type { Digester } from '@toolseal/digests';
import type { DispatcherStores } from '@toolseal/dispatcher';
import { openPostgresStores } from '@toolseal/store-postgres';
import { openSqliteStores } from '@toolseal/store-sqlite';
import { DEMO_DATA_DIR } from './repository-files.js';

/** Which store the demo writes to. */
export type StoreKind = 'memory' | 'sqlite' | 'postgres';

export interface DemoStoreOptions {
  kind: StoreKind;
  /** SQLite file (default `apps/demo/data/demo.sqlite`). */
  sqlitePath?: string;
  /** PostgreSQL connection string (default `DATABASE_URL`). */
  databaseUrl?: string;
  /** PostgreSQL schema (default `toolseal_demo`). */
  postgresSchema?: string;
  clock: Clock;
  digester: Digester;
}

export interface DemoStores extends DispatcherStores {
  /** Where the records live, for the output. */
  readonly location: string;
  /** Whether records outlive the process: `false` for the memory store and an in-memory SQLite database. */
  readonly durable: boolean;
  close(): Promise<void>;
}

/** Where the demo's SQLite file goes unless told otherwise. */
export const DEFAULT_SQLITE_PATH = join(DEMO_DATA_DIR, 'demo.sqlite');

/**
 * Whether a SQLite database at `path` outlives the process. better-sqlite3 opens an anonymous
 * database for `:memory:` and for a name that is empty once trimmed (`anonymous` in its
 * lib/database.js): in memory, or a temporary file SQLite deletes on close. Every other name is a
 * file (`./:memory:` included).
 */
export function isDurableSqlitePath(path: string): boolean {
  const name = path.trim();
  return name !== '' && name !== ':memory:';
}

/** Opens the chosen store. Throws an `Error` with a message for the person running the demo. */
export async function openDemoStores(options: DemoStoreOptions): Promise<DemoStores> {
  const { clock, digester } = options;
  switch (options.kind) {
    case 'memory': {
      const stores = createMemoryStores({ clock, digester });
      return { ...stores, location: 'process memory', durable: false, close: async () => undefined };
    }
    case 'sqlite': {
      const path = options.sqlitePath ?? DEFAULT_SQLITE_PATH;
      const durable = isDurableSqlitePath(path);
      if (durable) mkdirSync(dirname(path), { recursive: true });
      const stores = openSqliteStores({ path, clock, digester });
      return {
        auditLog: stores.auditLog,
        idempotencyStore: stores.idempotencyStore,
        location: path,
        durable,
        close: async () => stores.close(),
      };
    }
    case 'postgres': {
      const connectionString = options.databaseUrl ?? process.env['DATABASE_URL'];
      if (connectionString === undefined || connectionString === '') {
        throw new Error('--store postgres needs DATABASE_URL (e.g. postgres://user:pass@localhost:5432/toolseal)');
      }
      const schema = options.postgresSchema ?? 'toolseal_demo';
      const stores = await openPostgresStores({ connectionString, schema, clock, digester });
      return {
        auditLog: stores.auditLog,
        idempotencyStore: stores.idempotencyStore,
        location: `PostgreSQL schema ${schema}`,
        durable: true,
        close: () => stores.close(),
      };
    }
  }
}
