import { setImmediate } from 'node:timers/promises';
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
  type StoredAuditRow,
  type VerifyChainOptions,
} from '@toolseal/audit';
import { createDigester, type Digester } from '@toolseal/digests';
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import { checkDatabaseFile, sqliteOpenRefusal } from './check-database-file.js';
import { filesInPlace } from './files-in-place.js';
import { checkSqliteSchema } from './check-sqlite-schema.js';
import { checkWritable } from './check-writable.js';
import { SQLITE_BATCH_LIMITS } from './sqlite-batch-limits.js';
import { SqliteLockWaiter } from './sqlite-lock-waiter.js';
import { applyCheckedSqliteMigrations } from './migrate-sqlite.js';

/** Default `busyTimeoutMs`: the longest one attempt to take a lock blocks the event loop. */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 25;
/** Largest `busyTimeoutMs` accepted: beyond it, one attempt would stall every timer of the process. */
export const MAX_SQLITE_BUSY_TIMEOUT_MS = 1_000;
/**
 * Default `lockTimeoutMs`: half the dispatcher's default `storeTimeoutMs` (10 000), so that with
 * both defaults a store call gives up (writing nothing) before the dispatcher stops waiting for it.
 */
export const DEFAULT_SQLITE_LOCK_TIMEOUT_MS = 5_000;
/** Largest `lockTimeoutMs` accepted (one hour, the dispatcher's largest `storeTimeoutMs`). */
export const MAX_SQLITE_LOCK_TIMEOUT_MS = 3_600_000;

export interface SqliteStoresOptions {
  /**
   * Database file path, or `:memory:` (tests: one connection only, nothing survives close). A
   * SQLite URI (`file:...`) is refused: better-sqlite3 would open a file of that name.
   */
  path: string;
  /** Time source for leases, retention and `recorded_at` (default: the system clock). */
  clock?: Clock;
  /**
   * Audit chain digester (default: unkeyed `createDigester()`); pass `createDigester({ key })` for
   * an HMAC chain: the same digester as the host's dispatcher, whose keyed mode `auditLog.keyed`
   * reports. One without `digestTagged`, `digestText` or a boolean `keyed` is refused at open.
   */
  digester?: Digester;
  /**
   * The longest one attempt to take a lock another connection holds blocks the thread (SQLite's
   * `busy_timeout`), in whole ms from 0 to 1 000 (default 25). better-sqlite3 is synchronous: while
   * an attempt waits, no timer or I/O callback of the process runs. A call that still meets the
   * lock tries again after a pause on a timer (the event loop runs), until `lockTimeoutMs`.
   */
  busyTimeoutMs?: number;
  /**
   * The longest a store call waits in total for a lock another connection or process holds, in
   * whole ms from 0 to 3 600 000 (default 5 000); then it rejects with `SqliteLockTimeoutError`,
   * having written nothing. The call settles at most about `lockTimeoutMs + busyTimeoutMs` (plus
   * its own work) after it was made; `purgeExpired` and `verifyChain` work in batches and pages,
   * and each of those waits for a lock up to this long on its own. Keep that below the dispatcher's `storeTimeoutMs` (default
   * 10 000), so that the store always answers first and never writes after the dispatcher stopped
   * waiting (see the README, "Lock contention"). `openSqliteStores` itself, synchronous, may block
   * up to this long when it must create or migrate the schema while another connection writes.
   */
  lockTimeoutMs?: number;
  /**
   * `full` (default): every commit is on disk before it returns, surviving power loss.
   * `normal`: survives a process crash, may lose the last commits on power loss (faster).
   */
  synchronous?: 'full' | 'normal';
  /** Largest canonical audit body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * The log's identity (1..256 characters, e.g. the tenant or deployment), bound into the link of
   * its first entry (`auditGenesisHash` of `@toolseal/audit`): another log's genuine chain copied
   * into this file does not verify. Default none (genesis hash of 64 zeros, as before). Set it
   * when the log begins, the same on every connection, and never change it.
   */
  logId?: string;
}

