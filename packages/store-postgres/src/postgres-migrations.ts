import type { Pool } from 'pg';
import { withPoolClient } from './with-pool-client.js';

/** One schema change; applied once, in order, recorded in `<schema>.schema_version`. */
export interface PostgresMigration {
  version: number;
  /** The statements, given the quoted schema name. */
  statements: (schema: string) => readonly string[];
  /**
   * Run after `statements` only when the schema already existed at an earlier version (an
   * upgrade, not a new schema), given the quoted schema name, with the clock reading of the
   * migration (epoch ms) as `$1`.
   */
  upgradeStatements?: (schema: string) => readonly string[];
}

/**
 * The statement that raises the token floor (schema version 5) to the highest fencing token in
 * `source`, a table or transition table of idempotency records; it never lowers it.
 */
function raiseTokenFloor(s: string, source: string): string {
  return `UPDATE ${s}.idempotency_token_floor AS floor SET token = top_token.token
            FROM (SELECT max(fencing_token) AS token FROM ${source}) AS top_token
            WHERE floor.id = 1 AND floor.token < top_token.token;`;
}

/** The trigger functions (besides audit_head_guard) whose search_path version 6 pins. */
const PINNED_TRIGGER_FUNCTIONS = [
  'audit_log_append_only',
  'audit_log_append_at_head',
  'audit_head_follow',
  'audit_head_no_truncate',
  'idempotency_raise_token_floor',
  'idempotency_raise_token_floor_on_truncate',
  'idempotency_check_token_floor',
  'idempotency_token_floor_guard',
] as const;

/**
 * The highest fencing token a record may hold, and the highest the token floor may reach (schema
 * version 7): `Number.MAX_SAFE_INTEGER - 1`, 2^53 - 2. Before version 7 the floor guard let the
 * floor rise anywhere, and a role with the hosts' grants (UPDATE on the floor, which the raise
 * trigger needs; INSERT and DELETE on the records, whose deletion raises it) could lift it to 2^53
 * or more: every claim then threw a RangeError (`planIdempotencyTransition` refuses a floor it
 * cannot add one to), for good, since the floor never comes down.
 *
 * Why this bound: a key's first token is `max(clock reading, floor) + 1`. Clock readings are at
 * most 8.64e15 (the largest JavaScript Date), below the bound, so with the floor at most the bound
 * that sum is at most 2^53 - 1, a safe integer, which `planIdempotencyTransition` accepts. A
 * record's token at most the bound reads back exactly as a JavaScript number, and one more (a
 * takeover, a claim after release) is still exact: the constraint refuses it, nothing rounds it.
 * One bound for both, because the floor is raised to tokens that were stored: a floor bound below
 * the token bound would make the DELETE of a record between them fail (every purge that meets
 * it), and a token bound below the floor bound would leave a floor between them no first token
 * to give. A smaller bound, still above every clock reading, would only leave less room for
 * takeovers above the clock (about 3.7e14 here), and would not stop a role with the hosts' grants
 * from lifting the floor to it: nothing short of the owner lowers a floor at the bound (see the
 * README, "Privileges").
 */
export const FENCING_TOKEN_BOUND = 9_007_199_254_740_990;

/**
 * The largest `clockReading` `migratePostgres` takes: 8.64e15, the largest clock reading a store
 * takes (`readClock` of `@toolseal/audit` refuses a later one: the last instant a JavaScript `Date`
 * holds).
 */
const MAX_CLOCK_READING = 8_640_000_000_000_000;
/**
 * How long a migration transaction may sit idle between its statements (which follow each other
 * at once) before the server ends it, releasing the migration lock other hosts' opens wait on.
 */
const MIGRATION_IDLE_TIMEOUT_MS = 30_000;

