import {
  AuditChainVerifier,
  auditGenesisHash,
  checkVerifyChainOptions,
  auditEntryFromRow,
  auditEntryWithBody,
  checkFindCompletedInput,
  checkFindUnresolvedInput,
  checkIdempotencyOperation,
  checkIdentifier,
  checkClock,
  checkDigester,
  checkIntegerInRange,
  checkMaxBodyBytes,
  checkOptionNames,
  checkPurgeInput,
  formatRecordedAt,
  normalizeAuditQuery,
  oldestFirst,
  planIdempotencyTransition,
  prepareAuditEntry,
  readClock,
  sealAuditEntry,
  StoreInputError,
  systemClock,
  type AuditEntry,
  type AuditEntryInput,
  type AuditHead,
  type AuditLog,
  type AuditPage,
  type AuditPageRequest,
  type AuditQuery,
  type ChainVerification,
  type ClaimOutcome,
  type Clock,
  type FencedOutcome,
  type IdempotencyOperation,
  type IdempotencyRecord,
  type IdempotencyStore,
  type NormalizedAuditQuery,
  type PlannedWrite,
  type PreparedAuditEntry,
  type StoredAuditRow,
  type VerifyChainOptions,
} from '@toolseal/audit';
import { createDigester, type Digester } from '@toolseal/digests';
import { setImmediate } from 'node:timers/promises';
import pg from 'pg';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { checkSchemaName, FENCING_TOKEN_BOUND, migratePostgres, quoteSchemaName } from './postgres-migrations.js';
import { postgresStatementName } from './postgres-statement-name.js';
import { PostgresAppendQueueFullError } from './postgres-append-queue-full-error.js';
import { PostgresWriteContentionError } from './postgres-write-contention-error.js';
import { withPoolClient } from './with-pool-client.js';

export interface PostgresStoresOptions {
  /**
   * A pool the caller owns (left open by `close`). Give this or `connectionString`. The stores add
   * no 'error' listener to it: give it one (`pool.on('error', ...)`), or Node ends the process
   * when the server closes one of its idle connections (see README, "Lost connections").
   */
  pool?: Pool;
  /**
   * Connection string for a pool the stores create and `close` ends. That pool has an 'error'
   * listener, so a lost idle connection is discarded and the next call opens another.
   */
  connectionString?: string;
  /**
   * Schema holding the tables (default `toolseal`); created and migrated on open when missing or
   * behind. One already at this package's version is only read, so a role without DDL privileges
   * can open it (see README, "Privileges").
   */
  schema?: string;
  /**
   * Time source for leases, retention and `recorded_at` (default: the system clock). Lease
   * decisions use this clock, never the database clock; keep host clocks within a small
   * fraction of the shortest lease (see README).
   */
  clock?: Clock;
  /**
   * Audit chain digester (default: unkeyed `createDigester()`); pass `createDigester({ key })` for
   * an HMAC chain: the same digester as the host's dispatcher, whose keyed mode `auditLog.keyed`
   * reports. One without `digestTagged`, `digestText` or a boolean `keyed` is refused at open.
   */
  digester?: Digester;
  /** Largest canonical audit body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * Most audit appends of this store that may wait for their transaction, 1 to 1 000 000 (default
   * `DEFAULT_MAX_PENDING_APPENDS`, 4 096). One more is refused at once with
   * `PostgresAppendQueueFullError`, writing nothing: a database that stops answering cannot make
   * the host hold an ever-growing queue (each entry up to `maxBodyBytes`).
   */
  maxPendingAppends?: number;
  /**
   * Most canonical text those waiting appends may hold together, in UTF-16 code units (two bytes
   * each in memory), 1 to 2^30 (default `DEFAULT_MAX_PENDING_UNITS`, 64 Mi, about 128 MB). One more is
   * refused the same way; an append alone, when nothing waits, is never refused by this bound.
   */
  maxPendingUnits?: number;
  /**
   * For a pool the stores create (`connectionString`): how long acquiring a connection may take
   * before the call fails, in ms, 1 to 3 600 000 (default `DEFAULT_CONNECTION_TIMEOUT_MS`, 10 000;
   * pg's own default waits for ever). A caller-owned pool keeps its own setting.
   */
  connectionTimeoutMs?: number;
  /**
   * The log's identity (1..256 characters, e.g. the tenant or deployment), bound into the link of
   * its first entry (`auditGenesisHash` of `@toolseal/audit`): another schema's genuine chain
   * copied into this one does not verify. Default none (genesis hash of 64 zeros, as before).
   * Set it when the log begins, the same on every host, and never change it.
   */
  logId?: string;
}

export interface PostgresStores {
  auditLog: AuditLog;
  idempotencyStore: IdempotencyStore;
  /**
   * The pool the stores use. When the stores created it, a host that wants to see lost idle
   * connections adds its own listener: `stores.pool.on('error', ...)`.
   */
  pool: Pool;
  /** The schema holding the tables. */
  schema: string;
  /** The schema version after opening. */
  schemaVersion: number;
  /**
   * Waits for every call made before it to settle (a write backing off after lost races included),
   * then ends the pool if the stores created it; a caller-owned pool stays open. Idempotent: every
   * later call answers the first call's promise, and ends nothing again. A store call made after
   * `close` began is not waited for: on a pool the stores created it rejects once the pool has
   * ended (pg: "Cannot use a pool after calling end on the pool"), writing nothing; on a
   * caller-owned pool it works as before, as long as that pool is open.
   */
  close(): Promise<void>;
}

