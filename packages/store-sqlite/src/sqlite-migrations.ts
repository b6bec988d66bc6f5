import type { Database } from 'better-sqlite3';

/** One schema change; applied once, in order, recorded in `schema_version`. */
export interface SqliteMigration {
  version: number;
  statements: readonly string[];
  /**
   * Run after `statements` only when the database already existed at an earlier version (an
   * upgrade, not a new file), with the clock reading of the migration (epoch ms) bound as
   * `@clock_reading`.
   */
  upgradeStatements?: readonly string[];
}

const APPEND_ONLY = "SELECT RAISE(ABORT, 'toolseal audit_log is append-only')";

/** The table the applied versions are recorded in, created before the first migration. */
export const SCHEMA_VERSION_TABLE_STATEMENT =
  'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT';

/**
 * Every migration this package knows, oldest first. A released statement is never edited (add a
 * migration instead): `openSqliteStores` compares every table, index and trigger of a file with
 * what these statements create (whitespace aside, `checkSqliteSchema`), and refuses a file that
 * differs.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE idempotency_records (
        key TEXT PRIMARY KEY,
        request_sha256 TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('claimed', 'started', 'completed', 'unknown', 'released')),
        owner TEXT NOT NULL,
        fencing_token INTEGER NOT NULL,
        lease_expires_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        sealed_json TEXT,
        receipt TEXT,
        delivery TEXT CHECK (delivery IN ('fresh', 'receipt_reconciled')),
        completed_at INTEGER,
        CHECK ((state = 'completed') = (sealed_json IS NOT NULL AND delivery IS NOT NULL AND completed_at IS NOT NULL))
      ) STRICT, WITHOUT ROWID`,
      `CREATE INDEX idempotency_records_retention ON idempotency_records (state, updated_at)`,
      // Canonical JSON is stored as TEXT and hashed as stored: never re-derived from a JSON type.
      `CREATE TABLE audit_log (
        sequence INTEGER PRIMARY KEY,
        recorded_at TEXT NOT NULL,
        kind TEXT NOT NULL,
        call_id TEXT,
        operation_id TEXT,
        idempotency_key TEXT,
        previous_hash TEXT NOT NULL,
        entry_hash TEXT NOT NULL,
        canonical TEXT NOT NULL
      ) STRICT`,
      `CREATE INDEX audit_log_call_id ON audit_log (call_id) WHERE call_id IS NOT NULL`,
      `CREATE INDEX audit_log_operation_id ON audit_log (operation_id) WHERE operation_id IS NOT NULL`,
      `CREATE INDEX audit_log_idempotency_key ON audit_log (idempotency_key) WHERE idempotency_key IS NOT NULL`,
      `CREATE INDEX audit_log_kind ON audit_log (kind)`,
      `CREATE INDEX audit_log_recorded_at ON audit_log (recorded_at)`,
      `CREATE TABLE audit_head (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sequence INTEGER NOT NULL,
        entry_hash TEXT NOT NULL
      ) STRICT`,
      `INSERT INTO audit_head (id, sequence, entry_hash) VALUES (1, 0, '${'0'.repeat(64)}')`,
      // Defence in depth against accidental writes through another tool. Someone who can drop
      // triggers can still rewrite rows: the hash chain (keyed) is what detects that.
      `CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log BEGIN ${APPEND_ONLY}; END`,
      `CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log BEGIN ${APPEND_ONLY}; END`,
      `CREATE TRIGGER audit_log_append_at_head BEFORE INSERT ON audit_log
        WHEN NEW.sequence != (SELECT sequence FROM audit_head WHERE id = 1) + 1
        BEGIN SELECT RAISE(ABORT, 'toolseal audit_log appends only at the head'); END`,
      `CREATE TRIGGER audit_head_follows_log BEFORE UPDATE ON audit_head
        WHEN NEW.sequence != OLD.sequence + 1
          OR NEW.entry_hash IS NOT (SELECT entry_hash FROM audit_log WHERE sequence = NEW.sequence)
        BEGIN SELECT RAISE(ABORT, 'toolseal audit_head only follows appends'); END`,
    ],
  },
  {
    version: 2,
    statements: [
      // `findUnresolved`: the records of one request digest, oldest first.
      `CREATE INDEX idempotency_records_request ON idempotency_records (request_sha256, created_at)`,
    ],
  },
  {
    version: 3,
    statements: [
      // The revision-free intent digest a claim may carry (NULL: none, and every record written
      // before this version). `request_sha256` binds the contract revisions, so after a deploy
      // that bumps one, `findUnresolved({ intent_sha256 })` is what finds an earlier attempt.
      // Adding a nullable column without a default rewrites nothing: existing rows read NULL.
      `ALTER TABLE idempotency_records ADD COLUMN intent_sha256 TEXT`,
      // `findUnresolved` by intent: the records of one intent digest, oldest first. Partial: records
      // without an intent are never looked up by it.
      `CREATE INDEX idempotency_records_intent ON idempotency_records (intent_sha256, created_at) WHERE intent_sha256 IS NOT NULL`,
      // An unresolved record under an intent key (`intent-` and the digest, the dispatcher's key of
      // a write without approval) carries its digest in the key: filled in, so an attempt made
      // before this version is still found by intent. Resolved records are never looked up by it.
      `UPDATE idempotency_records SET intent_sha256 = substr(key, 8)
        WHERE intent_sha256 IS NULL AND state IN ('claimed', 'started', 'unknown')
          AND length(key) = 71 AND substr(key, 1, 7) = 'intent-' AND substr(key, 8) NOT GLOB '*[^0-9a-f]*'`,
    ],
  },
  {
    version: 4,
    statements: [
      // `INSERT OR REPLACE` (`REPLACE INTO`) removes the row it conflicts with without firing the
      // delete triggers (unless a connection turns `recursive_triggers` on) and fires no update
      // trigger, so the triggers of version 1 let it rewrite an entry or move the head anywhere
      // (https://www.sqlite.org/lang_conflict.html). Insert triggers fire for every INSERT, whatever
      // its conflict clause and the connection's settings: an insert over an existing entry is
      // refused, and so is every insert into audit_head (its one row is the one version 1 wrote).
      `CREATE TRIGGER audit_log_append_only_replace BEFORE INSERT ON audit_log
        WHEN EXISTS (SELECT 1 FROM audit_log WHERE sequence = NEW.sequence)
        BEGIN ${APPEND_ONLY}; END`,
      `CREATE TRIGGER audit_head_no_insert BEFORE INSERT ON audit_head
        BEGIN SELECT RAISE(ABORT, 'toolseal audit_head only follows appends'); END`,
      // Nor is the head row removed (the PostgreSQL store refuses DELETE and TRUNCATE of it too).
      `CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head
        BEGIN SELECT RAISE(ABORT, 'toolseal audit_head only follows appends'); END`,
    ],
  },
  {
    version: 5,
    statements: [
      // The token floor: at least the highest fencing token of any idempotency record deleted. A
      // key's first claim gets max(clock reading, floor) + 1 (planIdempotencyTransition), so a
      // purged record's tokens never come back, however the clock moved since the purge (a step
      // back further than the purge's older_than_ms gave a stale owner's token to a new record).
      `CREATE TABLE idempotency_token_floor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        token INTEGER NOT NULL CHECK (token >= 0)
      ) STRICT`,
      `INSERT INTO idempotency_token_floor (id, token) VALUES (1, 0)`,
      // Raised by every deletion, in the statement that deletes: a purge batch and its raise
      // commit together. A trigger rather than the store's purge statement, so that the purges of a
      // process of an older version still running on the upgraded file raise it too.
      `CREATE TRIGGER idempotency_records_raise_token_floor AFTER DELETE ON idempotency_records
        BEGIN UPDATE idempotency_token_floor SET token = OLD.fencing_token WHERE id = 1 AND token < OLD.fencing_token; END`,
      // A new record at or below the floor could hand out a purged record's token. This store plans
      // above it under the write lock and never meets this trigger; a process of an older version
      // (first token: its clock reading + 1) whose clock is behind the floor has its claim fail
      // instead of repeating a token.
      `CREATE TRIGGER idempotency_records_above_token_floor BEFORE INSERT ON idempotency_records
        WHEN NEW.fencing_token <= (SELECT token FROM idempotency_token_floor WHERE id = 1)
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency record at or below the token floor'); END`,
      // One row, that only rises (as audit_head, against accidental writes through other tools).
      `CREATE TRIGGER idempotency_token_floor_only_rises BEFORE UPDATE ON idempotency_token_floor
        WHEN NEW.token < OLD.token OR NEW.id IS NOT OLD.id
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency_token_floor only rises'); END`,
      `CREATE TRIGGER idempotency_token_floor_no_insert BEFORE INSERT ON idempotency_token_floor
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency_token_floor only rises'); END`,
      `CREATE TRIGGER idempotency_token_floor_no_delete BEFORE DELETE ON idempotency_token_floor
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency_token_floor only rises'); END`,
    ],
    // A file from before this version may have had records purged already, whose tokens the floor
    // cannot know. Each was purged only once its token was at or below the purge's cutoff (clock
    // reading minus older_than_ms), so a floor at the migration's clock reading is above them all
    // unless the clock reads, at the migration, behind such a cutoff (stepped back further than
    // older_than_ms since that purge). It only ever raises first tokens (never lowers a guarantee):
    // while the clock is ahead of it, max(clock reading, floor) is the clock reading, as before.
    upgradeStatements: [`UPDATE idempotency_token_floor SET token = @clock_reading WHERE id = 1 AND token < @clock_reading`],
  },
  {
    version: 6,
    statements: [
      // Bounds (the review: under version 5 alone, anyone who could write the file raised the floor
      // to 2^53 or more in one statement, or inserted a record with such a token and deleted it, and
      // from then on every first claim threw a RangeError, for good, since the floor never comes
      // down). The numbers are SQLITE_TOKEN_FLOOR_MAX and SQLITE_FENCING_TOKEN_MAX (see there for
      // the choice), written out: a released statement never changes. The floor stays at most the
      // largest clock reading, so a first claim's token, max(clock reading, floor) + 1, is at most
      // 8640000000000001, a safe integer within the records' bound: claims keep working whatever
      // the floor is. A deletion whose raise this refuses fails with it.
      `CREATE TRIGGER idempotency_token_floor_bounded BEFORE UPDATE ON idempotency_token_floor
        WHEN NEW.token > 8640000000000000
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency_token_floor stays at most 8640000000000000 (no record with a larger fencing token can be deleted)'); END`,
      // A record's token stays at most Number.MAX_SAFE_INTEGER - 1, so that it reads back exactly
      // and a takeover's token (one more) is still a safe integer. Insert and update: an upsert's
      // update and a raw UPDATE of the column fire the second.
      `CREATE TRIGGER idempotency_records_token_bounded_insert BEFORE INSERT ON idempotency_records
        WHEN NEW.fencing_token > 9007199254740990
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency fencing token above 9007199254740990'); END`,
      `CREATE TRIGGER idempotency_records_token_bounded_update BEFORE UPDATE OF fencing_token ON idempotency_records
        WHEN NEW.fencing_token > 9007199254740990
        BEGIN SELECT RAISE(ABORT, 'toolseal idempotency fencing token above 9007199254740990'); END`,
    ],
  },
];

/**
 * The largest token floor schema version 6 lets the file hold: 8.64e15, the largest clock reading a
 * store takes (`readClock` of `@toolseal/audit` refuses a later one: the last instant a JavaScript
 * `Date` holds, in the year 275760), far above any real clock (about 1.8e12 in 2027). A floor at
 * most this high keeps a first claim's token, `max(clock reading, floor) + 1`, a safe integer of at
 * most 8.64e15 + 1, below the records' bound (`SQLITE_FENCING_TOKEN_MAX`) by about 3.7e14 tokens for
 * the takeovers of a record (one token each): so a first claim always has a token it may write,
 * whatever the floor is, which a floor bounded as high as the records' tokens would not leave.
 *
 * A floor only rises to the token of a record deleted (or to the clock reading of the upgrade to
 * version 5). A record's token is above this bound only when raw SQL wrote it, or raised the floor
 * to the bound (every first claim then gets one above it), or a clock read exactly 8.64e15: such a
 * record cannot be deleted, the floor being unable to hold its token (a purge that reaches it fails
 * rather than forget a token it handed out, which could then be handed out again).
 */