/** Every migration this package knows, oldest first. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    statements: (s) => [
      `CREATE TABLE ${s}.idempotency_records (
        key text PRIMARY KEY,
        request_sha256 text NOT NULL,
        state text NOT NULL CHECK (state IN ('claimed', 'started', 'completed', 'unknown', 'released')),
        owner text NOT NULL,
        fencing_token bigint NOT NULL,
        lease_expires_at bigint NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        sealed_json text,
        receipt text,
        delivery text CHECK (delivery IN ('fresh', 'receipt_reconciled')),
        completed_at bigint,
        CHECK ((state = 'completed') = (sealed_json IS NOT NULL AND delivery IS NOT NULL AND completed_at IS NOT NULL))
      )`,
      `CREATE INDEX idempotency_records_retention ON ${s}.idempotency_records (state, updated_at)`,
      // Canonical JSON is `text`, never `jsonb`: jsonb reorders keys and drops duplicates, and the
      // chain hashes the exact stored text.
      `CREATE TABLE ${s}.audit_log (
        sequence bigint PRIMARY KEY,
        recorded_at text NOT NULL,
        kind text NOT NULL,
        call_id text,
        operation_id text,
        idempotency_key text,
        previous_hash text NOT NULL,
        entry_hash text NOT NULL,
        canonical text NOT NULL
      )`,
      `CREATE INDEX audit_log_call_id ON ${s}.audit_log (call_id, sequence) WHERE call_id IS NOT NULL`,
      `CREATE INDEX audit_log_operation_id ON ${s}.audit_log (operation_id, sequence) WHERE operation_id IS NOT NULL`,
      `CREATE INDEX audit_log_idempotency_key ON ${s}.audit_log (idempotency_key, sequence) WHERE idempotency_key IS NOT NULL`,
      `CREATE INDEX audit_log_kind ON ${s}.audit_log (kind, sequence)`,
      `CREATE INDEX audit_log_recorded_at ON ${s}.audit_log (recorded_at, sequence)`,
      `CREATE TABLE ${s}.audit_head (
        id integer PRIMARY KEY CHECK (id = 1),
        sequence bigint NOT NULL,
        entry_hash text NOT NULL
      )`,
      `INSERT INTO ${s}.audit_head (id, sequence, entry_hash) VALUES (1, 0, '${'0'.repeat(64)}')`,
      // Defence in depth against accidental writes through other tools. Someone who can disable
      // triggers can still rewrite rows: the hash chain (keyed) is what detects that.
      `CREATE FUNCTION ${s}.audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'toolseal audit_log is append-only'; END $$`,
      `CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON ${s}.audit_log
        FOR EACH ROW EXECUTE FUNCTION ${s}.audit_log_append_only()`,
      `CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON ${s}.audit_log
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.audit_log_append_only()`,
      `CREATE FUNCTION ${s}.audit_log_append_at_head() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.sequence <> (SELECT sequence FROM ${s}.audit_head WHERE id = 1) + 1 THEN
            RAISE EXCEPTION 'toolseal audit_log appends only at the head';
          END IF;
          RETURN NEW;
        END $$`,
      `CREATE TRIGGER audit_log_append_at_head BEFORE INSERT ON ${s}.audit_log
        FOR EACH ROW EXECUTE FUNCTION ${s}.audit_log_append_at_head()`,
      // The head follows every insert in the same transaction, and nothing else may move it.
      `CREATE FUNCTION ${s}.audit_head_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE ${s}.audit_head SET sequence = NEW.sequence, entry_hash = NEW.entry_hash WHERE id = 1;
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER audit_head_follow AFTER INSERT ON ${s}.audit_log
        FOR EACH ROW EXECUTE FUNCTION ${s}.audit_head_follow()`,
      // Replaced by version 6, which checks the change instead: trigger depth 2 is within reach of
      // any role that may UPDATE audit_head, through a trigger of its own on a temporary table.
      `CREATE FUNCTION ${s}.audit_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF pg_trigger_depth() < 2 THEN
            RAISE EXCEPTION 'toolseal audit_head only follows appends';
          END IF;
          RETURN NEW;
        END $$`,
      `CREATE TRIGGER audit_head_guard BEFORE UPDATE OR DELETE ON ${s}.audit_head
        FOR EACH ROW EXECUTE FUNCTION ${s}.audit_head_guard()`,
    ],
  },
  {
    version: 2,
    statements: (s) => [
      // `findUnresolved`: the records of one request digest, oldest first. The migration builds it
      // inside its transaction, which holds writes to the table until it is built; IF NOT EXISTS
      // lets an operator build it beforehand with CREATE INDEX CONCURRENTLY under this name.
      `CREATE INDEX IF NOT EXISTS idempotency_records_request ON ${s}.idempotency_records (request_sha256, created_at)`,
    ],
  },
  {
    version: 3,
    statements: (s) => [
      // The revision-free intent digest a claim may carry (NULL: none, and every record written
      // before this version). `request_sha256` binds the contract revisions, so after a deploy
      // that bumps one, `findUnresolved({ intent_sha256 })` is what finds an earlier attempt.
      // A nullable column without a default is a catalog change only: no table rewrite.
      `ALTER TABLE ${s}.idempotency_records ADD COLUMN IF NOT EXISTS intent_sha256 text`,
      // `findUnresolved` by intent: the records of one intent digest, oldest first. Partial:
      // records without an intent (every older one) are never looked up by it. As for version 2,
      // IF NOT EXISTS lets an operator build it beforehand with CREATE INDEX CONCURRENTLY.
      `CREATE INDEX IF NOT EXISTS idempotency_records_intent ON ${s}.idempotency_records (intent_sha256, created_at)
        WHERE intent_sha256 IS NOT NULL`,
      // An unresolved record under an intent key (`intent-` and the digest, the dispatcher's key of
      // a write without approval) carries its digest in the key: filled in, so an attempt made
      // before this version is still found by intent. Resolved records are never looked up by it.
      `UPDATE ${s}.idempotency_records SET intent_sha256 = substring(key from 8)
        WHERE intent_sha256 IS NULL AND state IN ('claimed', 'started', 'unknown') AND key ~ '^intent-[0-9a-f]{64}$'`,
    ],
  },
  {
    version: 4,
    statements: (s) => [
      // TRUNCATE fires no row trigger, so audit_head_guard (BEFORE UPDATE OR DELETE, per row) let
      // it empty the head, after which every append and auditLog.head() throw. Refused like
      // TRUNCATE on audit_log. A catalog change only: no table is rewritten.
      `CREATE FUNCTION ${s}.audit_head_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'toolseal audit_head only follows appends'; END $$`,
      `CREATE TRIGGER audit_head_no_truncate BEFORE TRUNCATE ON ${s}.audit_head
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.audit_head_no_truncate()`,
    ],
  },
  {
    version: 5,
    statements: (s) => [
      // The token floor: at least the highest fencing token of any idempotency record deleted. A
      // key's first claim gets max(clock reading, floor) + 1 (planIdempotencyTransition), so a
      // purged record's tokens never come back, however the clock moved since the purge (a step
      // back further than the purge's older_than_ms gave a stale owner's token to a new record).
      `CREATE TABLE ${s}.idempotency_token_floor (
        id integer PRIMARY KEY CHECK (id = 1),
        token bigint NOT NULL CHECK (token >= 0)
      )`,
      `INSERT INTO ${s}.idempotency_token_floor (id, token) VALUES (1, 0)`,
      // Raised by every DELETE, in its own transaction (an AFTER statement trigger, from the rows it
      // deleted): a purge and its raise commit together. A trigger rather than the store's purge
      // statement, so that purges by hosts of an older version still running on the upgraded
      // schema raise it too. Two purges at once serialize on the floor row; READ COMMITTED
      // re-checks the condition on the row the first one committed, so the floor only rises.
      `CREATE FUNCTION ${s}.idempotency_raise_token_floor() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${raiseTokenFloor(s, 'deleted_records')}
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER idempotency_records_raise_token_floor AFTER DELETE ON ${s}.idempotency_records
        REFERENCING OLD TABLE AS deleted_records
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.idempotency_raise_token_floor()`,
      // TRUNCATE fires no DELETE trigger: it raises the floor to every token it is about to remove
      // (it holds the table's ACCESS EXCLUSIVE lock by then, and under READ COMMITTED this query
      // takes a fresh snapshot that sees every committed row). Under REPEATABLE READ or SERIALIZABLE
      // the query would see the transaction's snapshot while TRUNCATE removes rows committed after
      // it, leaving their tokens above the floor (a review reproduced a token handed out twice):
      // refused there.
      `CREATE FUNCTION ${s}.idempotency_raise_token_floor_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION 'toolseal idempotency_records can be truncated only at READ COMMITTED';
          END IF;
          ${raiseTokenFloor(s, `${s}.idempotency_records`)}
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER idempotency_records_truncate_raise_token_floor BEFORE TRUNCATE ON ${s}.idempotency_records
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.idempotency_raise_token_floor_on_truncate()`,
      // A new record at or below the floor could hand out a purged record's token. A claim plans
      // above the floor it read, but READ COMMITTED lets a purge commit between that reading and
      // the insert: INSERT ... ON CONFLICT DO NOTHING that meets the row a concurrent purge is
      // deleting waits for the purge, then inserts, with values computed from its own older
      // snapshot (even a floor read in the same statement is from before the purge). This check
      // runs after the insert, when a row trigger's query takes a fresh snapshot (a VOLATILE
      // function, under READ COMMITTED): a purge that removed the key's previous record committed
      // before the insert could go ahead, so its raise is visible here, and the insert is refused
      // (SQLSTATE TSF01) for the store to read the floor again and re-plan. Under REPEATABLE READ or
      // SERIALIZABLE (a changed default_transaction_isolation) the read would see the statement's
      // snapshot, so it locks the row instead, which fails with a serialization error (40001) when
      // a purge raised the floor since: an error, never a repeated token. It also refuses the
      // first claims of older versions' hosts whose clocks are behind the floor (their first token
      // is their clock reading + 1). A missing floor row is refused too (every claim fails: the store reads the floor with the record).
      `CREATE FUNCTION ${s}.idempotency_check_token_floor() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          floor_token bigint;
        BEGIN
          IF current_setting('transaction_isolation') = 'read committed' THEN
            SELECT token INTO floor_token FROM ${s}.idempotency_token_floor WHERE id = 1;
          ELSE
            SELECT token INTO floor_token FROM ${s}.idempotency_token_floor WHERE id = 1 FOR SHARE;
          END IF;
          IF floor_token IS NULL THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor row is missing';
          END IF;
          IF NEW.fencing_token <= floor_token THEN
            RAISE EXCEPTION 'toolseal idempotency record at or below the token floor' USING ERRCODE = 'TSF01';
          END IF;
          RETURN NULL;
        END $$`,
      `CREATE TRIGGER idempotency_records_above_token_floor AFTER INSERT ON ${s}.idempotency_records
        FOR EACH ROW EXECUTE FUNCTION ${s}.idempotency_check_token_floor()`,
      // One row, that only rises (as audit_head, against accidental writes through other tools).
      `CREATE FUNCTION ${s}.idempotency_token_floor_guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP <> 'UPDATE' THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor only rises';
          END IF;
          IF NEW.id <> OLD.id OR NEW.token < OLD.token THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor only rises';
          END IF;
          RETURN NEW;
        END $$`,
      `CREATE TRIGGER idempotency_token_floor_guard BEFORE UPDATE OR DELETE ON ${s}.idempotency_token_floor
        FOR EACH ROW EXECUTE FUNCTION ${s}.idempotency_token_floor_guard()`,
      `CREATE TRIGGER idempotency_token_floor_no_truncate BEFORE TRUNCATE ON ${s}.idempotency_token_floor
        FOR EACH STATEMENT EXECUTE FUNCTION ${s}.idempotency_token_floor_guard()`,
    ],
    // A schema from before this version may have had records purged already, whose tokens the
    // floor cannot know. Each was purged only once its token was at or below the purge's cutoff
    // (clock reading minus older_than_ms), so a floor at the migration's clock reading is above
    // them all unless that clock reads, at the migration, behind such a cutoff (stepped back
    // further than older_than_ms since that purge). It only ever raises first tokens: while the
    // clock is ahead of it, max(clock reading, floor) is the clock reading, as before.
    upgradeStatements: (s) => [`UPDATE ${s}.idempotency_token_floor SET token = $1 WHERE id = 1 AND token < $1`],
  },
  {
    version: 6,
    statements: (s) => [
      // The guard of version 1 let through any change made at trigger depth 2 or more, meaning the
      // head update of audit_head_follow. But any role that may UPDATE audit_head (the hosts' role
      // needs it, for that trigger) reaches depth 2 with a trigger of its own: a trigger function
      // in pg_temp on a temporary table (TEMP is granted to PUBLIC), or audit_head_follow itself
      // attached to such a table. A review rewound the head that way, after which every append
      // failed. So the guard checks the change itself, as the SQLite store's trigger does: no
      // DELETE, and an UPDATE only of the step an append makes, to the entry after the head, as
      // stored in audit_log (whose own triggers let rows in only at the head, never changed).
      // IS DISTINCT FROM: the entry missing reads as NULL, refused. The search_path is pinned so
      // that the operators are pg_catalog's whatever the calling session sets (relations are
      // schema-qualified). Replaced in place (CREATE OR REPLACE keeps the function, so the
      // trigger of version 1 calls the new body): a catalog change, no table locked or rewritten.
      `CREATE OR REPLACE FUNCTION ${s}.audit_head_guard() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
        BEGIN
          IF TG_OP <> 'UPDATE' THEN
            RAISE EXCEPTION 'toolseal audit_head only follows appends';
          END IF;
          IF NEW.id IS DISTINCT FROM OLD.id
            OR NEW.sequence IS DISTINCT FROM OLD.sequence + 1
            OR NEW.entry_hash IS DISTINCT FROM (SELECT entry_hash FROM ${s}.audit_log WHERE sequence = NEW.sequence) THEN
            RAISE EXCEPTION 'toolseal audit_head only follows appends';
          END IF;
          RETURN NEW;
        END $$`,
      // The other trigger functions get the same pinned search_path: their relations are
      // schema-qualified already, and their comparisons then use pg_catalog's operators, not ones a
      // session put first on its path (a role with CREATE on some schema could).
      ...PINNED_TRIGGER_FUNCTIONS.map((name) => `ALTER FUNCTION ${s}.${name}() SET search_path = pg_catalog, pg_temp`),
    ],
  },
  {
    version: 7,
    statements: (s) => [
      // A record's fencing token stays at or below FENCING_TOKEN_BOUND, on every INSERT and UPDATE,
      // whoever writes it: a record above it, deleted, would lift the floor beyond what a claim can
      // add one to (a role with the hosts' grants did that with one INSERT and one DELETE). NOT
      // VALID: rows already stored are not scanned (only a forged row can be above the bound), so
      // the migration only takes the table's lock for a moment; `ALTER TABLE ... VALIDATE
      // CONSTRAINT` checks them later without holding writes (see the README, version 7).
      `ALTER TABLE ${s}.idempotency_records ADD CONSTRAINT idempotency_records_fencing_token_bound
        CHECK (fencing_token <= ${FENCING_TOKEN_BOUND}) NOT VALID`,
      // The floor guard of version 5 let the floor rise to any bigint, and the hosts' role may
      // UPDATE the floor (the raise trigger runs as the deleting role): one UPDATE to 2^53 made
      // every claim throw, for good. It now also refuses a floor above FENCING_TOKEN_BOUND, which
      // no raise from a record stored under the constraint above reaches. Replaced in place,
      // as version 6 replaced audit_head_guard: the triggers of version 5 call the new body, and
      // CREATE OR REPLACE takes the search_path of this definition, pinned as version 6 pinned it.
      `CREATE OR REPLACE FUNCTION ${s}.idempotency_token_floor_guard() RETURNS trigger LANGUAGE plpgsql
        SET search_path = pg_catalog, pg_temp AS $$
        BEGIN
          IF TG_OP <> 'UPDATE' THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor only rises';
          END IF;
          IF NEW.id <> OLD.id OR NEW.token < OLD.token THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor only rises';
          END IF;
          IF NEW.token > ${FENCING_TOKEN_BOUND} THEN
            RAISE EXCEPTION 'toolseal idempotency_token_floor stays at or below ${FENCING_TOKEN_BOUND}' USING ERRCODE = 'check_violation';
          END IF;
          RETURN NEW;
        END $$`,
    ],
  },
];

/** The newest schema version this package writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1]?.version ?? 0;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `schema` itself when it is a primitive string holding a plain lowercase PostgreSQL identifier,
 * else a RangeError. Anything else is refused, never converted: an object's `toString` could
 * answer the check with one text and the SQL with another, and an array or a String object would
 * pass for the text it holds.
 */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new RangeError('schema must be a string matching ^[a-z_][a-z0-9_]{0,62}$');
  }
  return schema;
}