interface RecordRow {
  key: string;
  request_sha256: string;
  intent_sha256: string | null;
  state: IdempotencyRecord['state'];
  owner: string;
  fencing_token: string;
  lease_expires_at: string;
  created_at: string;
  updated_at: string;
  sealed_json: string | null;
  receipt: string | null;
  delivery: 'fresh' | 'receipt_reconciled' | null;
  completed_at: string | null;
}

/** A record read with the token floor in one statement: the record's columns are NULL when the key has none. */
interface RecordAndFloorRow extends Omit<RecordRow, 'key'> {
  key: string | null;
  /** `idempotency_token_floor.token` (a `bigint`, as text). */
  token_floor: string;
}

interface PendingAppend {
  prepared: PreparedAuditEntry;
  resolve(row: StoredAuditRow): void;
  reject(error: unknown): void;
}

interface AuditRowText extends Omit<StoredAuditRow, 'sequence'> {
  sequence: string;
}

/** A row of a `verifyChain` page, with the canonical text of its page up to and including it. */
interface AuditPageRowText extends AuditRowText {
  /** `sum(octet_length(canonical))` over the page through this row (a `bigint`, as text). */
  text_through: string;
}

const RECORD_COLUMNS =
  'key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at, sealed_json, receipt, delivery, completed_at, intent_sha256';
const AUDIT_COLUMNS =
  'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';
/** Most entries one append transaction takes from the queue (group commit). */
const MAX_BATCH_ENTRIES = 64;
/** Most canonical text (UTF-16 code units) one append transaction takes, beyond its first entry. */
const MAX_BATCH_UNITS = 4 * 1024 * 1024;
/**
 * How long an append transaction may sit idle holding the audit head lock before the server ends
 * it (`idle_in_transaction_session_timeout`, set for that transaction only), plus the time its
 * inserts take to arrive at `HEAD_LOCK_MIN_BYTES_PER_SECOND` (the server counts a message still
 * arriving as idle time: a 1 MiB entry over a slow link must not be cut off). A live host sends its
 * inserts within milliseconds of the lock; one whose event loop stalls longer loses the
 * transaction (its appends reject, nothing is written) rather than every host waiting on it.
 */
export const HEAD_LOCK_IDLE_TIMEOUT_MS = 5_000;
/** The slowest link an append's inserts are allowed for (128 KiB/s, about 1 Mbit/s). */
const HEAD_LOCK_MIN_BYTES_PER_SECOND = 131_072;
/** TCP keepalive of the stores' own pool: the first probe after this much silence. */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;
/**
 * The idle bound of an append transaction: `HEAD_LOCK_IDLE_TIMEOUT_MS`, plus the batch's largest
 * possible size in UTF-8 (3 bytes a UTF-16 unit, and 2 KiB a row of its other columns) at
 * `HEAD_LOCK_MIN_BYTES_PER_SECOND`. Entries of a few KB add milliseconds; a 1 Mi-unit body, 24 s.
 */
function headLockIdleTimeoutMs(batch: readonly PreparedAuditEntry[]): number {
  let bytes = 0;
  for (const prepared of batch) bytes += prepared.bodyCanonical.length * 3 + 2_048;
  return HEAD_LOCK_IDLE_TIMEOUT_MS + Math.ceil((bytes * 1_000) / HEAD_LOCK_MIN_BYTES_PER_SECOND);
}

/**
 * What `verifyChain` gives the verifier for a missing `audit_head` row: a head no row can hold
 * (sequence 0 with no hash), which it reports as `edited` / `head_malformed` after every row.
 */
const MISSING_HEAD: AuditHead = { sequence: 0, entry_hash: '' };
/** Rows one `verifyChain` page fetches at most (one round trip). */
const VERIFY_PAGE_ROWS = 1000;
/**
 * Bytes of canonical text (UTF-8, as PostgreSQL stores it: never fewer than the text's UTF-16 code
 * units) after which a `verifyChain` page ends early, however few rows it holds, as in the SQLite
 * store. A page is checked synchronously once it arrives, and large bodies cost time (parsing,
 * hashing) and memory by their size, not their number: 1000 rows of 1 MB held a review's process
 * at about 1 GB and its event loop for seconds. A page holds at least one row, so an entry larger
 * than this is still checked, alone.
 */
const VERIFY_PAGE_TEXT = 262_144;
/** Records one `purgeExpired` statement deletes at most. */
const PURGE_BATCH_RECORDS = 1_000;
/** Re-reads allowed when other hosts keep changing the same record between read and write. */
const MAX_WRITE_ATTEMPTS = 32;
/** Lost races re-read at once; after them, each re-read waits a random time up to a doubling bound. */
const IMMEDIATE_RETRIES = 2;
/**
 * Largest bound of that wait (ms). A write that loses all 32 races waits at most 1 535 ms in all
 * (about half that on average), its pooled connection given back while it waits.
 */
const MAX_BACKOFF_MS = 64;
/**
 * The SQLSTATE the trigger `idempotency_records_above_token_floor` (schema version 5) raises: an inserted record's token
 * was at or below the token floor, a purge having raised it since the claim read it. Nothing was
 * written; the claim reads the floor again and re-plans.
 */
const TOKEN_AT_OR_BELOW_FLOOR = 'TSF01';
/**
 * Default `maxPendingUnits`: most canonical text (UTF-16 code units, about 128 MB) the appends
 * waiting for their transaction may hold together.
 */