export interface SqliteStores {
  auditLog: AuditLog;
  idempotencyStore: IdempotencyStore;
  /**
   * The underlying better-sqlite3 connection, for backups and diagnostics. Writing to the
   * toolseal tables through it bypasses every guarantee of the stores.
   */
  database: Database;
  /** The schema version the database is at after opening. */
  schemaVersion: number;
  /**
   * Closes the connection. A store call still waiting for a lock then fails at its next attempt
   * (better-sqlite3's "connection is not open"), having written nothing.
   */
  close(): void;
}

interface RecordRow {
  key: string;
  request_sha256: string;
  intent_sha256: string | null;
  state: IdempotencyRecord['state'];
  owner: string;
  fencing_token: number;
  lease_expires_at: number;
  created_at: number;
  updated_at: number;
  sealed_json: string | null;
  receipt: string | null;
  delivery: 'fresh' | 'receipt_reconciled' | null;
  completed_at: number | null;
}

interface RecordParameters extends RecordRow {
  expected_token: number;
  expected_state: string;
}

/** An audit row as a `verifyChain` page reads it: the stored row, and its sequence as exact text. */
interface AuditPageRow extends StoredAuditRow {
  /** `sequence` as SQLite's decimal text: exact where a number above 2^53 is not. */
  sequence_text: string;
}

/** One page of a verification: rows in sequence order, and where the next page starts. */
interface AuditRowsPage {
  rows: StoredAuditRow[];
  /** The sequence the next page starts at (exact), or `null` when no row is left up to the end. */
  next: bigint | null;
}

/** The members of `SqliteStoresOptions`: a member with any other name is refused at open. */
const SQLITE_OPTION_NAMES: readonly string[] = [
  'path',
  'clock',
  'digester',
  'busyTimeoutMs',
  'lockTimeoutMs',
  'synchronous',
  'maxBodyBytes',
  'logId',
];

/** What a verification gives the verifier for a missing `audit_head` row: a head no row can hold. */
const MISSING_HEAD: AuditHead = Object.freeze({ sequence: 0, entry_hash: '' });
const AUDIT_COLUMNS =
  'sequence, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical';
const RECORD_COLUMNS =
  'key, request_sha256, intent_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at, sealed_json, receipt, delivery, completed_at';

/**
 * Opens (and migrates) a SQLite database holding the audit log and the idempotency records: the
 * embedded default store. WAL mode, so many connections (threads or processes) can share one
 * file; every write is a BEGIN IMMEDIATE transaction, so they serialize on SQLite's write lock.
 * A call that meets another connection's lock waits for it without holding the event loop
 * (`busyTimeoutMs`, `lockTimeoutMs`).
 */
