// Test-only: the PostgreSQL the tests use, and one schema per test run (dropped afterwards).
import { randomBytes } from 'node:crypto';
import type { AuditHead, AuditTamper, StoredAuditRow } from '@toolseal/audit';
import pg from 'pg';
import type { Pool } from 'pg';

export const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

/** `toolseal_test_<random>`: the prefix of every schema this test run creates. */
export const RUN_SCHEMA = `toolseal_test_${randomBytes(6).toString('hex')}`;

/**
 * Whether PostgreSQL answers. In CI (`CI=true`) an unreachable database is a failure, never a
 * skip; locally the PostgreSQL tests skip with a message saying why.
 */
export async function probeDatabase(): Promise<boolean> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1, connectionTimeoutMillis: 5_000 });
  try {
    await pool.query('SELECT 1');
    return true;
  } catch (error) {
    const message = `PostgreSQL at ${DATABASE_URL} is unreachable: ${error instanceof Error ? error.message : String(error)}`;
    if (process.env['CI'] === 'true') throw new Error(`${message}. CI must run the PostgreSQL tests.`);
    console.warn(`${message}. Skipping the PostgreSQL tests locally; start PostgreSQL or set DATABASE_URL.`);
    return false;
  } finally {
    await pool.end();
  }
}

export async function dropSchemas(pool: Pool, prefix: string): Promise<void> {
  const schemas = await pool.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)",
    [prefix],
  );
  for (const { nspname } of schemas.rows) await pool.query(`DROP SCHEMA "${nspname}" CASCADE`);
}

const COLUMNS = 'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';

/** Plays an attacker with write access to the database: disables the triggers and rewrites rows. */
export function postgresTamper(pool: Pool, schema: string): AuditTamper {
  const s = `"${schema}"`;
  return {
    async readRows() {
      const result = await pool.query<Omit<StoredAuditRow, 'sequence'> & { sequence: string }>(
        `SELECT ${COLUMNS} FROM ${s}.audit_log ORDER BY sequence`,
      );
      return result.rows.map((row) => ({ ...row, sequence: Number(row.sequence) }));
    },
    async writeRows(rows: StoredAuditRow[]) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`ALTER TABLE ${s}.audit_log DISABLE TRIGGER USER`);
        await client.query(`DELETE FROM ${s}.audit_log`);
        for (const row of rows) {
          await client.query(`INSERT INTO ${s}.audit_log (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
            row.sequence,
            row.recorded_at,
            row.kind,
            row.call_id,
            row.operation_id,
            row.idempotency_key,
            row.previous_hash,
            row.entry_hash,
            row.canonical,
          ]);
        }
        await client.query(`ALTER TABLE ${s}.audit_log ENABLE TRIGGER USER`);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async writeHead(head: AuditHead | null) {
      await pool.query(`ALTER TABLE ${s}.audit_head DISABLE TRIGGER USER`);
      await pool.query(`UPDATE ${s}.audit_head SET sequence = $1, entry_hash = $2 WHERE id = 1`, [
        head?.sequence ?? 0,
        head?.entry_hash ?? '0'.repeat(64),
      ]);
      await pool.query(`ALTER TABLE ${s}.audit_head ENABLE TRIGGER USER`);
    },
  };
}