export const DEFAULT_MAX_PENDING_UNITS = 16 * MAX_BATCH_UNITS;
/** @deprecated The same value under its earlier name, which read as a maximum: use `DEFAULT_MAX_PENDING_UNITS`. */
export const MAX_PENDING_UNITS = DEFAULT_MAX_PENDING_UNITS;
/** Default `maxPendingAppends`. */
export const DEFAULT_MAX_PENDING_APPENDS = 4096;
/** Default `connectionTimeoutMs` of a pool the stores create. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;
/** The members of `PostgresStoresOptions`: a member with any other name is refused at open. */
const POSTGRES_OPTION_NAMES: readonly string[] = [
  'pool',
  'connectionString',
  'schema',
  'clock',
  'digester',
  'maxBodyBytes',
  'maxPendingAppends',
  'maxPendingUnits',
  'connectionTimeoutMs',
  'logId',
];

/**
 * Opens (and migrates) the audit log and idempotency records in a PostgreSQL schema: the store
 * for many host replicas sharing one database. Idempotency writes are single conditional
 * statements (`INSERT ... ON CONFLICT DO NOTHING`, `UPDATE ... WHERE fencing_token = ... AND
 * state = ...`); audit appends lock the head row, so the chain stays linear across hosts.
 */
export async function openPostgresStores(options: PostgresStoresOptions): Promise<PostgresStores> {
  if (typeof options !== 'object' || options === null) throw new StoreInputError('options', 'must be an object');
  // Checked before any pool is made: a malformed or unknown option throws StoreInputError (a
  // malformed schema name RangeError), and nothing is created.
  checkOptionNames(options, POSTGRES_OPTION_NAMES);
  const poolOption: unknown = options.pool;
  const connectionStringOption: unknown = options.connectionString;
  if ((poolOption === undefined) === (connectionStringOption === undefined)) {
    throw new TypeError('openPostgresStores needs exactly one of pool and connectionString');
  }
  const callerPool = poolOption === undefined ? undefined : checkPool(poolOption);
  const connectionString = connectionStringOption === undefined ? undefined : checkConnectionString(connectionStringOption);
  const clockOption: unknown = options.clock;
  const clock = clockOption === undefined ? systemClock : checkClock(clockOption);
  // Unkeyed by default (removing the default would break existing hosts): a host whose dispatcher
  // digester is keyed passes that digester here, and `auditLog.keyed` says which one is in use.
  const digesterOption: unknown = options.digester;
  // `keyed` is the value checkDigester read and checked: `auditLog.keyed` never reads it again.
  const { digester, keyed } = checkDigester(digesterOption === undefined ? createDigester() : digesterOption);
  const genesisHash = auditGenesisHash(digester, options.logId);
  const maxBodyBytes = checkMaxBodyBytes(options.maxBodyBytes);
  const maxPendingAppends = checkIntegerInRange('maxPendingAppends', options.maxPendingAppends, {
    min: 1,
    max: 1_000_000,
    fallback: DEFAULT_MAX_PENDING_APPENDS,
    what: 'a whole number',
  });
  const maxPendingUnits = checkIntegerInRange('maxPendingUnits', options.maxPendingUnits, {
    min: 1,
    max: 2 ** 30,
    fallback: DEFAULT_MAX_PENDING_UNITS,
    what: 'a whole number',
  });
  if (callerPool !== undefined && options.connectionTimeoutMs !== undefined) {
    throw new StoreInputError('connectionTimeoutMs', 'applies only to the pool made from connectionString: set connectionTimeoutMillis on your own pool');
  }
  const connectionTimeoutMillis = checkIntegerInRange('connectionTimeoutMs', options.connectionTimeoutMs, {
    min: 1,
    max: 3_600_000,
    fallback: DEFAULT_CONNECTION_TIMEOUT_MS,
    what: 'a whole number',
  });
  // Read once, and refused unless a primitive string (RangeError): this one string is what every
  // statement, statement name and the returned `schema` use.
  const schemaOption: unknown = options.schema;
  const schema = schemaOption === undefined ? 'toolseal' : checkSchemaName(schemaOption);
  const s = quoteSchemaName(schema);
  const ownsPool = callerPool === undefined;
  // A pool of our own pipelines its queries: an append sends its inserts and COMMIT at once.
  // TCP keepalive (pg leaves it off), first probe after 10 s of silence (with `keepAlive` alone
  // the system's delay applies, two hours on Linux), so that a connection to a server that
  // vanished is found dead within minutes (about 11 with Linux's default probes), not hours.
  const pool =
    callerPool ??
    new pg.Pool({ connectionString, pipeline: true, connectionTimeoutMillis, keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS });
  // Left attached after `close`: a client still checked out then can report its loss later.
  if (ownsPool) pool.on('error', ignoreLostIdleConnection);
  let schemaVersion: number;
  try {
    const openedAt = readClock(clock);
    schemaVersion = await migratePostgres(pool, schema, formatRecordedAt(openedAt), openedAt);
  } catch (error) {
    if (ownsPool) await pool.end();
    throw error;
  }

  // Named statements are prepared once per connection by pg. The schema is part of the text,
  // so it is part of the name too (one pool may serve several schemas).
  const statement = (name: string, text: string) => {
    const prepared = postgresStatementName(schema, name);
    return (values: unknown[]): QueryConfig => ({ name: prepared, text, values });
  };

  // ------------------------------------------------------------------ idempotency records
  const selectRecord = statement('select_record', `SELECT ${RECORD_COLUMNS} FROM ${s}.idempotency_records WHERE key = $1`);
  const insertRecord = statement(
    'insert_record',
    `INSERT INTO ${s}.idempotency_records (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (key) DO NOTHING`,
  );
  const updateRecord = statement(
    'update_record',
    `UPDATE ${s}.idempotency_records SET request_sha256 = $2, state = $3, owner = $4, fencing_token = $5,
       lease_expires_at = $6, created_at = $7, updated_at = $8, sealed_json = $9, receipt = $10, delivery = $11,
       completed_at = $12, intent_sha256 = $13
     WHERE key = $1 AND fencing_token = $14 AND state = $15`,
  );
  // The record and the token floor from one snapshot (a claim's re-read after a lost race).
  const selectRecordAndFloor = statement(
    'select_record_floor',
    `SELECT ${RECORD_COLUMNS}, floor.token AS token_floor FROM ${s}.idempotency_token_floor AS floor
     LEFT JOIN ${s}.idempotency_records ON key = $1 WHERE floor.id = 1`,
  );
  // isPurgeable of @toolseal/audit, as SQL, one statement per kind of record. The trigger
  // idempotency_records_raise_token_floor raises the token floor to the highest token each
  // statement deletes, in the same transaction. One batch: at most $2 records of one kind, locked (rows another host is writing are skipped:
  // that write changes them anyway) and deleted by one statement, so it holds their row locks only
  // that long; the condition is checked again on the locked rows. One statement per kind, each a
  // range of the retention index (state, updated_at) or its state prefix, and rows deleted by
  // tuple id: an OR of both kinds, or a join back on `key`, was planned as a scan of the whole
  // table per batch (2.3 s for 100 000 records, against 0.16 s for one unbounded DELETE; 0.29 s now).
  const purgeBatch = (name: string, condition: string) =>
    statement(
      name,
      `DELETE FROM ${s}.idempotency_records WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${s}.idempotency_records WHERE ${condition} LIMIT $2 FOR UPDATE SKIP LOCKED))
       AND ${condition}`,
    );
  const purgeSettled = purgeBatch('purge_settled', `state IN ('completed', 'released') AND updated_at <= $1`);
  const purgeLapsedClaims = purgeBatch('purge_lapsed_claims', `state = 'claimed' AND lease_expires_at <= $1`);

  // isUnresolved of @toolseal/audit, as SQL. The contract orders keys by UTF-16 code units, which
  // no collation does (COLLATE "C" compares UTF-8 bytes: it puts characters above U+FFFF after
  // those from U+E000 to U+FFFF, UTF-16 before them), so the order by key is made in JS: the
  // statement returns the records created before the limit-th one and every record created at the
  // same millisecond as it, and `oldestFirst` sorts those and keeps `limit`. One statement: one
  // snapshot. One statement per digest column (request or intent), each served by its own index.
  const unresolvedBy = (name: string, column: 'request_sha256' | 'intent_sha256') =>
    statement(
      name,
      `WITH unresolved AS (
         SELECT ${RECORD_COLUMNS} FROM ${s}.idempotency_records
         WHERE ${column} = $1 AND (state IN ('started', 'unknown') OR (state = 'claimed' AND lease_expires_at > $2))
       )
       SELECT ${RECORD_COLUMNS} FROM unresolved
       WHERE created_at <= coalesce((SELECT created_at FROM unresolved ORDER BY created_at LIMIT 1 OFFSET $3), created_at)`,
    );
  const selectUnresolvedByRequest = unresolvedBy('select_unresolved', 'request_sha256');
  const selectUnresolvedByIntent = unresolvedBy('select_unresolved_int', 'intent_sha256');
  // `findCompleted`: the completed records of one intent digest, by the same index and in the same
  // way (the records up to the limit-th one's millisecond, ordered and cut in JS).
  const selectCompletedByIntent = statement(
    'select_completed_int',
    `WITH done AS (
       SELECT ${RECORD_COLUMNS} FROM ${s}.idempotency_records WHERE intent_sha256 = $1 AND state = 'completed'
     )
     SELECT ${RECORD_COLUMNS} FROM done
     WHERE created_at <= coalesce((SELECT created_at FROM done ORDER BY created_at LIMIT 1 OFFSET $2), created_at)`,
  );

  async function readRecord(key: string, db: PoolClient | Pool = pool): Promise<IdempotencyRecord | undefined> {
    const result = await db.query<RecordRow>(selectRecord([key]));
    const row = result.rows[0];
    return row === undefined ? undefined : recordFromRow(row);
  }

  /**
   * The highest token floor this store has read: a claim's first insert plans above it, saving a
   * round trip. It only ever rises, like the floor; one that a purge has outgrown since is caught
   * by the insert's floor check, and the claim reads the floor afresh.
   */
  let knownTokenFloor = 0;

  async function readRecordAndFloor(key: string, db: PoolClient): Promise<{ record: IdempotencyRecord | undefined; tokenFloor: number }> {
    const row = (await db.query<RecordAndFloorRow>(selectRecordAndFloor([key]))).rows[0];
    if (row === undefined) throw new Error('idempotency_token_floor row is missing');
    const { token_floor, key: recordKey, ...columns } = row;
    const tokenFloor = Number(token_floor);
    knownTokenFloor = Math.max(knownTokenFloor, tokenFloor);
    return { record: recordKey === null ? undefined : recordFromRow({ ...columns, key: recordKey }), tokenFloor };
  }

  async function applyWrite(write: PlannedWrite, db: PoolClient): Promise<boolean> {
    const values = recordValues(write.record);
    if (write.kind === 'update') {
      return (await db.query(updateRecord([...values, write.expected.fencing_token, write.expected.state]))).rowCount === 1;
    }
    try {
      return (await db.query(insertRecord(values))).rowCount === 1;
    } catch (error) {
      // A purge raised the floor after the claim read it: nothing was inserted; read and plan again.
      if ((error as { code?: unknown } | null)?.code === TOKEN_AT_OR_BELOW_FLOOR) return false;
      throw error;
    }
  }

  // Optimistic: read, plan, and apply the planned write only if the record is still the one
  // read (absent, or same fencing token and state). Each statement is atomic on its own, so no
  // transaction is held across round trips; a lost race re-reads and plans again. Each reading and
  // the write it plans share one connection, taken before the clock is read: waiting for a free
  // one (a busy pool) happens before the reading, not between the reading and the write it plans.
  //
  // A key's first claim (an insert) must get a token above every token of the key's purged
  // records: max(clock reading, token floor) + 1, the floor being raised by the trigger of every
  // DELETE in its transaction. Under READ COMMITTED, no floor the claim reads before its insert is
  // enough on its own: INSERT ... ON CONFLICT DO NOTHING that meets the row of a purge still in
  // progress waits for it and, once it commits, inserts, with values from before the purge (even a
  // floor read in the same statement comes from the statement's older snapshot; checked against
  // PostgreSQL 15). So the floor the claim plans with is only a first guess (the highest this
  // store read, then the one read with the record in one statement, one snapshot), and the insert
  // trigger idempotency_records_above_token_floor decides: it reads the floor after the row is inserted,
  // with a fresh snapshot, which holds the raise of any purge that removed the key's previous
  // record (that purge committed before the insert could go ahead, or the insert would have met
  // the row: ON CONFLICT, re-read). Refused (TOKEN_AT_OR_BELOW_FLOOR), the claim re-reads record
  // and floor and plans again, like any lost race. Updates (takeover, claim after release, fenced
  // writes) keep the record they read, so no purge came between: their conditional UPDATE matches
  // no row once the record is gone.
  async function run(operation: IdempotencyOperation): Promise<ClaimOutcome | FencedOutcome> {
    const checked = checkIdempotencyOperation(operation);
    let attempt = 0;
    // A claim first tries the insert: one round trip for a new key. Not with a floor at
    // FENCING_TOKEN_BOUND (schema version 7: only a role that lifted it there on purpose puts it
    // there): the insert's token, the floor + 1, would break the records' bound, which PostgreSQL
    // checks before it looks for the key's row, so even a replay of a completed key would fail.
    // Read first instead: a stored record is answered as usual, and only a key without one fails
    // (its insert refused by the constraint, nothing written).
    let reread = checked.type !== 'claim' || knownTokenFloor >= FENCING_TOKEN_BOUND;
    let current: IdempotencyRecord | undefined;
    let tokenFloor = knownTokenFloor;
    for (;;) {
      // One pooled connection per stretch of attempts, given back before a backoff waits: a write
      // that keeps losing races does not hold a connection other callers of the pool need.
      const outcome = await withPoolClient(pool, async (client) => {
        for (;;) {
          attempt += 1;
          if (reread) {
            if (checked.type === 'claim') ({ record: current, tokenFloor } = await readRecordAndFloor(checked.input.key, client));
            else current = await readRecord(checked.input.key, client);
          }
          reread = true;
          // Each attempt plans from a fresh reading, as the other stores do: a retry may come after
          // a purge deleted the record, and a first token planned from an older reading could repeat
          // one the key already handed out (a fenced-off owner's token would match again).
          const now = readClock(clock);
          const planned =
            checked.type === 'claim'
              ? planIdempotencyTransition(current, checked, now, tokenFloor)
              : planIdempotencyTransition(current, checked, now);
          if (planned.write === null || (await applyWrite(planned.write, client))) return planned.outcome;
          if (attempt === MAX_WRITE_ATTEMPTS) throw new PostgresWriteContentionError(attempt);
          if (attempt > IMMEDIATE_RETRIES) return null;
        }
      });
      if (outcome !== null) return outcome;
      // Writers that keep meeting each other's changes back off (randomly, so they fall apart):
      // re-reading at once let a few hosts with millisecond leases starve a claim for 32 rounds.
      const bound = Math.min(MAX_BACKOFF_MS, 2 ** (attempt - IMMEDIATE_RETRIES - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
    }
  }

  const idempotencyStore: IdempotencyStore = {
    claim: async (input) => (await run({ type: 'claim', input })) as ClaimOutcome,
    markStarted: async (input) => (await run({ type: 'markStarted', input })) as FencedOutcome,
    complete: async (input) => (await run({ type: 'complete', input })) as FencedOutcome,
    release: async (input) => (await run({ type: 'release', input })) as FencedOutcome,
    markUnknown: async (input) => (await run({ type: 'markUnknown', input })) as FencedOutcome,
    reconcile: async (input) => (await run({ type: 'reconcile', input })) as FencedOutcome,
    get: async (key) => readRecord(checkIdentifier('key', key)),
    findUnresolved: async (input) => {
      const checked = checkFindUnresolvedInput(input);
      const { limit } = checked;
      const query =
        'intent_sha256' in checked
          ? selectUnresolvedByIntent([checked.intent_sha256, readClock(clock), limit - 1])
          : selectUnresolvedByRequest([checked.request_sha256, readClock(clock), limit - 1]);
      const result = await pool.query<RecordRow>(query);
      return oldestFirst(result.rows.map(recordFromRow), limit);
    },
    findCompleted: async (input) => {
      const { intent_sha256, limit } = checkFindCompletedInput(input);
      const result = await pool.query<RecordRow>(selectCompletedByIntent([intent_sha256, limit - 1]));
      return oldestFirst(result.rows.map(recordFromRow), limit);
    },
    purgeExpired: async (input) => {
      // Batches, as the SQLite store deletes: one unbounded DELETE of a large backlog would hold
      // its row locks until the last row, and claims of those keys would wait that long. The
      // clock is read once: every batch uses that cutoff, so the purge ends while records keep
      // expiring.
      const cutoff = readClock(clock) - checkPurgeInput(input);
      let purged = 0;
      for (const purgeKind of [purgeSettled, purgeLapsedClaims]) {
        for (;;) {
          const deleted = (await pool.query(purgeKind([cutoff, PURGE_BATCH_RECORDS]))).rowCount ?? 0;
          purged += deleted;
          if (deleted < PURGE_BATCH_RECORDS) break;
        }
      }
      return purged;
    },
  };

  // ------------------------------------------------------------------ audit log
  // BEGIN and the head lock share one round trip (simple protocol, no parameters). A host that
  // vanishes holding the lock without closing its connection (a partition, a frozen VM) would stall
  // every host's appends until the server's TCP keepalive gives up on it (two hours by default):
  // the server ends such a transaction once it has sat idle for HEAD_LOCK_IDLE_TIMEOUT_MS, plus
  // the time the batch's inserts may take to arrive over a slow link (`headLockIdleTimeoutMs`).
  const lockHead = `SELECT sequence, entry_hash FROM ${s}.audit_head WHERE id = 1 FOR UPDATE`;
  const beginAndLockHead = (batch: readonly PreparedAuditEntry[]): string =>
    `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${headLockIdleTimeoutMs(batch)}; ${lockHead}`;
  const insertAudit = statement(
    'insert_audit',
    `INSERT INTO ${s}.audit_log (${AUDIT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
  );
  const selectHead = statement('select_head', `SELECT sequence, entry_hash FROM ${s}.audit_head WHERE id = 1`);
  const selectAuditAt = statement('select_audit_at', `SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_log WHERE sequence = $1`);
  // At most VERIFY_PAGE_ROWS rows, cut after the row whose text reaches VERIFY_PAGE_TEXT: a row
  // is sent only while the text before it is under the budget, so the first row always is.
  // `octet_length` reads a stored (even compressed) text's size from its header, without
  // decompressing it: rows past the cut cost the server no more than before, and are never sent.
  const selectAuditPage = statement(
    'select_audit_page',
    `SELECT ${AUDIT_COLUMNS}, text_through FROM (
       SELECT ${AUDIT_COLUMNS}, sum(octet_length(canonical)) OVER (ORDER BY sequence ROWS UNBOUNDED PRECEDING) AS text_through
       FROM ${s}.audit_log WHERE sequence >= $1 ORDER BY sequence LIMIT ${VERIFY_PAGE_ROWS}
     ) AS page WHERE text_through - octet_length(canonical) < ${VERIFY_PAGE_TEXT} ORDER BY sequence`,
  );

  // Group commit: appends that arrive while a transaction is in flight wait in `pending` and go
  // into the next transaction together, chained in JS under one head lock. One caller pays the
  // same two round trips as before; concurrent callers of one host share the lock, the commit and
  // its WAL flush instead of queueing for the lock one by one. Entries were checked and
  // canonicalized before they queue, so nothing about one entry's data can fail the others (a text
  // trusted code remembered for a projection is written as remembered: see the README).
  const pending: PendingAppend[] = [];
  /** The canonical text waiting in `pending`, in UTF-16 code units. */
  let pendingUnits = 0;
  let flushing = false;

  function append(prepared: PreparedAuditEntry): Promise<StoredAuditRow> {
    const units = prepared.bodyCanonical.length;
    // Bounded by count and by text: a database that stops answering cannot make the host hold an
    // ever-growing queue. An entry alone always fits (its body is within maxBodyBytes).
    if (pending.length >= maxPendingAppends || (pending.length > 0 && pendingUnits + units > maxPendingUnits)) {
      return Promise.reject(new PostgresAppendQueueFullError(pending.length));
    }
    pendingUnits += units;
    return new Promise<StoredAuditRow>((resolve, reject) => {
      pending.push({ prepared, resolve, reject });
      if (!flushing) void flushPending();
    });
  }

  async function flushPending(): Promise<void> {
    flushing = true;
    try {
      while (pending.length > 0) {
        const batch = takeBatch(pending);
        for (const item of batch) pendingUnits -= item.prepared.bodyCanonical.length;
        try {
          const rows = await appendBatch(batch.map((item) => item.prepared));
          batch.forEach((item, index) => item.resolve(rows[index] as StoredAuditRow));
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  function appendBatch(batch: readonly PreparedAuditEntry[]): Promise<StoredAuditRow[]> {
    return withPoolClient(pool, async (client) => {
      try {
        const results = (await client.query(beginAndLockHead(batch))) as unknown as Array<{ rows: { sequence: string; entry_hash: string }[] }>;
        const head = results[2]?.rows[0];
        if (head === undefined) throw new Error('audit_head row is missing');
        let sequence = Number(head.sequence);
        let previousHash = sequence === 0 ? genesisHash : head.entry_hash;
        const rows: StoredAuditRow[] = [];
        for (const prepared of batch) {
          // Read the clock while holding the head lock, so `recorded_at` follows the chain order
          // as far as the hosts' clocks agree.
          const row = sealAuditEntry(
            prepared,
            { sequence: sequence + 1, recorded_at: formatRecordedAt(readClock(clock)), previous_hash: previousHash },
            digester,
          );
          rows.push(row);
          sequence = row.sequence;
          previousHash = row.entry_hash;
        }
        if (client.pipeline) {
          // One round trip for every insert and the commit. An insert that fails aborts the
          // transaction: the statements behind it fail too, and COMMIT answers ROLLBACK.
          const sent = [...rows.map((row) => client.query(insertAudit(auditValues(row)))), client.query('COMMIT')];
          const settled = await Promise.allSettled(sent);
          const failed = settled.find((outcome) => outcome.status === 'rejected');
          if (failed !== undefined) throw failed.reason;
          const commit = settled[settled.length - 1];
          if (commit?.status !== 'fulfilled' || commit.value.command !== 'COMMIT') {
            throw new Error('audit append transaction was rolled back');
          }
        } else {
          for (const row of rows) await client.query(insertAudit(auditValues(row)));
          await client.query('COMMIT');
        }
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  function headFrom(row: { sequence: string; entry_hash: string } | undefined): AuditHead | null {
    if (row === undefined) throw new Error('audit_head row is missing');
    const sequence = Number(row.sequence);
    return sequence === 0 ? null : { sequence, entry_hash: row.entry_hash };
  }

  async function verify(client: PoolClient, from: number, anchor: AuditHead | undefined): Promise<ChainVerification> {
    const headRow = (await client.query<{ sequence: string; entry_hash: string }>(selectHead([]))).rows[0];
    // A missing head row (removed with the triggers disabled) is tampering to report, not an
    // error to retry: a monitor that treats exceptions as transient would never flag it. Given
    // to the verifier as a head no row can hold, it checks every row first (an earlier bad row is
    // reported as such), then reports `head_malformed` where the head should point, named
    // `head_missing` here.
    const storedHead = headRow === undefined ? MISSING_HEAD : headFrom(headRow);
    let previousHash: string | null = genesisHash;
    if (from > 1) {
      const previous = (await client.query<AuditRowText>(selectAuditAt([from - 1]))).rows[0];
      previousHash = previous === undefined ? null : previous.entry_hash;
    }
    const verifier = new AuditChainVerifier({
      digester,
      from,
      previousHash,
      storedHead,
      ...(anchor === undefined ? {} : { anchor }),
    });
    const finish = (): ChainVerification => {
      const verification = verifier.finish();
      return headRow === undefined && !verification.ok && verification.detail === 'head_malformed'
        ? { ...verification, detail: 'head_missing' }
        : verification;
    };
    // The page cursor stays the column's own text: a (forged) sequence above 2^53 read as a
    // number would lose the `+ 1` and could land below the page, fetching it again for ever.
    const fetchPage = (start: string): Promise<AuditPageRowText[]> => {
      const page = client.query<AuditPageRowText>(selectAuditPage([start])).then((result) => result.rows);
      // Handled here too: a page asked for ahead and never awaited (the verdict came first) must
      // not reject unhandled. Awaiting it still throws; COMMIT queues behind it on the client.
      page.catch(() => undefined);
      return page;
    };
    let page: Promise<AuditPageRowText[]> | null = fetchPage(String(from));
    while (page !== null) {
      const rows: AuditPageRowText[] = await page;
      const last = rows[rows.length - 1];
      // The next page is asked for before this one is checked, so the server reads and sends it
      // meanwhile (at most two pages held): one page at a time, a log of 1 MB entries took half
      // as long again to verify.
      page = last !== undefined && pageWasCut(rows.length, last) ? fetchPage((BigInt(last.sequence) + 1n).toString()) : null;
      for (const row of rows) {
        if (!verifier.push(auditRowFromPage(row))) return finish();
      }
      // Timers and I/O callbacks of the process run before the next page is checked, as in the
      // SQLite store, even when that page has already arrived.
      if (page !== null) await setImmediate();
    }
    return finish();
  }

  const querySql = new Map<string, string>();
  function queryText(query: NormalizedAuditQuery): { text: string; values: unknown[] } {
    const values: unknown[] = [query.after];
    const conditions = ['sequence > $1'];
    const add = (column: string, operator: string, value: string | null) => {
      if (value === null) return;
      values.push(value);
      conditions.push(`${column} ${operator} $${values.length}`);
    };
    add('kind', '=', query.kind);
    add('call_id', '=', query.call_id);
    add('operation_id', '=', query.operation_id);
    add('idempotency_key', '=', query.idempotency_key);
    add('recorded_at', '>=', query.from_time);
    add('recorded_at', '<', query.to_time);
    values.push(query.limit + 1);
    const shape = conditions.join(' AND ');
    let text = querySql.get(shape);
    if (text === undefined) {
      text = `SELECT ${AUDIT_COLUMNS} FROM ${s}.audit_log WHERE ${shape} ORDER BY sequence LIMIT $${values.length}`;
      querySql.set(shape, text);
    }
    return { text, values };
  }

  const auditLog: AuditLog = {
    keyed,
    async append(input: AuditEntryInput): Promise<AuditEntry> {
      const prepared = prepareAuditEntry(input, maxBodyBytes === undefined ? {} : { maxBodyBytes });
      const row = await append(prepared);
      return auditEntryWithBody(row, prepared.body);
    },
    async verifyChain(verifyOptions?: VerifyChainOptions): Promise<ChainVerification> {
      // Before a connection is taken: a malformed `from` or anchor throws a RangeError.
      const { from, anchor } = checkVerifyChainOptions(verifyOptions);
      return withPoolClient(pool, async (client) => {
        try {
          // One snapshot for the head and every page of rows.
          await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
          const verification = await verify(client, from, anchor);
          await client.query('COMMIT');
          return verification;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    },
    async query(filter: AuditQuery, page: AuditPageRequest): Promise<AuditPage> {
      const query = normalizeAuditQuery(filter, page);
      const rows = (await pool.query<AuditRowText>(queryText(query))).rows;
      const more = rows.length > query.limit;
      const entries = rows.slice(0, query.limit).map((row) => auditEntryFromRow(auditRowFromText(row)));
      return { entries, next: more ? (entries[entries.length - 1]?.sequence ?? null) : null };
    },
    async head(): Promise<AuditHead | null> {
      return headFrom((await pool.query<{ sequence: string; entry_hash: string }>(selectHead([]))).rows[0]);
    },
  };

  // Every call's promise until it settles: `close` waits for the calls made before it.
  const inFlight = new Set<Promise<unknown>>();
  // The first close's promise, which every later close answers: pg's `end` rejects a second call
  // ("Called end on pool more than once"), and a host's shutdown often closes twice (a signal
  // handler, then a `finally`), as the SQLite store allows.
  let closing: Promise<void> | undefined;
  const closeOnce = async (): Promise<void> => {
    // A write backing off after lost races holds no connection while it waits, so ending the
    // pool at once would fail its next attempt (writing nothing, but failing a call that was
    // made before close). Calls made after close began are not waited for.
    await Promise.allSettled([...inFlight]);
    if (ownsPool) await pool.end();
  };
  return {
    auditLog: tracked(auditLog, inFlight),
    idempotencyStore: tracked(idempotencyStore, inFlight),
    pool,
    schema,
    schemaVersion,
    close: () => (closing ??= closeOnce()),
  };
}

/** `store` with the promise of each of its method calls kept in `inFlight` until it settles. */
function tracked<Store extends object>(store: Store, inFlight: Set<Promise<unknown>>): Store {
  const wrapped: Record<string, unknown> = { ...(store as Record<string, unknown>) };
  for (const [name, method] of Object.entries(store)) {
    if (typeof method !== 'function') continue;
    wrapped[name] = (...args: unknown[]): unknown => {
      const running: unknown = Reflect.apply(method, store, args);
      if (running instanceof Promise) {
        inFlight.add(running);
        const settled = (): void => {
          inFlight.delete(running);
        };
        running.then(settled, settled);
      }
      return running;
    };
  }
  return wrapped as Store;
}


function recordFromRow(row: RecordRow): IdempotencyRecord {
  return {
    key: row.key,
    request_sha256: row.request_sha256,
    intent_sha256: row.intent_sha256,
    state: row.state,
    owner: row.owner,
    fencing_token: Number(row.fencing_token),
    lease_expires_at: Number(row.lease_expires_at),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    result:
      row.sealed_json === null || row.delivery === null || row.completed_at === null
        ? null
        : { sealed_json: row.sealed_json, receipt: row.receipt, delivery: row.delivery, completed_at: Number(row.completed_at) },
  };
}

function recordValues(record: IdempotencyRecord): unknown[] {
  return [
    record.key,
    record.request_sha256,
    record.state,
    record.owner,
    record.fencing_token,
    record.lease_expires_at,
    record.created_at,
    record.updated_at,
    record.result?.sealed_json ?? null,
    record.result?.receipt ?? null,
    record.result?.delivery ?? null,
    record.result?.completed_at ?? null,
    record.intent_sha256,
  ];
}

/**
 * The `pool` option: what the stores call on a pool of the caller's (`connect` and `query`), or
 * StoreInputError, so a malformed pool fails at open rather than as "pool.connect is not a
 * function" (or, for `null`, a pool made from pg's environment defaults).
 */
function checkPool(value: unknown): Pool {
  const members = value as Partial<Record<'connect' | 'query', unknown>> | null;
  if (typeof value !== 'object' || members === null || typeof members.connect !== 'function' || typeof members.query !== 'function') {
    throw new StoreInputError('pool', 'must be a pg Pool (an object with connect() and query()), or leave it out and give connectionString');
  }
  return value as Pool;
}

/** The `connectionString` option: a non-empty string (pg would fall back to its environment defaults for an empty one). */
function checkConnectionString(value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new StoreInputError('connectionString', 'must be a non-empty string, or leave it out and give pool');
  }
  return value;
}

function auditValues(row: StoredAuditRow): unknown[] {
  return [
    row.sequence,
    row.recorded_at,
    row.kind,
    row.call_id,
    row.operation_id,
    row.idempotency_key,
    row.previous_hash,
    row.entry_hash,
    row.canonical,
  ];
}

/** Removes and returns the next batch: at least one entry, then up to the entry and size caps. */
function takeBatch(pending: PendingAppend[]): PendingAppend[] {
  let count = 0;
  let units = 0;
  while (count < pending.length && count < MAX_BATCH_ENTRIES) {
    units += (pending[count] as PendingAppend).prepared.bodyCanonical.length;
    if (count > 0 && units > MAX_BATCH_UNITS) break;
    count += 1;
  }
  return pending.splice(0, count);
}

function auditRowFromText(row: AuditRowText): StoredAuditRow {
  return { ...row, sequence: Number(row.sequence) };
}

/** A `verifyChain` page row as the verifier takes it: the stored row alone. */
function auditRowFromPage({ text_through: _textThrough, ...row }: AuditPageRowText): StoredAuditRow {
  return auditRowFromText(row);
}

/**
 * Whether a `verifyChain` page ended at one of its bounds (rows or text) rather than at the end
 * of the log: only then may rows follow it.
 */
function pageWasCut(rowCount: number, last: AuditPageRowText): boolean {
  return rowCount === VERIFY_PAGE_ROWS || Number(last.text_through) >= VERIFY_PAGE_TEXT;
}

/**
 * The 'error' listener of the pool the stores create. pg-pool emits 'error' when the server ends
 * an idle connection (restart, failover, a proxy's idle timeout, `pg_terminate_backend`), and
 * with no listener Node ends the host process. By then the pool has discarded the client and the
 * next call opens a fresh connection, so there is nothing left to do here; if the database stays
 * away, that call rejects. A host that wants to log these adds its own listener to `stores.pool`.
 */
function ignoreLostIdleConnection(): void {}