export const SQLITE_TOKEN_FLOOR_MAX = 8_640_000_000_000_000;

/**
 * The largest fencing token an idempotency record may hold (schema version 6):
 * `Number.MAX_SAFE_INTEGER - 1`, so that every token reads back as the exact number it was written
 * as, and a takeover's (one more) is still a safe integer, refused by the trigger instead of written
 * rounded. No record written by this store comes near it (see `SQLITE_TOKEN_FLOOR_MAX`).
 */
export const SQLITE_FENCING_TOKEN_MAX = Number.MAX_SAFE_INTEGER - 1;

/** The newest schema version this package writes. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;

/**
 * Applies the migrations the database lacks, up to SQLITE_SCHEMA_VERSION (see `migrateSqlite`,
 * which checks the file first): reading the version first, so that an up-to-date file takes no
 * write lock; under BEGIN IMMEDIATE otherwise, reading it again under the lock. Refuses a version
 * newer than this package's.
 */
export function applySqliteMigrations(database: Database, appliedAt: string, clockReading = 0): number {
  // At most SQLITE_TOKEN_FLOOR_MAX, the largest reading a store's clock gives (`readClock`): an
  // upgrade from version 4 or earlier seeds the floor with it before version 6 bounds the floor, and
  // a floor above that bound would leave every first claim a token it may not write.
  if (!Number.isSafeInteger(clockReading) || clockReading < 0 || clockReading > SQLITE_TOKEN_FLOOR_MAX) {
    throw new RangeError('clockReading must be a non-negative safe integer of epoch milliseconds, at most 8640000000000000');
  }
  // A no-op, without the write lock, once the table exists.
  database.exec(SCHEMA_VERSION_TABLE_STATEMENT);
  const current = database.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_version');
  const record = database.prepare<[number, string]>('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)');
  const checkVersion = (from: number): number => {
    if (from > SQLITE_SCHEMA_VERSION) {
      throw new Error(`database schema version ${from} is newer than this package (${SQLITE_SCHEMA_VERSION})`);
    }
    return from;
  };
  // Up to date already: nothing to apply, so no need to wait for another connection's write lock.
  if (checkVersion(current.get()?.version ?? 0) === SQLITE_SCHEMA_VERSION) return SQLITE_SCHEMA_VERSION;
  const migrate = database.transaction(() => {
    // Read again under the lock: another process may have migrated meanwhile.
    const from = checkVersion(current.get()?.version ?? 0);
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version <= from) continue;
      for (const statement of migration.statements) database.exec(statement);
      // Version 0 is a new file (version 1 creates every table): nothing of it was ever purged.
      if (from > 0) {
        for (const statement of migration.upgradeStatements ?? []) database.prepare(statement).run({ clock_reading: clockReading });
      }
      record.run(migration.version, appliedAt);
    }
    return SQLITE_SCHEMA_VERSION;
  });
  return migrate.immediate();
}