/** Throws a RangeError unless `schema` is a string holding a plain lowercase PostgreSQL identifier (`checkSchemaName`); returns it quoted. */
export function quoteSchemaName(schema: string): string {
  return `"${checkSchemaName(schema)}"`;
}

/**
 * Brings `schema` to POSTGRES_SCHEMA_VERSION (creating it if needed). Idempotent, and safe when
 * many hosts start at once: every step runs under a transaction-scoped advisory lock per schema.
 * Refuses a schema written by a newer version of this package.
 *
 * A schema already at POSTGRES_SCHEMA_VERSION is only read (`readSchemaVersion`): no lock, no DDL,
 * so a role with no more than USAGE on the schema and the tables' privileges can open it.
 * PostgreSQL checks the CREATE privilege before `IF NOT EXISTS`, so running the DDL anyway would
 * refuse such a role (42501) on every open.
 *
 * `clockReading` (epoch ms, default 0) is the clock reading of the migration: an upgrade to
 * version 5 seeds the token floor with it (see `upgradeStatements`). `openPostgresStores` passes
 * its clock's reading; with 0, fencing across a clock step back covers only the records purged
 * after the upgrade. A reading that is not a safe integer from 0 to 8.64e15 (the largest a store's
 * clock gives) throws a RangeError before anything is read or written.
 */
