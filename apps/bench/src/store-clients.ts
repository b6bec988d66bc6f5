// Opens N clients of one store kind for a benchmark, each fresh and empty, and cleans up after:
// memory (one store shared by all clients), SQLite (one connection per client on one WAL file in
// a temporary directory), PostgreSQL (one pool per client on one schema of its own, dropped after).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStores, systemClock, type AuditLog, type IdempotencyStore } from '@toolseal/audit';
import type { Digester } from '@toolseal/digests';
import { openPostgresStores, quoteSchemaName, type PostgresStores } from '@toolseal/store-postgres';
import { openSqliteStores, type SqliteStores } from '@toolseal/store-sqlite';

export type StoreKind = 'memory' | 'sqlite' | 'postgres';

export const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite', 'postgres'];

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface StoreClient {
  auditLog: AuditLog;
  idempotencyStore: IdempotencyStore;
}

export interface StoreClients {
  kind: StoreKind;
  /** How the store is set up, for the report. */
  description: string;
  clients: StoreClient[];
  close(): Promise<void>;
}

let postgresProbe: Promise<string | null> | undefined;

/** `null` when PostgreSQL at DATABASE_URL accepts TCP connections, else why not. */
function probePostgres(): Promise<string | null> {
  postgresProbe ??= new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(DATABASE_URL);
    } catch {
      resolve('DATABASE_URL is not a URL');
      return;
    }
    const socket = connect({ host: url.hostname, port: Number(url.port || 5432) });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer from ${url.hostname}:${url.port || 5432} within 2 s`);
    }, 2000);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.end();
      resolve(null);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      resolve(`${url.hostname}:${url.port || 5432} unreachable (${error.message})`);
    });
  });
  return postgresProbe;
}

let schemaCounter = 0;

/** `url` with `option` added to its libpq `options` parameter (after any the URL already has). */
function withSessionOption(url: string, option: string): string {
  const parsed = new URL(url);
  const existing = parsed.searchParams.get('options');
  parsed.searchParams.set('options', existing === null || existing === '' ? option : `${existing} ${option}`);
  return parsed.toString();
}

/**
 * Opens `count` clients of `kind`, or returns why the kind is unavailable (PostgreSQL not
 * reachable). Throws on any other failure.
 */
export async function openStoreClients(
  kind: StoreKind,
  count: number,
  digester: Digester,
  options: { sqliteSynchronous?: 'full' | 'normal'; postgresSynchronousCommit?: 'on' | 'off' } = {},
): Promise<StoreClients | { skipped: string }> {
  if (kind === 'memory') {
    const stores = createMemoryStores({ clock: systemClock, digester });
    return {
      kind,
      description: 'in-process memory stores, shared by every client',
      clients: Array.from({ length: count }, () => ({ auditLog: stores.auditLog, idempotencyStore: stores.idempotencyStore })),
      close: async () => {},
    };
  }
  if (kind === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'toolseal-bench-'));
    const path = join(directory, 'toolseal.db');
    const opened: SqliteStores[] = [];
    const synchronous = options.sqliteSynchronous ?? 'full';
    for (let index = 0; index < count; index++) opened.push(openSqliteStores({ path, digester, synchronous }));
    return {
      kind,
      description: `SQLite WAL file in a temporary directory, synchronous=${synchronous}${synchronous === 'full' ? ' (default)' : ''}, ${count} connection${count > 1 ? 's' : ''}`,
      clients: opened,
      close: async () => {
        for (const stores of opened) stores.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  }
  const unreachable = await probePostgres();
  if (unreachable !== null) return { skipped: `PostgreSQL at ${DATABASE_URL}: ${unreachable}` };
  schemaCounter += 1;
  const schema = `toolseal_bench_${process.pid}_${Date.now().toString(36)}_${schemaCounter}`;
  const synchronousCommit = options.postgresSynchronousCommit ?? 'on';
  // A session setting sent with the startup message (libpq `options`), so every pooled connection has it.
  const connectionString = synchronousCommit === 'on' ? DATABASE_URL : withSessionOption(DATABASE_URL, `-c synchronous_commit=${synchronousCommit}`);
  const opened: PostgresStores[] = [];
  const dropSchema = async (): Promise<void> => {
    const first = opened[0];
    if (first !== undefined) await first.pool.query(`DROP SCHEMA IF EXISTS ${quoteSchemaName(schema)} CASCADE`);
    for (const stores of opened) await stores.close();
  };
  try {
    for (let index = 0; index < count; index++) {
      opened.push(await openPostgresStores({ connectionString, schema, digester }));
    }
  } catch (error) {
    await dropSchema().catch(() => {});
    return { skipped: `PostgreSQL at ${DATABASE_URL}: ${error instanceof Error ? error.message : String(error)}` };
  }
  return {
    kind,
    description: `PostgreSQL at ${new URL(DATABASE_URL).host}, schema of its own (dropped after), one pool per client${synchronousCommit === 'on' ? '' : `, synchronous_commit=${synchronousCommit}`}`,
    clients: opened,
    close: dropSchema,
  };
}
