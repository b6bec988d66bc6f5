// Test-only: plays an attacker with write access to the database file. Drops the append-only
// triggers (as such an attacker could) and rewrites rows with raw SQL.
import type { AuditHead, AuditTamper, StoredAuditRow } from '@toolseal/audit';
import type { Database } from 'better-sqlite3';

const COLUMNS = 'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';

export function dropAppendOnlyTriggers(database: Database): void {
  for (const trigger of [
    'audit_log_append_only_update',
    'audit_log_append_only_delete',
    'audit_log_append_at_head',
    'audit_head_follows_log',
    'audit_log_append_only_replace',
    'audit_head_no_insert',
    'audit_head_no_delete',
  ]) {
    database.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
  }
}

export function sqliteTamper(database: Database): AuditTamper {
  return {
    async readRows() {
      return database.prepare<[], StoredAuditRow>(`SELECT ${COLUMNS} FROM audit_log ORDER BY sequence`).all();
    },
    async writeRows(rows: StoredAuditRow[]) {
      dropAppendOnlyTriggers(database);
      const insert = database.prepare<[StoredAuditRow]>(
        `INSERT INTO audit_log (${COLUMNS}) VALUES (@sequence, @recorded_at, @kind, @call_id, @operation_id, @idempotency_key, @previous_hash, @entry_hash, @canonical)`,
      );
      database.transaction(() => {
        database.exec('DELETE FROM audit_log');
        for (const row of rows) insert.run(row);
      })();
    },
    async writeHead(head: AuditHead | null) {
      dropAppendOnlyTriggers(database);
      database
        .prepare('UPDATE audit_head SET sequence = ?, entry_hash = ? WHERE id = 1')
        .run(head?.sequence ?? 0, head?.entry_hash ?? '0'.repeat(64));
    },
  };
}

/** Every trigger the README says schema version 6 has: the list the tests hold the code to. */
export const SCHEMA_TRIGGERS: readonly string[] = [
  'audit_head_follows_log',
  'audit_head_no_delete',
  'audit_head_no_insert',
  'audit_log_append_at_head',
  'audit_log_append_only_delete',
  'audit_log_append_only_replace',
  'audit_log_append_only_update',
  'idempotency_records_above_token_floor',
  'idempotency_records_raise_token_floor',
  'idempotency_records_token_bounded_insert',
  'idempotency_records_token_bounded_update',
  'idempotency_token_floor_bounded',
  'idempotency_token_floor_no_delete',
  'idempotency_token_floor_no_insert',
  'idempotency_token_floor_only_rises',
];