export async function migratePostgres(pool: Pool, schemaName: string, appliedAt: string, clockReading = 0): Promise<number> {
  // One string, checked once, in every statement below.
  const schema = checkSchemaName(schemaName);
  // At most 8.64e15, the largest reading a store's clock gives (`readClock` of `@toolseal/audit`):
  // an upgrade from version 4 or earlier seeds the floor with it before version 7 bounds it, and a
  // floor past that bound would leave every first claim a token it may not write.
  if (!Number.isSafeInteger(clockReading) || clockReading < 0 || clockReading > MAX_CLOCK_READING) {
    throw new RangeError('clockReading must be a non-negative safe integer of epoch milliseconds, at most 8640000000000000');
  }
  const quoted = quoteSchemaName(schema);
  const recorded = await readSchemaVersion(pool, schema, quoted);
  checkNotNewer(schema, recorded);
  if (recorded === POSTGRES_SCHEMA_VERSION) return POSTGRES_SCHEMA_VERSION;
  return withPoolClient(pool, async (client) => {
    try {
      // A host that vanishes mid-migration without closing its connection must not keep every
      // other host's open waiting on the lock: the server ends the transaction once it sits idle.
      await client.query(`BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${MIGRATION_IDLE_TIMEOUT_MS}`);
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`toolseal.migrate:${schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)`);
      const current = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoted}.schema_version`);
      // Read again under the lock: another host may have migrated since the read above.
      const from = current.rows[0]?.version ?? 0;
      checkNotNewer(schema, from);
      for (const migration of POSTGRES_MIGRATIONS) {
        if (migration.version <= from) continue;
        for (const statement of migration.statements(quoted)) await client.query(statement);
        // Version 0 is a new schema (version 1 creates every table): nothing of it was ever purged.
        if (from > 0) {
          for (const statement of migration.upgradeStatements?.(quoted) ?? []) await client.query(statement, [clockReading]);
        }
        await client.query(`INSERT INTO ${quoted}.schema_version (version, applied_at) VALUES ($1, $2)`, [migration.version, appliedAt]);
      }
      await client.query('COMMIT');
      return POSTGRES_SCHEMA_VERSION;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/**
 * The version recorded in `<schema>.schema_version`, or 0 when the schema or that table does not
 * exist yet. Reads only (the catalog, then the table), so it needs no privilege beyond USAGE on
 * the schema and SELECT on `schema_version`. Read without the migration lock: a migration in
 * progress elsewhere is not committed, so it reads as behind, and the caller then migrates under
 * the lock, which waits for it.
 *
 * The table is looked up with a query on `pg_class`, never by name (`to_regclass`): a name not
 * found is remembered in the connection's catalog cache, which taking an advisory lock does not
 * refresh, so the migration's `CREATE SCHEMA IF NOT EXISTS` on that connection would not see the
 * schema another host created while it waited for the lock, and fail on a duplicate key.
 */
function readSchemaVersion(pool: Pool, schema: string, quoted: string): Promise<number> {
  return withPoolClient(pool, async (client) => {
    const table = await client.query<{ present: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname = 'schema_version') AS present`,
      [schema],
    );
    if (table.rows[0]?.present !== true) return 0;
    const current = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoted}.schema_version`);
    return current.rows[0]?.version ?? 0;
  });
}

/** Throws unless `version` is one this package knows: a newer package wrote the schema, so upgrade every host sharing it. */
function checkNotNewer(schema: string, version: number): void {
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new Error(`schema ${schema} is at version ${version}, newer than this package (${POSTGRES_SCHEMA_VERSION})`);
  }
}