export function openSqliteStores(options: SqliteStoresOptions): SqliteStores {
  if (typeof options !== 'object' || options === null) throw new StoreInputError('options', 'must be an object');
  // Checked before the file is opened: a malformed or unknown option throws StoreInputError, nothing is created.
  checkOptionNames(options, SQLITE_OPTION_NAMES);
  const path = checkDatabasePath(options.path);
  const synchronous = checkSynchronous(options.synchronous);
  const clockOption: unknown = options.clock;
  const clock = clockOption === undefined ? systemClock : checkClock(clockOption);
  // Unkeyed by default (removing the default would break existing hosts): a host whose dispatcher
  // digester is keyed passes that digester here, and `auditLog.keyed` says which one is in use.
  const digesterOption: unknown = options.digester;
  // `keyed` is the value checkDigester read and checked: `auditLog.keyed` never reads it again.
  const { digester, keyed } = checkDigester(digesterOption === undefined ? createDigester() : digesterOption);
  const maxBodyBytes = checkMaxBodyBytes(options.maxBodyBytes);
  const busyTimeoutMs = checkIntegerInRange('busyTimeoutMs', options.busyTimeoutMs, {
    min: 0,
    max: MAX_SQLITE_BUSY_TIMEOUT_MS,
    fallback: DEFAULT_SQLITE_BUSY_TIMEOUT_MS,
    what: 'a whole number of milliseconds',
    why: 'one attempt to take a lock blocks the event loop this long; the total wait is lockTimeoutMs',
  });
  const lockTimeoutMs = checkIntegerInRange('lockTimeoutMs', options.lockTimeoutMs, {
    min: 0,
    max: MAX_SQLITE_LOCK_TIMEOUT_MS,
    fallback: DEFAULT_SQLITE_LOCK_TIMEOUT_MS,
    what: 'a whole number of milliseconds',
    why: 'the total wait of one store call for a lock',
  });
  const genesisHash = auditGenesisHash(digester, options.logId);
  const lock = new SqliteLockWaiter(lockTimeoutMs);
  let database: Database;
  try {
    database = new BetterSqlite3(path);
  } catch (error) {
    // SQLITE_CANTOPEN from a file checkDatabasePath could not foresee (a name too long, one this
    // process may write but not read): a StoreInputError on `path`, as the README says.
    throw sqliteOpenRefusal(error, path) ?? error;
  }
  let schemaVersion: number;
  /** The file and its -shm as opened: every write checks them first (`files-in-place.ts`). */
  let files: { check(): void } | null;
  try {
    // Opening is synchronous (start-up): switching to WAL and creating or migrating the schema may
    // wait for another connection's write lock, blocking, up to the whole lock timeout. Reopening
    // an up-to-date file waits for no write lock (the migrations read the version first); the
    // read-only probe takes it for a moment when it is free (`checkWritable`).
    database.pragma(`busy_timeout = ${Math.max(busyTimeoutMs, lockTimeoutMs)}`);
    // Before the first write (switching a rollback-journal file to WAL rewrites its header, the
    // migrations create tables): a file that is not this store's database, or one whose triggers
    // were dropped, is refused exactly as it was. A read, like reopening.
    checkSqliteSchema(database, path);
    if (path !== ':memory:') database.pragma('journal_mode = WAL');
    database.pragma(`synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    const openedAt = readClock(clock);
    // The file changed since the check (a process of a newer version upgraded it before this one
    // took the write lock): refused in the same words as when the check had seen it.
    schemaVersion = applyCheckedSqliteMigrations(database, path, formatRecordedAt(openedAt), openedAt);
    // An up-to-date file is reopened without a write: a read-only one must not pass for healthy.
    checkWritable(database, path);
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // The file as SQLite opened it (absolute, symbolic links followed): its -wal and -shm are named after it.
    files = path === ':memory:' ? null : filesInPlace(mainDatabaseFile(database));
  } catch (error) {
    // SQLite finds some files it cannot open for writing only when it first reads or writes them
    // (a WAL file in a directory this process may not write: SQLITE_READONLY_DIRECTORY). Decided
    // before the connection is closed: closing frees descriptors, and a process that had none
    // left would then pass the descriptor probe and read as a problem with `path`.
    const refusal = sqliteOpenRefusal(error, path);
    database.close();
    throw refusal ?? error;
  }

  /**
   * Under the write lock, before each write: the file, its -wal and -shm are the ones opened (a
   * check before the lock would let files moved while it waited be written). Once the store is
   * closed, SQLite deleted them itself, and the write fails as on any closed connection.
   */
  function checkFilesInPlace(): void {
    if (database.open) files?.check();
  }

  // ------------------------------------------------------------------ idempotency records
  /** The file SQLite opened for the main database, as it names it (absolute, links followed). */
  function mainDatabaseFile(connection: Database): string {
    const rows = connection.pragma('database_list') as Array<{ name: string; file: string }>;
    const file = rows.find((row) => row.name === 'main')?.file;
    if (file === undefined || file === '') throw new Error('store-sqlite: SQLite names no file for the main database');
    return file;
  }

  const selectRecord = database.prepare<[string], RecordRow>(`SELECT ${RECORD_COLUMNS} FROM idempotency_records WHERE key = ?`);
  const insertRecord = database.prepare<[RecordRow]>(
    `INSERT INTO idempotency_records (${RECORD_COLUMNS}) VALUES (@key, @request_sha256, @intent_sha256, @state, @owner, @fencing_token,
      @lease_expires_at, @created_at, @updated_at, @sealed_json, @receipt, @delivery, @completed_at)`,
  );
  const updateRecord = database.prepare<[RecordParameters]>(
    `UPDATE idempotency_records SET request_sha256 = @request_sha256, intent_sha256 = @intent_sha256, state = @state, owner = @owner,
      fencing_token = @fencing_token, lease_expires_at = @lease_expires_at, updated_at = @updated_at,
      sealed_json = @sealed_json, receipt = @receipt, delivery = @delivery, completed_at = @completed_at
     WHERE key = @key AND fencing_token = @expected_token AND state = @expected_state`,
  );
  const selectTokenFloor = database.prepare<[], { token: number }>('SELECT token FROM idempotency_token_floor WHERE id = 1');
  // isPurgeable of @toolseal/audit, as SQL. One batch: at most @limit records, found through the
  // retention index (state, updated_at), deleted in one statement of its own transaction (after
  // the files' check, `purgeTransaction`), so it writes all or nothing and holds the write lock
  // only that long. The trigger
  // idempotency_records_raise_token_floor raises the token floor to the highest token it deletes
  // within that statement: the batch and the raise commit together, and a key's next first claim
  // starts above every token the purged record handed out, whatever the clock does.
  const purgeBatch = database.prepare<[{ cutoff: number; limit: number }]>(
    `DELETE FROM idempotency_records WHERE key IN (
       SELECT key FROM idempotency_records
       WHERE (state IN ('completed', 'released') AND updated_at <= @cutoff)
          OR (state = 'claimed' AND lease_expires_at <= @cutoff)
       LIMIT @limit)`,
  );
  const purgeTransaction = database.transaction((cutoff: number, limit: number) => {
    checkFilesInPlace();
    return purgeBatch.run({ cutoff, limit }).changes;
  });
  // isUnresolved of @toolseal/audit, as SQL. SQLite compares TEXT by the bytes of its UTF-8 and
  // the contract orders keys by UTF-16 code units (the two orders disagree between a character
  // above U+FFFF and one from U+E000 to U+FFFF), so the order by key is made in JS: the statement
  // returns the records created before the limit-th one and every record created at the same
  // millisecond as it, and `oldestFirst` sorts those and keeps `limit`. One statement: one snapshot.
  // One statement per digest column (request or intent), each served by its own index.
  const unresolvedBy = (column: 'request_sha256' | 'intent_sha256') =>
    database.prepare<[{ digest: string; now: number; offset: number }], RecordRow>(
      `WITH unresolved AS (
         SELECT ${RECORD_COLUMNS} FROM idempotency_records
         WHERE ${column} = @digest
           AND (state IN ('started', 'unknown') OR (state = 'claimed' AND lease_expires_at > @now))
       )
       SELECT ${RECORD_COLUMNS} FROM unresolved
       WHERE created_at <= coalesce((SELECT created_at FROM unresolved ORDER BY created_at LIMIT 1 OFFSET @offset), created_at)`,
    );
  const selectUnresolvedByRequest = unresolvedBy('request_sha256');
  const selectUnresolvedByIntent = unresolvedBy('intent_sha256');
  // `findCompleted`: the completed records of one intent digest, by the same index and in the same
  // way (the records up to the limit-th one's millisecond, ordered and cut in JS).
  const selectCompletedByIntent = database.prepare<[{ digest: string; offset: number }], RecordRow>(
    `WITH done AS (
       SELECT ${RECORD_COLUMNS} FROM idempotency_records WHERE intent_sha256 = @digest AND state = 'completed'
     )
     SELECT ${RECORD_COLUMNS} FROM done
     WHERE created_at <= coalesce((SELECT created_at FROM done ORDER BY created_at LIMIT 1 OFFSET @offset), created_at)`,
  );

  function readRecord(key: string): IdempotencyRecord | undefined {
    const row = selectRecord.get(key);
    return row === undefined ? undefined : recordFromRow(row);
  }

  /** The token floor (schema version 5). Its row is never deleted (a trigger refuses it): a missing one is a broken file. */
  function readTokenFloor(): number {
    const row = selectTokenFloor.get();
    if (row === undefined) throw new Error('idempotency_token_floor row is missing');
    return row.token;
  }

  function applyWrite(write: PlannedWrite): void {
    const row = rowFromRecord(write.record);
    const changes =
      write.kind === 'insert'
        ? insertRecord.run(row).changes
        : updateRecord.run({ ...row, expected_token: write.expected.fencing_token, expected_state: write.expected.state })
            .changes;
    // Inside BEGIN IMMEDIATE nobody else can have changed the row since it was read.
    if (changes !== 1) throw new Error('idempotency record changed inside an immediate transaction');
  }

  function plan(operation: IdempotencyOperation, now: number) {
    const current = readRecord(operation.input.key);
    // A first claim plans above the token floor. Inside writeTransaction the record and the floor
    // are read under the write lock, so no purge can come between them and the insert.
    return operation.type === 'claim'
      ? planIdempotencyTransition(current, operation, now, current === undefined ? readTokenFloor() : undefined)
      : planIdempotencyTransition(current, operation, now);
  }

  const writeTransaction = database.transaction((operation: IdempotencyOperation, now: number) => {
    checkFilesInPlace();
    // Read and planned under the write lock: what an earlier attempt or the plain read saw is never reused.
    const planned = plan(operation, now);
    if (planned.write !== null) applyWrite(planned.write);
    return planned.outcome;
  });

  async function run(operation: IdempotencyOperation): Promise<ClaimOutcome | FencedOutcome> {
    const checked = checkIdempotencyOperation(operation);
    // One attempt: everything is read again, the clock included (a retry may come seconds later).
    return lock.write(checked.type, () => {
      const now = readClock(clock);
      // Most duplicate claims change nothing (in progress, completed, conflict): answer them from
      // a plain read without taking the write lock. Anything that writes re-reads and decides
      // again under BEGIN IMMEDIATE.
      const optimistic = plan(checked, now);
      if (optimistic.write === null) return optimistic.outcome;
      return writeTransaction.immediate(checked, now);
    });
  }

  const idempotencyStore: IdempotencyStore = {
    claim: (input) => run({ type: 'claim', input }) as Promise<ClaimOutcome>,
    markStarted: (input) => run({ type: 'markStarted', input }) as Promise<FencedOutcome>,
    complete: (input) => run({ type: 'complete', input }) as Promise<FencedOutcome>,
    release: (input) => run({ type: 'release', input }) as Promise<FencedOutcome>,
    markUnknown: (input) => run({ type: 'markUnknown', input }) as Promise<FencedOutcome>,
    reconcile: (input) => run({ type: 'reconcile', input }) as Promise<FencedOutcome>,
    get: async (key) => {
      const checked = checkIdentifier('key', key);
      return lock.read('get', () => readRecord(checked));
    },
    findUnresolved: async (input) => {
      const checked = checkFindUnresolvedInput(input);
      const { limit } = checked;
      const [select, digest] =
        'intent_sha256' in checked
          ? [selectUnresolvedByIntent, checked.intent_sha256]
          : [selectUnresolvedByRequest, checked.request_sha256];
      // A read like `get`: it never waits behind writes, and each attempt reads the clock afresh.
      const rows = await lock.read('findUnresolved', () => select.all({ digest, now: readClock(clock), offset: limit - 1 }));
      return oldestFirst(rows.map(recordFromRow), limit);
    },
    findCompleted: async (input) => {
      const { intent_sha256, limit } = checkFindCompletedInput(input);
      const rows = await lock.read('findCompleted', () => selectCompletedByIntent.all({ digest: intent_sha256, offset: limit - 1 }));
      return oldestFirst(rows.map(recordFromRow), limit);
    },
    purgeExpired: async (input) => {
      const olderThanMs = checkPurgeInput(input);
      const limit = SQLITE_BATCH_LIMITS.purgeBatchRecords;
      // The clock is read once, at the first attempt, and every batch uses that cutoff: a later
      // batch deletes nothing isPurgeable did not allow then, and the purge ends even while
      // records keep expiring. Each batch checks its records again: one claimed again meanwhile
      // (a lease ending after the cutoff) stays.
      let cutoff: number | undefined;
      let purged = 0;
      for (;;) {
        // Each batch is a write of its own (one transaction of one DELETE: all or nothing, and SQLITE_BUSY
        // means nothing), waiting for the lock like any other: this connection's writes made
        // meanwhile, and other connections', take the lock between batches.
        const deleted = await lock.write('purgeExpired', () => {
          cutoff ??= readClock(clock) - olderThanMs;
          return purgeTransaction.immediate(cutoff, limit);
        });
        purged += deleted;
        if (deleted < limit) return purged;
        // Timers and I/O callbacks of the process run before the next batch.
        await setImmediate();
      }
    },
  };

  // ------------------------------------------------------------------ audit log
  const selectHead = database.prepare<[], { sequence: number; entry_hash: string }>(
    'SELECT sequence, entry_hash FROM audit_head WHERE id = 1',
  );
  const insertAudit = database.prepare<[StoredAuditRow]>(
    `INSERT INTO audit_log (${AUDIT_COLUMNS}) VALUES (@sequence, @recorded_at, @kind, @call_id, @operation_id,
      @idempotency_key, @previous_hash, @entry_hash, @canonical)`,
  );
  const updateHead = database.prepare<[{ sequence: number; entry_hash: string }]>(
    'UPDATE audit_head SET sequence = @sequence, entry_hash = @entry_hash WHERE id = 1',
  );
  const selectAuditAt = database.prepare<[number], StoredAuditRow>(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE sequence = ?`);
  // Verification pages: by the sequence column's own value, bound as a 64-bit integer from its
  // exact text, so forged rows above 2^53 are read once each, never paged over or read again.
  const selectAuditPage = database.prepare<[{ next: bigint; last: bigint; limit: number }], AuditPageRow>(
    `SELECT ${AUDIT_COLUMNS}, CAST(sequence AS TEXT) AS sequence_text FROM audit_log
     WHERE sequence >= @next AND sequence <= @last ORDER BY sequence LIMIT @limit`,
  );
  const selectLastSequence = database.prepare<[], { last_sequence: string | null }>(
    'SELECT CAST(max(sequence) AS TEXT) AS last_sequence FROM audit_log',
  );
  const queryStatements = new Map<string, Statement<[Record<string, string | number>], StoredAuditRow>>();

  const appendTransaction = database.transaction((prepared: ReturnType<typeof prepareAuditEntry>) => {
    checkFilesInPlace();
    const head = storedHead();
    // Read the clock under the write lock, so `recorded_at` follows the chain order on one host.
    const row = sealAuditEntry(
      prepared,
      {
        sequence: (head?.sequence ?? 0) + 1,
        recorded_at: formatRecordedAt(readClock(clock)),
        previous_hash: head?.entry_hash ?? genesisHash,
      },
      digester,
    );
    insertAudit.run(row);
    updateHead.run({ sequence: row.sequence, entry_hash: row.entry_hash });
    return row;
  });

  function storedHead(): AuditHead | null {
    const head = selectHead.get();
    if (head === undefined) throw new Error('audit_head row is missing');
    return head.sequence === 0 ? null : { sequence: head.sequence, entry_hash: head.entry_hash };
  }

  /**
   * The head for a verification: a missing row (removed with the triggers dropped) is tampering to
   * report, not an error to retry, so the verifier gets a head no row can hold and, after checking
   * every row, reports `head_malformed` where the head should point (named `head_missing` below).
   */
  function headToVerify(): AuditHead | null {
    return selectHead.get() === undefined ? MISSING_HEAD : storedHead();
  }

  /**
   * The rows from sequence `next` up to `last`, at most `verifyPageRows` of them and fewer once
   * their canonical text reaches `verifyPageTextUnits`. Reads only (one statement, one snapshot):
   * a retry after SQLITE_BUSY reads the page again from scratch.
   */
  function readAuditPage(next: bigint, last: bigint): AuditRowsPage {
    const { verifyPageRows, verifyPageTextUnits } = SQLITE_BATCH_LIMITS;
    const rows: StoredAuditRow[] = [];
    let textUnits = 0;
    let lastRead: string | null = null;
    for (const { sequence_text, ...row } of selectAuditPage.iterate({ next, last, limit: verifyPageRows })) {
      rows.push(row);
      lastRead = sequence_text;
      textUnits += row.canonical.length;
      if (textUnits >= verifyPageTextUnits) break;
    }
    const full = rows.length === verifyPageRows || textUnits >= verifyPageTextUnits;
    if (!full || lastRead === null || BigInt(lastRead) >= last) return { rows, next: null };
    return { rows, next: BigInt(lastRead) + 1n };
  }

  const beginVerification = database.transaction((from: number) => {
    // One read transaction: the head, the hash entry `from` must link to, the last stored sequence
    // and the first page come from the same WAL snapshot. Later pages read only up to that last
    // sequence: entries appended after this point are not part of this verification.
    const head = headToVerify();
    const previousHash = from === 1 ? genesisHash : (selectAuditAt.get(from - 1)?.entry_hash ?? null);
    const lastText = selectLastSequence.get()?.last_sequence ?? null;
    const last = lastText === null ? null : BigInt(lastText);
    const page: AuditRowsPage = last === null || BigInt(from) > last ? { rows: [], next: null } : readAuditPage(BigInt(from), last);
    return { head, previousHash, last, page };
  });

  async function verify(from: number, anchor: AuditHead | undefined): Promise<ChainVerification> {
    const start = await lock.read('verifyChain', () => beginVerification.deferred(from));
    const verifier = new AuditChainVerifier({
      digester,
      from,
      previousHash: start.previousHash,
      storedHead: start.head,
      ...(anchor === undefined ? {} : { anchor }),
    });
    const finish = (): ChainVerification => {
      const verification = verifier.finish();
      return start.head === MISSING_HEAD && !verification.ok && verification.detail === 'head_malformed'
        ? { ...verification, detail: 'head_missing' }
        : verification;
    };
    const { last } = start;
    let page = start.page;
    for (;;) {
      for (const row of page.rows) {
        if (!verifier.push(row)) return finish();
      }
      const { next } = page;
      if (next === null || last === null) return finish();
      // Timers and I/O callbacks of the process run before the next page; each page is a read
      // of its own (a later snapshot), which never waits behind writes.
      await setImmediate();
      page = await lock.read('verifyChain', () => readAuditPage(next, last));
    }
  }

  function queryStatement(query: NormalizedAuditQuery) {
    const conditions = ['sequence > @after'];
    if (query.kind !== null) conditions.push('kind = @kind');
    if (query.call_id !== null) conditions.push('call_id = @call_id');
    if (query.operation_id !== null) conditions.push('operation_id = @operation_id');
    if (query.idempotency_key !== null) conditions.push('idempotency_key = @idempotency_key');
    if (query.from_time !== null) conditions.push('recorded_at >= @from_time');
    if (query.to_time !== null) conditions.push('recorded_at < @to_time');
    const sql = `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${conditions.join(' AND ')} ORDER BY sequence LIMIT @limit`;
    let statement = queryStatements.get(sql);
    if (statement === undefined) {
      statement = database.prepare<[Record<string, string | number>], StoredAuditRow>(sql);
      queryStatements.set(sql, statement);
    }
    return statement;
  }

  const auditLog: AuditLog = {
    keyed,
    async append(input: AuditEntryInput): Promise<AuditEntry> {
      const prepared = prepareAuditEntry(input, maxBodyBytes === undefined ? {} : { maxBodyBytes });
      // Every attempt reads the head and the clock afresh under the write lock.
      const row = await lock.write('append', () => appendTransaction.immediate(prepared));
      return auditEntryWithBody(row, prepared.body);
    },
    async verifyChain(verifyOptions?: VerifyChainOptions): Promise<ChainVerification> {
      const { from, anchor } = checkVerifyChainOptions(verifyOptions);
      return verify(from, anchor);
    },
    async query(filter: AuditQuery, page: AuditPageRequest): Promise<AuditPage> {
      const query = normalizeAuditQuery(filter, page);
      const parameters: Record<string, string | number> = { after: query.after, limit: query.limit + 1 };
      for (const name of ['kind', 'call_id', 'operation_id', 'idempotency_key', 'from_time', 'to_time'] as const) {
        const value = query[name];
        if (value !== null) parameters[name] = value;
      }
      const statement = queryStatement(query);
      const rows = await lock.read('query', () => statement.all(parameters));
      const more = rows.length > query.limit;
      const entries = rows.slice(0, query.limit).map(auditEntryFromRow);
      return { entries, next: more ? (entries[entries.length - 1]?.sequence ?? null) : null };
    },
    async head(): Promise<AuditHead | null> {
      return lock.read('head', storedHead);
    },
  };

  return {
    auditLog,
    idempotencyStore,
    database,
    schemaVersion,
    close: () => {
      database.close();
    },
  };
}

/**
 * The database path: a non-empty file path without NUL or surrounding whitespace, naming a file
 * this process may read and write or create (`checkDatabaseFile`: in a directory that exists, not
 * a directory itself...), or `:memory:`. An empty, blank or missing path
 * would make SQLite open a temporary database that vanishes on close, and with it every record
 * that keeps a write from running twice. A SQLite URI (`file:...`) is refused: better-sqlite3's
 * SQLite is built without URI support, so it names a file (`file::memory:` made one of that name
 * in the working directory, `file:/missing/x.db` failed with a bare SQLITE_CANTOPEN), while
 * better-sqlite3 skips its directory check for it.
 */
function checkDatabasePath(value: unknown): string {
  // better-sqlite3 trims the name it is given: a blank one would open the temporary database too,
  // and a padded one a file other than the one named.
  if (typeof value !== 'string' || value.trim() === '' || value.trim() !== value || value.includes('\u0000')) {
    throw new StoreInputError(
      'path',
      "must be a database file path (a non-empty string without NUL or surrounding whitespace), or ':memory:' in tests",
    );
  }
  if (value.startsWith('file:')) {
    throw new StoreInputError(
      'path',
      "must be a filesystem path or ':memory:', not a SQLite URI: 'file:' names are not interpreted (for a file whose name begins with 'file:', write './file:...')",
    );
  }
  // better-sqlite3 checks that the directory exists, with a bare TypeError ("Cannot open database
  // because the directory does not exist") that names neither the option nor the directory, and
  // SQLite refuses the rest with a bare SqliteError: checked here, before anything is opened.
  if (value !== ':memory:') checkDatabaseFile(value);
  return value;
}

/** The `synchronous` option: `'full'` (the default) or `'normal'`, anything else refused. */
function checkSynchronous(value: unknown): 'full' | 'normal' {
  if (value === undefined || value === 'full' || value === 'normal') return value ?? 'full';
  throw new StoreInputError('synchronous', "must be 'full' (the default) or 'normal'");
}



function recordFromRow(row: RecordRow): IdempotencyRecord {
  return {
    key: row.key,
    request_sha256: row.request_sha256,
    intent_sha256: row.intent_sha256,
    state: row.state,
    owner: row.owner,
    fencing_token: row.fencing_token,
    lease_expires_at: row.lease_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    result:
      row.sealed_json === null || row.delivery === null || row.completed_at === null
        ? null
        : { sealed_json: row.sealed_json, receipt: row.receipt, delivery: row.delivery, completed_at: row.completed_at },
  };
}

function rowFromRecord(record: IdempotencyRecord): RecordRow {
  return {
    key: record.key,
    request_sha256: record.request_sha256,
    intent_sha256: record.intent_sha256,
    state: record.state,
    owner: record.owner,
    fencing_token: record.fencing_token,
    lease_expires_at: record.lease_expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    sealed_json: record.result?.sealed_json ?? null,
    receipt: record.result?.receipt ?? null,
    delivery: record.result?.delivery ?? null,
    completed_at: record.result?.completed_at ?? null,
  };
}
