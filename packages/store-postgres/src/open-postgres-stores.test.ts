import {
  ManualClock,
  StoreInputError,
  type AuditHead,
  type ClaimOutcome,
  type IdempotencyRecord,
  type IdempotencyStore,
} from '@toolseal/audit';
import { checkIntentDigestMigration, findCompletedConformanceCases, findUnresolvedConformanceCases, intentMigrationOldRecord, recordIn, storeConformanceCases, type StoreFactory } from '@toolseal/audit/conformance';
import { createDigester, rememberCanonicalText, type Digester } from '@toolseal/digests';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, dropSchemas, postgresTamper, probeDatabase, RUN_SCHEMA } from './__fixtures__/test-database.js';
import {
  DEFAULT_CONNECTION_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_APPENDS,
  DEFAULT_MAX_PENDING_UNITS,
  HEAD_LOCK_IDLE_TIMEOUT_MS,
  MAX_PENDING_UNITS,
  openPostgresStores,
  type PostgresStoresOptions,
} from './open-postgres-stores.js';
import { PostgresAppendQueueFullError } from './postgres-append-queue-full-error.js';
import { PostgresWriteContentionError } from './postgres-write-contention-error.js';
import { FENCING_TOKEN_BOUND, migratePostgres, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, quoteSchemaName } from './postgres-migrations.js';

const available = await probeDatabase();
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
// A caller pool whose clients pipeline (pg `pipeline: true`): appends send their inserts and
// COMMIT in one round trip, as with the pool the stores create from a connection string.
const pipelinedPool = new pg.Pool({ connectionString: DATABASE_URL, max: 10, pipeline: true });
afterAll(async () => {
  if (available) await dropSchemas(pool, RUN_SCHEMA);
  await Promise.all([pool.end(), pipelinedPool.end()]);
});
let schemas = 0;
const nextSchema = () => `${RUN_SCHEMA}_${(schemas += 1)}`;
const T0 = Date.UTC(2026, 6, 19);
const REQUEST = 'a'.repeat(64);

/** Creates the empty schema `s` (quoted) as version `version` of this package left it, through `queryable`. */
async function createSchemaAtVersion(queryable: pg.Pool, s: string, version: number): Promise<void> {
  await queryable.query(`CREATE SCHEMA ${s}`);
  await queryable.query(`CREATE TABLE ${s}.schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)`);
  for (const migration of POSTGRES_MIGRATIONS.filter((candidate) => candidate.version <= version)) {
    for (const text of migration.statements(s)) await queryable.query(text);
    await queryable.query(`INSERT INTO ${s}.schema_version (version, applied_at) VALUES ($1, '2026-07-01T00:00:00.000Z')`, [migration.version]);
  }
}

describe.skipIf(!available).each([
  ['one statement per round trip', pool],
  ['pipelined pool', pipelinedPool],
])('PostgreSQL stores: conformance (%s)', (_name, storePool) => {
  const factory: StoreFactory = async ({ clock, digester, logId }) => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool: storePool, schema, clock, digester, ...(logId === undefined ? {} : { logId }) });
    return {
      ...stores,
      tamper: postgresTamper(pool, schema),
      close: async () => {
        await stores.close();
        await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      },
    };
  };
  for (const testCase of [...storeConformanceCases(factory), ...findUnresolvedConformanceCases(factory), ...findCompletedConformanceCases(factory)]) it(testCase.name, testCase.run);
});


describe('PostgreSQL stores: options', () => {
  it('refuses malformed options with StoreInputError before any connection', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ maxBodyBytes: Number.NaN }, 'maxBodyBytes'],
      [{ maxBodyBytes: Number.POSITIVE_INFINITY }, 'maxBodyBytes'],
      [{ maxBodyBytes: '1048576' }, 'maxBodyBytes'],
      [{ maxPendingAppends: 0 }, 'maxPendingAppends'],
      [{ maxPendingAppends: 1.5 }, 'maxPendingAppends'],
      [{ connectionTimeoutMs: -1 }, 'connectionTimeoutMs'],
      [{ connectionTimeoutMs: Number.NaN }, 'connectionTimeoutMs'],
      [{ maxPendingUnits: 0 }, 'maxPendingUnits'],
      [{ maxPendingUnits: 2 ** 30 + 1 }, 'maxPendingUnits'],
    ];
    for (const [options, field] of cases) {
      // Nothing listens at this address: a connection attempt would fail with another error.
      const opening = openPostgresStores({ connectionString: 'postgres://nobody@127.0.0.1:9/none', ...options });
      await expect(opening, JSON.stringify(options)).rejects.toSatisfy((error: unknown) => StoreInputError.isInstance(error) && error.field === field);
    }
    // connectionTimeoutMs is for the pool the stores make: a pool of the caller's keeps its own.
    const callerPool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none' });
    await expect(openPostgresStores({ pool: callerPool, connectionTimeoutMs: 5_000 })).rejects.toSatisfy(
      (error: unknown) => StoreInputError.isInstance(error) && error.field === 'connectionTimeoutMs',
    );
    await callerPool.end();
    await expect(openPostgresStores(null as unknown as PostgresStoresOptions)).rejects.toSatisfy(
      (error: unknown) => StoreInputError.isInstance(error) && error.field === 'options',
    );
    // Both or neither of pool and connectionString: a TypeError, as the README says.
    await expect(openPostgresStores({} as PostgresStoresOptions)).rejects.toThrow(TypeError);
    const both = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none' });
    await expect(openPostgresStores({ pool: both, connectionString: 'postgres://nobody@127.0.0.1:9/none' })).rejects.toThrow(TypeError);
    await both.end();
  });

  it('the review: refuses a schema that is not a primitive string with a RangeError, before any connection, reading it once', async () => {
    let conversions = 0;
    // Valid on the first conversion, SQL on the next: the check and the statements must see one string.
    const changing = {
      toString: () => ((conversions += 1) % 2 === 1 ? 'toolseal_ok' : 'toolseal_ok"; DROP TABLE public.victim; --'),
    };
    let reads = 0;
    const options = {
      connectionString: 'postgres://nobody@127.0.0.1:9/none',
      get schema() {
        reads += 1;
        return 'toolseal_ok';
      },
    };
    for (const schema of [changing, ['toolseal'], new String('toolseal'), null, 42, Symbol('toolseal')]) {
      // Nothing listens at this address: a connection attempt would fail with another error.
      const opening = openPostgresStores({ connectionString: 'postgres://nobody@127.0.0.1:9/none', schema } as unknown as PostgresStoresOptions);
      await expect(opening, String(typeof schema)).rejects.toThrow(RangeError);
    }
    expect(conversions).toBe(0);
    // A valid name is read once: the string checked is the one used (the connection then fails).
    await expect(openPostgresStores(options)).rejects.not.toThrow(RangeError);
    expect(reads).toBe(1);
    expect(() => quoteSchemaName(changing as unknown as string)).toThrow(RangeError);
    expect(() => quoteSchemaName(['toolseal'] as unknown as string)).toThrow(RangeError);
    expect(conversions).toBe(0);
    expect(quoteSchemaName('toolseal')).toBe('"toolseal"');
  });

  it('exports the defaults it documents (MAX_PENDING_UNITS is the deprecated name of DEFAULT_MAX_PENDING_UNITS)', () => {
    expect([DEFAULT_MAX_PENDING_APPENDS, DEFAULT_MAX_PENDING_UNITS, DEFAULT_CONNECTION_TIMEOUT_MS]).toEqual([4_096, 64 * 1024 * 1024, 10_000]);
    expect(MAX_PENDING_UNITS).toBe(DEFAULT_MAX_PENDING_UNITS);
  });
});

describe('PostgreSQL stores: options (configuration review)', () => {
  // Nothing listens at this address: a connection attempt would fail with another error.
  const NOWHERE = 'postgres://nobody@127.0.0.1:9/none';
  /** A pool that counts what the stores ask of it: none of these cases may reach it. */
  const spyPool = () => {
    const calls: string[] = [];
    const fake = {
      connect: () => {
        calls.push('connect');
        return Promise.reject(new Error('connect called'));
      },
      query: () => {
        calls.push('query');
        return Promise.reject(new Error('query called'));
      },
    };
    return { pool: fake as unknown as pg.Pool, calls };
  };
  const refusedWith = (field: string) => (error: unknown) => StoreInputError.isInstance(error) && error.field === field;

  it('refuses an unknown option, naming it, before any pool is made or connection opened', async () => {
    await expect(openPostgresStores({ connectionString: NOWHERE, connectionTimeoutMS: 200 } as unknown as PostgresStoresOptions)).rejects.toSatisfy(
      refusedWith('connectionTimeoutMS'),
    );
    const { pool: callerPool, calls } = spyPool();
    for (const name of ['logID', 'Schema', 'max_body_bytes']) {
      const opening = openPostgresStores({ pool: callerPool, [name]: 'x' } as unknown as PostgresStoresOptions);
      await expect(opening, name).rejects.toSatisfy(refusedWith(name));
    }
    // Refused before "exactly one of pool and connectionString": the misspelt name is the mistake to name.
    await expect(openPostgresStores({ connectionstring: NOWHERE } as unknown as PostgresStoresOptions)).rejects.toSatisfy(refusedWith('connectionstring'));
    await expect(openPostgresStores({ connectionString: NOWHERE, logID: 'x' } as unknown as PostgresStoresOptions)).rejects.toThrow(
      /^logID: is not an option \(known options: pool, connectionString, schema, clock, digester/,
    );
    expect(calls).toEqual([]);
  });

  it('refuses a pool without connect() and query() at open, not as "pool.connect is not a function"', async () => {
    for (const bad of [{}, null, 'postgres://', { connect: () => {} }, { query: () => {} }]) {
      await expect(openPostgresStores({ pool: bad } as unknown as PostgresStoresOptions), JSON.stringify(bad)).rejects.toSatisfy(refusedWith('pool'));
    }
    for (const bad of ['', 42]) {
      await expect(openPostgresStores({ connectionString: bad } as unknown as PostgresStoresOptions), JSON.stringify(bad)).rejects.toSatisfy(
        refusedWith('connectionString'),
      );
    }
  });

  it('refuses a clock without now() and a digester without what the chain needs, before any connection', async () => {
    const { pool: callerPool, calls } = spyPool();
    const digester = createDigester();
    for (const clock of [{}, { now: 5 }, null]) {
      const opening = openPostgresStores({ pool: callerPool, clock } as unknown as PostgresStoresOptions);
      await expect(opening, JSON.stringify(clock)).rejects.toSatisfy(refusedWith('clock'));
    }
    for (const bad of [{}, null, { ...digester, digestTagged: 1 }, { ...digester, keyed: 'no' }]) {
      const opening = openPostgresStores({ pool: callerPool, digester: bad } as unknown as PostgresStoresOptions);
      await expect(opening, JSON.stringify(bad)).rejects.toSatisfy(refusedWith('digester'));
    }
    await expect(openPostgresStores({ connectionString: NOWHERE, clock: {} } as unknown as PostgresStoresOptions)).rejects.toSatisfy(refusedWith('clock'));
    expect(calls).toEqual([]);
  });
});

describe.skipIf(!available)('PostgreSQL stores: a database that stops answering', () => {
  const entry = (text: string) => ({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { text } });

  /**
   * Opens stores on a pool of their own with `options`, then makes the pool hand out no connection
   * ever again (the database hangs), appends `waiting` (the first goes into its transaction, the
   * rest wait for the next one) and one more, and returns what that last append rejected with.
   */
  async function refusedWhileHung(options: { maxPendingAppends?: number; maxPendingUnits?: number }, waiting: string[], last: string): Promise<unknown> {
    const ownPool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const stores = await openPostgresStores({ pool: ownPool, schema: nextSchema(), clock: new ManualClock(T0), ...options });
    const connect = ownPool.connect.bind(ownPool);
    Object.assign(ownPool, { connect: () => new Promise(() => {}) });
    let refused: unknown;
    try {
      for (const text of waiting) stores.auditLog.append(entry(text)).catch(() => {});
      refused = await stores.auditLog.append(entry(last)).then(
        () => null,
        (error: unknown) => error,
      );
    } finally {
      Object.assign(ownPool, { connect });
    }
    // Nothing was written: the head is still the empty log's.
    const head = await pool.query(`SELECT sequence FROM "${stores.schema}".audit_head WHERE id = 1`);
    expect(Number(head.rows[0]?.sequence)).toBe(0);
    await ownPool.end();
    return refused;
  }

  it('refuses appends beyond maxPendingAppends at once, writing nothing, instead of queueing without end', async () => {
    // The first is in its transaction; three wait for the next one; the fifth is refused.
    const refused = await refusedWhileHung({ maxPendingAppends: 3 }, ['a', 'b', 'c', 'd'], 'e');
    expect(PostgresAppendQueueFullError.isInstance(refused)).toBe(true);
    expect((refused as PostgresAppendQueueFullError).pending).toBe(3);
  });

  it('refuses appends beyond maxPendingUnits of waiting text, whatever their count', async () => {
    // In its transaction: not counted. Then bodies of 60 and 40 units wait; 11 more are refused.
    const refused = await refusedWhileHung({ maxPendingUnits: 100 }, ['x'.repeat(500), 'y'.repeat(49), 'z'.repeat(29)], '');
    expect(PostgresAppendQueueFullError.isInstance(refused)).toBe(true);
    expect((refused as PostgresAppendQueueFullError).pending).toBe(2);
  });

  it('gives the pool it makes a connection timeout (pg waits for ever by default) and TCP keepalive', async () => {
    const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema: nextSchema(), clock: new ManualClock(T0) });
    const madeWith = (stores.pool as unknown as { options: { connectionTimeoutMillis?: number; keepAlive?: boolean; keepAliveInitialDelayMillis?: number } }).options;
    expect(madeWith.connectionTimeoutMillis).toBe(10_000);
    // and TCP keepalive, so that a connection to a server that vanished is found dead.
    expect(madeWith.keepAlive).toBe(true);
    // from 10 s of silence: pg's default, 0, leaves the system's (two hours here).
    expect(madeWith.keepAliveInitialDelayMillis).toBe(10_000);
    await stores.close();
  });
});

describe.skipIf(!available)('PostgreSQL stores: a connection the server ends during a write', () => {
  // The server sends its error (57P01) before it closes the socket, and the query rejects on the
  // error: the client must not go back to the pool, or the very next call, the dispatcher's
  // release or markUnknown after the failed write, gets a dead connection (read ECONNRESET).
  it('rejects the write and hands the very next call a live connection', async () => {
    const application = `${RUN_SCHEMA}_ended_write`.slice(0, 63);
    const url = new URL(DATABASE_URL);
    url.searchParams.set('application_name', application);
    const stores = await openPostgresStores({ connectionString: url.toString(), schema: nextSchema(), clock: new ManualClock(T0) });
    const store = stores.idempotencyStore;
    const holder = await pool.connect();
    try {
      for (let round = 0; round < 3; round += 1) {
        const key = `ended-${round}`;
        const claim = await store.claim({ key, request_sha256: REQUEST, owner: 'host-a', lease_ms: 30_000 });
        if (claim.kind !== 'claimed') throw new Error(`round ${round}: not claimed`);
        await holder.query('BEGIN');
        await holder.query(`SELECT key FROM "${stores.schema}".idempotency_records WHERE key = $1 FOR UPDATE`, [key]);
        const starting = store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 30_000 });
        let waiting: number | undefined;
        const deadline = Date.now() + 10_000;
        while (waiting === undefined) {
          if (Date.now() > deadline) throw new Error('markStarted never waited for the row lock');
          const rows = await pool.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [application],
          );
          waiting = rows.rows[0]?.pid;
          if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await pool.query('SELECT pg_terminate_backend($1)', [waiting]);
        await expect(starting).rejects.toThrow('terminating connection due to administrator command');
        await holder.query('ROLLBACK');
        // At once, within the moment before the server closes the socket.
        expect(await store.get(key)).toMatchObject({ state: 'claimed', owner: 'host-a' });
      }
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      await stores.close();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: a host that stalls holding the audit head lock', () => {
  // A host that vanishes without closing its connection (a partition, a frozen VM) would hold the
  // head lock until the server's TCP keepalive gives up (two hours by default), stalling every
  // host's appends. Modelled here by a clock whose reading, taken under the lock, blocks the event
  // loop past HEAD_LOCK_IDLE_TIMEOUT_MS: the server ends the transaction, the append rejects.
  it('the server ends the idle append transaction: the append rejects, nothing is written, the next append commits; a large batch is allowed its transfer time', { timeout: 40_000 }, async () => {
    let stallNext = false;
    const clock = {
      now(): number {
        if (stallNext) {
          stallNext = false;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, HEAD_LOCK_IDLE_TIMEOUT_MS + 1_500);
        }
        return T0;
      },
    };
    const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema: nextSchema(), clock });
    try {
      const entry = (index: number) => ({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
      expect(await stores.auditLog.append(entry(1))).toMatchObject({ sequence: 1 });
      stallNext = true;
      await expect(stores.auditLog.append(entry(2))).rejects.toThrow();
      expect(stallNext).toBe(false);
      expect(await stores.auditLog.append(entry(3))).toMatchObject({ sequence: 2, call_id: 'call-3' });
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2 });
      // The bound grows with the batch's size (the server counts an insert still arriving over a
      // slow link as idle time): 600,000 units allow 5 s + 13.7 s, so the same stall passes.
      stallNext = true;
      const large = { ...entry(4), body: { text: 'x'.repeat(600_000) } };
      expect(await stores.auditLog.append(large)).toMatchObject({ sequence: 3, call_id: 'call-4' });
      expect(stallNext).toBe(false);
    } finally {
      await stores.close();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: findUnresolved', () => {
  // UTF-16 code-unit order, which the contract and the in-memory store use, differs from the
  // UTF-8 byte order of COLLATE "C": U+1F600 and U+10FFFF are surrogate pairs (D83D.., DBFF..)
  // below U+E000 and U+FFFD in UTF-16, but their UTF-8 (F0.., F4..) sorts above theirs (EE.., EF..).
  const tied = ['\uFFFD', '\u{1F600}', 'a', '\uE000x', '\u{10FFFF}'];
  /** Oldest first, then by key in code-unit order, written out from the contract. */
  const expectedOrder = ['b', 'a', '\u{1F600}', '\u{10FFFF}', '\uE000x', '\uFFFD', 'c'];

  async function fill(store: IdempotencyStore, clock: ManualClock): Promise<void> {
    await recordIn(store, 'b', 'claimed');
    await recordIn(store, 'done', 'completed');
    clock.advance(1);
    // Five records with one created_at, in every unresolved state, and two resolved ones beside them.
    for (const [index, key] of tied.entries()) await recordIn(store, key, (['claimed', 'started', 'unknown'] as const)[index % 3] ?? 'claimed');
    await recordIn(store, 'given-back', 'released');
    await recordIn(store, 'other-request', 'started', 'b'.repeat(64));
    clock.advance(1);
    await recordIn(store, 'c', 'started');
  }

  // The order itself (oldest first, then by key in code units) is a conformance case; this shows
  // why the store sorts tied records in JavaScript rather than by COLLATE "C".
  it('sorts tied records itself: COLLATE "C" would not give the contract\'s order', async () => {
    const clock = new ManualClock(T0);
    const stores = await openPostgresStores({ pool, schema: nextSchema(), clock });
    await fill(stores.idempotencyStore, clock);
    const found = await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 100 });
    expect(found?.map((record) => record.key)).toEqual(expectedOrder);
    // What COLLATE "C" would have answered for the tied records: not the contract's order.
    const bytewise = await pool.query<{ key: string }>(
      `SELECT key FROM "${stores.schema}".idempotency_records WHERE created_at = $1 AND state <> 'released' AND request_sha256 = $2 ORDER BY key COLLATE "C"`,
      [T0 + 1, REQUEST],
    );
    expect(bytewise.rows.map((row) => row.key)).toEqual(['a', '\uE000x', '\uFFFD', '\u{1F600}', '\u{10FFFF}']);
  });

  it('finds records another pool (another host) wrote, and refuses malformed inputs with StoreInputError', async () => {
    const schema = nextSchema();
    const clock = new ManualClock(T0);
    const reader = await openPostgresStores({ pool, schema, clock });
    const writer = await openPostgresStores({ connectionString: DATABASE_URL, schema, clock });
    try {
      await recordIn(writer.idempotencyStore, 'key-started', 'started');
      clock.advance(1);
      await recordIn(writer.idempotencyStore, 'key-unknown', 'unknown');
      const found = await reader.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 10 });
      expect(found).toEqual([await writer.idempotencyStore.get('key-started'), await writer.idempotencyStore.get('key-unknown')]);
      expect(found?.map((record) => [record.state, typeof record.fencing_token, record.created_at])).toEqual([
        ['started', 'number', T0],
        ['unknown', 'number', T0 + 1],
      ]);
      for (const input of [{ request_sha256: 'A'.repeat(64), limit: 1 }, { request_sha256: REQUEST, limit: 101 }, { request_sha256: REQUEST }, undefined]) {
        let thrown: unknown;
        try {
          await reader.idempotencyStore.findUnresolved?.(input as never);
        } catch (error) {
          thrown = error;
        }
        expect(StoreInputError.isInstance(thrown), JSON.stringify(input)).toBe(true);
      }
    } finally {
      await writer.close();
    }
  });
});

describe.skipIf(!available).each([
  ['one statement per round trip', pool],
  ['pipelined pool', pipelinedPool],
])('PostgreSQL stores: group commit (%s)', (_name, storePool) => {
  it('commits concurrent appends of one host together, in call order, as one linear chain', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool: storePool, schema });
    const entries = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } }),
      ),
    );
    expect(entries.map((entry) => entry.sequence)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
    expect(entries.map((entry) => entry.body)).toEqual(Array.from({ length: 200 }, (_, index) => ({ index })));
    const times = entries.map((entry) => entry.recorded_at);
    expect([...times].sort()).toEqual(times);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 200, head: { sequence: 200 } });
    // Rows written by one transaction share its xmin: far fewer transactions than appends.
    const transactions = await pool.query<{ count: string }>(`SELECT count(DISTINCT xmin::text) AS count FROM "${schema}".audit_log`);
    const count = Number(transactions.rows[0]?.count);
    expect(count).toBeGreaterThanOrEqual(Math.ceil(199 / 64) + 1);
    expect(count).toBeLessThan(50);
  });

  it('refuses an entry whose remembered text holds a raw NUL or a lone surrogate alone: the appends queued with it commit', async () => {
    const stores = await openPostgresStores({ pool: storePool, schema: nextSchema() });
    const projection = Object.freeze({ note: 'x' });
    rememberCanonicalText(projection, '{"note":"a\u0000b"}', 1);
    // A lone surrogate cannot be hashed into the chain link: refused alone as well.
    const lone = Object.freeze({ note: 'y' });
    rememberCanonicalText(lone, '{"note":"a\ud800b"}', 1);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 9 }, (_, index) =>
        stores.auditLog.append({
          kind: 'sealed_call',
          call_id: `call-${index}`,
          operation_id: null,
          idempotency_key: null,
          body: index === 4 ? { projection } : index === 6 ? { projection: lone } : { index },
        }),
      ),
    );
    for (const refused of [outcomes[4], outcomes[6]]) {
      expect(refused?.status === 'rejected' && StoreInputError.isInstance(refused.reason)).toBe(true);
    }
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(7);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 7, head: { sequence: 7 } });
  });

  it('rejects every append of a batch that cannot commit, writes none of it, and appends again once the head is repaired', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool: storePool, schema });
    const tamper = postgresTamper(pool, schema);
    for (let index = 0; index < 3; index += 1) {
      await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    const head = await stores.auditLog.head();
    // An attacker rewinds the head: the next insert collides with entry 2.
    await tamper.writeHead({ sequence: 1, entry_hash: 'f'.repeat(64) });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        stores.auditLog.append({ kind: 'sealed_call', call_id: `late-${index}`, operation_id: null, idempotency_key: null, body: { index } }),
      ),
    );
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect((await tamper.readRows()).map((row) => row.sequence)).toEqual([1, 2, 3]);
    await tamper.writeHead(head);
    const next = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'after', operation_id: null, idempotency_key: null, body: {} });
    expect(next.sequence).toBe(4);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
  });
});

describe.skipIf(!available)('PostgreSQL stores: schema and connections', () => {
  it('migrates once: reopening and concurrent opens apply nothing twice', async () => {
    const schema = nextSchema();
    const opened = await Promise.all(Array.from({ length: 4 }, () => openPostgresStores({ pool, schema })));
    expect(POSTGRES_SCHEMA_VERSION).toBe(7);
    expect(opened.map((stores) => stores.schemaVersion)).toEqual([7, 7, 7, 7]);
    const versions = await pool.query(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    const columns = await pool.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'audit_log' AND column_name = 'canonical'`,
      [schema],
    );
    expect(columns.rows).toEqual([{ column_name: 'canonical', data_type: 'text' }]);
  });

  const INTENT = '1'.repeat(64);
  const INTENT_OLD = '2'.repeat(64);

  /** A schema as version `version` of this package left it, with a started record in it. */
  async function schemaAtVersion(schema: string, version: number) {
    const s = `"${schema}"`;
    await createSchemaAtVersion(pool, s, version);
    await pool.query(
      `INSERT INTO ${s}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       VALUES ('key-old', $1, 'started', 'host-old', 7, $2, $3, $4)`,
      [REQUEST, T0 + 60_000, T0 - 5, T0],
    );
    // Records under intent keys: an unresolved one gets its digest from the key; a resolved one and
    // a key that only looks like one do not.
    for (const [key, state, created] of [
      [`intent-${INTENT_OLD}`, 'unknown', T0 - 4],
      [`intent-${'3'.repeat(64)}`, 'released', T0 - 3],
      [`intent-${'G'.repeat(64)}`, 'unknown', T0 - 2],
    ] as const) {
      await pool.query(
        `INSERT INTO ${s}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'host-old', 1, 0, $4, $5)`,
        [key, '4'.repeat(64), state, created, T0],
      );
    }
  }

  const indexDefinition = async (schema: string, name: string) =>
    (await pool.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2', [schema, name])).rows.map(
      (row) => row.indexdef,
    );


  /** The statement triggers that fire before TRUNCATE on the schema's audit_head. */
  const headTruncateTriggers = async (schema: string) =>
    (
      await pool.query<{ tgname: string }>(
        `SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal AND (tgtype & 32) <> 0 ORDER BY tgname`,
        [`"${schema}".audit_head`],
      )
    ).rows.map((row) => row.tgname);

  it('the review: migrates a version 3 schema (its audit log kept) through version 4, whose audit_head refuses TRUNCATE', async () => {
    const schema = nextSchema();
    await schemaAtVersion(schema, 3);
    const before = await appendAtVersion3(schema);
    expect(await headTruncateTriggers(schema)).toEqual([]);
    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    expect(stores.schemaVersion).toBe(7);
    const versions = await pool.query(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    expect(await headTruncateTriggers(schema)).toEqual(['audit_head_no_truncate']);
    await expect(pool.query(`TRUNCATE "${schema}".audit_head`)).rejects.toThrow(/only follows appends/);
    expect(await stores.auditLog.head()).toEqual(before);
    expect(await stores.idempotencyStore.get('key-old')).toEqual(intentMigrationOldRecord(REQUEST, T0));
    const entry = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'after', operation_id: null, idempotency_key: null, body: {} });
    expect(entry.sequence).toBe(3);
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
  });

  /**
   * Two entries in a version 3 schema, as stores of that version would have appended them: copied
   * row by row (the triggers check and move the head) from stores on a scratch schema, since
   * stores of this version would migrate the schema on open. Answers the head.
   */
  async function appendAtVersion3(schema: string): Promise<AuditHead> {
    const scratch = nextSchema();
    const writer = await openPostgresStores({ pool, schema: scratch, clock: new ManualClock(T0) });
    for (let index = 0; index < 2; index += 1) {
      await writer.auditLog.append({ kind: 'sealed_call', call_id: `old-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    for (const sequence of [1, 2]) {
      await pool.query(`INSERT INTO "${schema}".audit_log SELECT * FROM "${scratch}".audit_log WHERE sequence = $1`, [sequence]);
    }
    const head = await writer.auditLog.head();
    await pool.query(`DROP SCHEMA "${scratch}" CASCADE`);
    if (head === null) throw new Error('the scratch log is empty');
    return head;
  }

  for (const version of [1, 2]) {
    it(`migrates a schema created at version ${version} to the intent column and index, keeping its records readable and findable`, async () => {
      const schema = nextSchema();
      await schemaAtVersion(schema, version);
      expect(await indexDefinition(schema, 'idempotency_records_request')).toHaveLength(version >= 2 ? 1 : 0);
      expect(await indexDefinition(schema, 'idempotency_records_intent')).toEqual([]);
      const clock = new ManualClock(T0);
      const stores = await openPostgresStores({ pool, schema, clock });
      expect(stores.schemaVersion).toBe(7);
      const versions = await pool.query(`SELECT version FROM "${schema}".schema_version ORDER BY version`);
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
      expect(await headTruncateTriggers(schema)).toEqual(['audit_head_no_truncate']);
      expect(await indexDefinition(schema, 'idempotency_records_request')).toEqual([
        `CREATE INDEX idempotency_records_request ON ${schema}.idempotency_records USING btree (request_sha256, created_at)`,
      ]);
      expect(await indexDefinition(schema, 'idempotency_records_intent')).toEqual([
        `CREATE INDEX idempotency_records_intent ON ${schema}.idempotency_records USING btree (intent_sha256, created_at) WHERE (intent_sha256 IS NOT NULL)`,
      ]);
      // The record written before the column existed reads back with no intent digest.
      await checkIntentDigestMigration(stores.idempotencyStore, { request: REQUEST, intent: INTENT, intentOld: INTENT_OLD, now: T0 });
    });
  }

  it('migrates a version 1 schema whose request index an operator built beforehand (CONCURRENTLY)', async () => {
    const schema = nextSchema();
    await schemaAtVersion(schema, 1);
    await pool.query(`CREATE INDEX CONCURRENTLY idempotency_records_request ON "${schema}".idempotency_records (request_sha256, created_at)`);
    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    expect(stores.schemaVersion).toBe(7);
    expect(await indexDefinition(schema, 'idempotency_records_request')).toHaveLength(1);
    expect((await stores.idempotencyStore.findUnresolved?.({ request_sha256: REQUEST, limit: 1 }))?.map((record) => record.key)).toEqual(['key-old']);
  });

  it('migrates a version 2 schema whose intent column and index an operator built beforehand (CONCURRENTLY)', async () => {
    const schema = nextSchema();
    await schemaAtVersion(schema, 2);
    await pool.query(`ALTER TABLE "${schema}".idempotency_records ADD COLUMN intent_sha256 text`);
    await pool.query(
      `CREATE INDEX CONCURRENTLY idempotency_records_intent ON "${schema}".idempotency_records (intent_sha256, created_at) WHERE intent_sha256 IS NOT NULL`,
    );
    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    expect(stores.schemaVersion).toBe(7);
    expect(await indexDefinition(schema, 'idempotency_records_intent')).toHaveLength(1);
    expect(await stores.idempotencyStore.get('key-old')).toEqual(intentMigrationOldRecord(REQUEST, T0));
    await recordIn(stores.idempotencyStore, 'key-new', 'started', 'b'.repeat(64), INTENT);
    expect((await stores.idempotencyStore.findUnresolved?.({ intent_sha256: INTENT, limit: 1 }))?.map((record) => record.key)).toEqual(['key-new']);
  });

  it('looks records of one intent up through the intent index', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema });
    const client = await pool.connect();
    try {
      // Sequential scans off: with the table nearly empty the planner would otherwise prefer one.
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT key FROM "${schema}".idempotency_records WHERE intent_sha256 = $1 ORDER BY created_at`,
        [INTENT],
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/idempotency_records_intent/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });

  it('concurrent first opens of new schemas on warm connections all migrate (the version read leaves no stale catalog entry)', async () => {
    // Looking the schema up by name before the migration lock (to_regclass) left a "not found" in
    // each connection's catalog cache: after waiting for the lock, CREATE SCHEMA IF NOT EXISTS
    // missed the schema another open had just created and failed on a duplicate key.
    const warm = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
    try {
      await Promise.all(Array.from({ length: 6 }, () => warm.query('SELECT pg_sleep(0.05)')));
      for (let round = 0; round < 5; round += 1) {
        const schema = nextSchema();
        const opened = await Promise.allSettled(Array.from({ length: 6 }, () => openPostgresStores({ pool: warm, schema })));
        expect(opened.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.schemaVersion : String(outcome.reason)))).toEqual(Array(6).fill(POSTGRES_SCHEMA_VERSION));
      }
    } finally {
      await warm.end();
    }
  });

  it('refuses a schema written by a newer version', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema });
    await pool.query(`INSERT INTO "${schema}".schema_version VALUES (99, 'later')`);
    await expect(openPostgresStores({ pool, schema })).rejects.toThrow(/newer than this package/);
  });

  it('rejects schema names that are not plain identifiers', async () => {
    await expect(openPostgresStores({ pool, schema: 'toolseal"; DROP TABLE x; --' })).rejects.toThrow(RangeError);
  });

  it('owns and ends a pool created from a connection string', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema });
    await stores.auditLog.append({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: {} });
    await stores.close();
    expect(stores.pool.ending).toBe(true);
  });

  it("listens for 'error' on a pool it creates and adds no listener to a caller's pool", async () => {
    const before = pool.listenerCount('error');
    await openPostgresStores({ pool, schema: nextSchema() });
    expect(pool.listenerCount('error')).toBe(before);
    const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema: nextSchema() });
    try {
      expect(stores.pool.listenerCount('error')).toBe(1);
      // With no listener, emitting 'error' throws: what pg-pool does when an idle connection is lost.
      expect(() => stores.pool.emit('error', new Error('Connection terminated unexpectedly'))).not.toThrow();
      expect(await stores.auditLog.head()).toBeNull();
    } finally {
      await stores.close();
    }
  });

  // Two schemas served by one connection prepare their statements side by side.
  async function shareOneConnection(schemaA: string, schemaB: string) {
    const single = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    try {
      const a = await openPostgresStores({ pool: single, schema: schemaA });
      const b = await openPostgresStores({ pool: single, schema: schemaB });
      for (const [owner, stores] of [['host-a', a], ['host-b', b]] as const) {
        const claim = await stores.idempotencyStore.claim({ key: 'k', request_sha256: REQUEST, owner, lease_ms: 1000 });
        expect(claim.kind).toBe('claimed');
        expect(await stores.idempotencyStore.get('k')).toMatchObject({ owner, state: 'claimed' });
      }
      for (let index = 0; index < 4; index += 1) {
        const stores = index % 2 === 0 ? a : b;
        await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
      }
      expect(await a.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2, head: { sequence: 2 } });
      expect(await b.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 2, head: { sequence: 2 } });
      expect((await b.auditLog.query({}, { limit: 10 })).entries.map((entry) => entry.call_id)).toEqual(['call-1', 'call-3']);
      // Each schema's statements were prepared on the one connection (insert_record,
      // select_record, insert_audit, select_head, select_audit_page).
      const prepared = await single.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements WHERE name LIKE 'toolseal%'");
      const preparedFor = (schema: string) => prepared.rows.filter((row) => row.statement.includes(`"${schema}".`)).length;
      expect([preparedFor(schemaA), preparedFor(schemaB)]).toEqual([5, 5]);
    } finally {
      await single.end();
    }
  }

  it('stores of two schemas whose former 32-bit statement tags collide share one connection', async () => {
    // The former names carried the 32-bit FNV-1a hash of the schema, and tenant_229599 and
    // tenant_432382 share it (found by the review). FNV-1a keeps a collision under any common
    // suffix: this run's own pair.
    const suffix = RUN_SCHEMA.slice('toolseal_test_'.length);
    const [schemaA, schemaB] = [`tenant_229599_${suffix}`, `tenant_432382_${suffix}`];
    expect(fnv1a(schemaA)).toBe(fnv1a(schemaB));
    try {
      await shareOneConnection(schemaA, schemaB);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schemaA}", "${schemaB}" CASCADE`);
    }
  });

  it('stores of two 63-character schemas that differ only in their last character share one connection', async () => {
    const stem = `${RUN_SCHEMA}_long_`.padEnd(62, 'x');
    await shareOneConnection(`${stem}a`, `${stem}b`);
  });

  it('refuse raw updates, deletes, truncation, inserts away from the head and head rewinds', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    for (let index = 0; index < 3; index += 1) {
      await stores.auditLog.append({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { index } });
    }
    const s = `"${schema}"`;
    await expect(pool.query(`UPDATE ${s}.audit_log SET kind = 'approval' WHERE sequence = 2`)).rejects.toThrow(/append-only/);
    await expect(pool.query(`DELETE FROM ${s}.audit_log WHERE sequence = 3`)).rejects.toThrow(/append-only/);
    await expect(pool.query(`TRUNCATE ${s}.audit_log`)).rejects.toThrow(/append-only/);
    await expect(
      pool.query(`INSERT INTO ${s}.audit_log VALUES (9, '2026-07-19T00:00:00.000Z', 'approval', NULL, NULL, NULL, 'x', 'y', '{}')`),
    ).rejects.toThrow(/only at the head/);
    await expect(pool.query(`UPDATE ${s}.audit_head SET sequence = 2`)).rejects.toThrow(/only follows appends/);
    await expect(pool.query(`DELETE FROM ${s}.audit_head`)).rejects.toThrow(/only follows appends/);
    // The review: TRUNCATE fires no row trigger, and went through until schema version 4.
    await expect(pool.query(`TRUNCATE ${s}.audit_head`)).rejects.toThrow(/only follows appends/);
    await expect(pool.query(`TRUNCATE ${s}.audit_log, ${s}.audit_head`)).rejects.toThrow(/append-only|only follows appends/);
    expect(await stores.auditLog.head()).toMatchObject({ sequence: 3 });
    expect((await stores.auditLog.verifyChain()).ok).toBe(true);
  });

  it('the review: a head row removed with the triggers disabled is a failed verification (edited / head_missing), not an exception', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    const s = `"${schema}"`;
    const removeHead = async () => {
      await pool.query(`ALTER TABLE ${s}.audit_head DISABLE TRIGGER USER`);
      await pool.query(`DELETE FROM ${s}.audit_head`);
      await pool.query(`ALTER TABLE ${s}.audit_head ENABLE TRIGGER USER`);
    };
    const restoreHead = (head: AuditHead) =>
      pool.query(`INSERT INTO ${s}.audit_head (id, sequence, entry_hash) VALUES (1, $1, $2)`, [head.sequence, head.entry_hash]);
    const missing = (position: number) => ({ ok: false, position, problem: 'edited', detail: 'head_missing' });

    // An empty log: where a head should point, at least 1 (as for head_malformed).
    await removeHead();
    expect(await stores.auditLog.verifyChain()).toEqual(missing(1));
    await restoreHead({ sequence: 0, entry_hash: '0'.repeat(64) });
    for (let index = 0; index < 3; index += 1) {
      await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    const head = await stores.auditLog.head();
    if (head === null) throw new Error('no head after three appends');
    const tamper = postgresTamper(pool, schema);
    const rows = await tamper.readRows();
    await removeHead();
    // Every row is checked first: the head is reported at the last entry, from 1 or incrementally.
    expect(await stores.auditLog.verifyChain()).toEqual(missing(3));
    const anchor = { sequence: 2, entry_hash: rows[1]?.entry_hash ?? '' };
    expect(await stores.auditLog.verifyChain({ from: 3, anchor })).toEqual(missing(3));
    expect(await stores.auditLog.verifyChain({ from: 4 })).toEqual(missing(3));
    // An edited row before it is reported as itself.
    await tamper.writeRows(rows.map((row) => (row.sequence === 2 ? { ...row, canonical: row.canonical.replace('"index":1', '"index":7') } : row)));
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: false, position: 2, problem: 'edited' });
    await tamper.writeRows(rows);
    // Appends cannot go on without a head; restored from the last entry, the log verifies again.
    await expect(
      stores.auditLog.append({ kind: 'sealed_call', call_id: 'late', operation_id: null, idempotency_key: null, body: {} }),
    ).rejects.toThrow(/audit_head row is missing/);
    await restoreHead(head);
    expect(await stores.auditLog.verifyChain()).toEqual({ ok: true, checked: 3, head, anchored: false });
  });
});

/**
 * Runs `before` with the statement's name (the part after the schema prefix) before each named
 * statement a client of `target` sends; the pool hands the same client out again, so each is
 * wrapped once.
 */
function beforeNamedStatements(target: pg.Pool, before: (name: string) => Promise<void> | void): void {
  const wrapped = new WeakSet<object>();
  const connect = target.connect.bind(target) as () => Promise<pg.PoolClient>;
  (target as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as (config: unknown, ...rest: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (config: unknown, ...rest: unknown[]) => Promise<unknown> }).query = async (config, ...rest) => {
      const name = typeof config === 'object' && config !== null ? String((config as { name?: unknown }).name ?? '').split(':').pop() ?? '' : '';
      if (name !== '') await before(name);
      return query(config, ...rest);
    };
    return client;
  };
}

/**
 * Two hosts' idempotency stores on one new schema: `a` on the shared pool, `b` on a pool of its own
 * (`poolB`, which the caller ends), so hooks on `poolB` see only B's statements.
 */
async function twoHosts(clock: ManualClock, poolBMax = 2) {
  const schema = nextSchema();
  const poolB = new pg.Pool({ connectionString: DATABASE_URL, max: poolBMax });
  const a = (await openPostgresStores({ pool, schema, clock })).idempotencyStore;
  const b = (await openPostgresStores({ pool: poolB, schema, clock })).idempotencyStore;
  return { a, b, poolB };
}

/**
 * The privileges the README lists for a host role that opens an already-migrated schema: USAGE on
 * the schema, SELECT on schema_version, and what the stores' statements and triggers touch.
 */
const RUNTIME_GRANTS = [
  'GRANT USAGE ON SCHEMA $s TO $r',
  'GRANT SELECT ON $s.schema_version TO $r',
  'GRANT SELECT, INSERT, UPDATE, DELETE ON $s.idempotency_records TO $r',
  'GRANT SELECT, UPDATE ON $s.idempotency_token_floor TO $r',
  'GRANT SELECT, INSERT ON $s.audit_log TO $r',
  'GRANT SELECT, UPDATE ON $s.audit_head TO $r',
];

describe.skipIf(!available)('PostgreSQL stores: a role without DDL privileges', () => {
  // Roles belong to the cluster, not the database: one per test run, dropped with what it was granted.
  const role = `${RUN_SCHEMA}_app`;
  afterAll(async () => {
    const exists = await pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (exists.rowCount === 0) return;
    await pool.query(`DROP OWNED BY "${role}"`);
    await pool.query(`DROP ROLE "${role}"`);
  });

  it('the review: opens a schema an owner migrated, and every store call works, with USAGE and the tables\' privileges only', async () => {
    await pool.query(`CREATE ROLE "${role}" NOLOGIN`);
    const schema = nextSchema();
    const clock = new ManualClock(T0);
    await (await openPostgresStores({ pool, schema, clock })).close();
    for (const grant of RUNTIME_GRANTS) await pool.query(grant.replaceAll('$s', `"${schema}"`).replaceAll('$r', `"${role}"`));
    // Every connection of this pool acts as the role (no CREATE on the database or the schema).
    const rolePool = new pg.Pool({ connectionString: DATABASE_URL, max: 2, options: `-c role=${role}` });
    try {
      await expect(rolePool.query('SELECT current_user AS name')).resolves.toMatchObject({ rows: [{ name: role }] });
      // Opening ran CREATE SCHEMA IF NOT EXISTS every time, which PostgreSQL refuses such a role (42501).
      const stores = await openPostgresStores({ pool: rolePool, schema, clock });
      expect(stores.schemaVersion).toBe(POSTGRES_SCHEMA_VERSION);
      const store = stores.idempotencyStore;
      const claim = await store.claim({ key: 'k', request_sha256: REQUEST, intent_sha256: 'b'.repeat(64), owner: 'host', lease_ms: 1_000 });
      if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${claim.kind}`);
      const fenced = { key: 'k', fencing_token: claim.fencing_token };
      expect((await store.markStarted({ ...fenced, lease_ms: 1_000 })).ok).toBe(true);
      expect((await store.complete({ ...fenced, result: { sealed_json: '{"ok":true}', receipt: 'r-1' } })).ok).toBe(true);
      expect(await store.findCompleted?.({ intent_sha256: 'b'.repeat(64), limit: 5 })).toHaveLength(1);
      expect(await store.findUnresolved?.({ request_sha256: REQUEST, limit: 5 })).toEqual([]);
      clock.advance(60_000);
      expect(await store.purgeExpired({ older_than_ms: 1_000 })).toBe(1);
      const again = await store.claim({ key: 'k', request_sha256: REQUEST, owner: 'host', lease_ms: 1_000 });
      if (again.kind !== 'claimed') throw new Error(`expected a claim, got ${again.kind}`);
      expect((await store.release({ key: 'k', fencing_token: again.fencing_token })).ok).toBe(true);
      const lost = await store.claim({ key: 'lost', request_sha256: REQUEST, owner: 'host', lease_ms: 1_000 });
      if (lost.kind !== 'claimed') throw new Error(`expected a claim, got ${lost.kind}`);
      expect((await store.markStarted({ key: 'lost', fencing_token: lost.fencing_token, lease_ms: 1_000 })).ok).toBe(true);
      expect((await store.markUnknown({ key: 'lost', fencing_token: lost.fencing_token })).ok).toBe(true);
      expect((await store.reconcile({ key: 'lost', request_sha256: REQUEST, result: { sealed_json: '{}', receipt: 'r-2' } })).ok).toBe(true);
      expect(await store.get('lost')).toMatchObject({ state: 'completed', result: { delivery: 'receipt_reconciled' } });
      const entry = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-1', operation_id: null, idempotency_key: 'k', body: { n: 1 } });
      expect(await stores.auditLog.head()).toEqual({ sequence: 1, entry_hash: entry.entry_hash });
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 1 });
      expect((await stores.auditLog.query({ call_id: 'call-1' }, { limit: 10 })).entries).toHaveLength(1);
      await stores.close();
      // Migrating still needs DDL privileges: a schema behind (here, one that does not exist) is refused.
      await expect(openPostgresStores({ pool: rolePool, schema: nextSchema() })).rejects.toMatchObject({ code: '42501' });
    } finally {
      await rolePool.end();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: the audit_head guard', () => {
  // Roles belong to the cluster, not the database: one per test run, dropped with what it was granted.
  const role = `${RUN_SCHEMA}_head`;
  afterAll(async () => {
    const exists = await pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (exists.rowCount === 0) return;
    await pool.query(`DROP OWNED BY "${role}"`);
    await pool.query(`DROP ROLE "${role}"`);
  });

  type HeadRow = { sequence: string; entry_hash: string };
  const FORGED = 'f'.repeat(64);

  /**
   * Runs `statements` on `client` in a transaction it rolls back, and answers the head row as they
   * left it (undefined: removed). The attack of the review: a trigger function of the caller's own
   * (in pg_temp, on a temporary table: TEMP is granted to PUBLIC) changes audit_head, which its
   * guard sees at trigger depth 2, as it sees the update of audit_head_follow.
   */
  async function inRolledBack(client: pg.PoolClient, schema: string, statements: readonly string[]): Promise<HeadRow | undefined> {
    await client.query('BEGIN');
    try {
      for (const text of statements) await client.query(text);
      return (await client.query<HeadRow>(`SELECT sequence, entry_hash FROM "${schema}".audit_head`)).rows[0];
    } finally {
      await client.query('ROLLBACK');
    }
  }

  /** `change` (SQL on audit_head) run by a trigger function of the caller's own, in pg_temp. */
  const fromOwnTrigger = (change: string) => [
    'CREATE TEMP TABLE head_attack (x int)',
    `CREATE FUNCTION pg_temp.head_attack() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${change}; RETURN NULL; END $$`,
    'CREATE TRIGGER head_attack AFTER INSERT ON head_attack FOR EACH ROW EXECUTE FUNCTION pg_temp.head_attack()',
    'INSERT INTO head_attack VALUES (1)',
  ];

  /** audit_head_follow itself, attached to a temporary table whose rows carry any head. */
  const followOnOwnTable = (schema: string, sequence: number, entryHash: string) => [
    'CREATE TEMP TABLE head_forged (sequence bigint, entry_hash text)',
    `CREATE TRIGGER head_forged AFTER INSERT ON head_forged FOR EACH ROW EXECUTE FUNCTION "${schema}".audit_head_follow()`,
    `INSERT INTO head_forged VALUES (${sequence}, '${entryHash}')`,
  ];

  /** `DELETE FROM audit_head` from a trigger function of the caller's own. */
  const deleteFromOwnTrigger = (schema: string) => fromOwnTrigger(`DELETE FROM "${schema}".audit_head`);

  /** The ways the review (and this test) found to update audit_head at trigger depth 2, with the head at `sequence`. */
  const depthTwoAttacks = (schema: string, sequence: number): Array<[string, readonly string[]]> => {
    const s = `"${schema}"`;
    return [
      ['rewind', fromOwnTrigger(`UPDATE ${s}.audit_head SET sequence = 1, entry_hash = '${FORGED}' WHERE id = 1`)],
      ['next sequence, forged hash', fromOwnTrigger(`UPDATE ${s}.audit_head SET sequence = sequence + 1, entry_hash = '${FORGED}'`)],
      ['same sequence, forged hash', fromOwnTrigger(`UPDATE ${s}.audit_head SET entry_hash = '${FORGED}'`)],
      ['audit_head_follow on a temporary table', followOnOwnTable(schema, sequence + 1, FORGED)],
    ];
  };

  it('the review: a role with only the listed grants cannot rewind, forge or remove the head from a trigger of its own (trigger depth 2)', async () => {
    await pool.query(`CREATE ROLE "${role}" NOLOGIN`);
    const schema = nextSchema();
    const s = `"${schema}"`;
    const owner = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    for (let index = 0; index < 3; index += 1) {
      await owner.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    const head = await owner.auditLog.head();
    for (const grant of RUNTIME_GRANTS) await pool.query(grant.replaceAll('$s', s).replaceAll('$r', `"${role}"`));
    const rolePool = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: `-c role=${role}` });
    try {
      const client = await rolePool.connect();
      try {
        await expect(client.query('SELECT current_user AS name')).resolves.toMatchObject({ rows: [{ name: role }] });
        // Directly (trigger depth 1), as before.
        await expect(client.query(`UPDATE ${s}.audit_head SET sequence = 1 WHERE id = 1`)).rejects.toThrow(/only follows appends/);
        for (const [name, statements] of depthTwoAttacks(schema, 3)) {
          await expect(inRolledBack(client, schema, statements), name).rejects.toThrow(/only follows appends/);
        }
        // The role holds no DELETE on audit_head: refused before any trigger, at any depth.
        await expect(client.query(`DELETE FROM ${s}.audit_head`)).rejects.toMatchObject({ code: '42501' });
        await expect(inRolledBack(client, schema, deleteFromOwnTrigger(schema))).rejects.toMatchObject({ code: '42501' });
      } finally {
        client.release();
      }
      // The role's own appends still move the head, and the chain verifies.
      const stores = await openPostgresStores({ pool: rolePool, schema, clock: new ManualClock(T0) });
      expect(await stores.auditLog.head()).toEqual(head);
      const entry = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'after', operation_id: null, idempotency_key: null, body: {} });
      expect(entry.sequence).toBe(4);
      expect(await stores.auditLog.head()).toEqual({ sequence: 4, entry_hash: entry.entry_hash });
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 4 });
      await stores.close();
    } finally {
      await rolePool.end();
    }
  });

  it('allows exactly the step an append makes: to the next entry as stored, never back, beyond it or to another hash', async () => {
    const schema = nextSchema();
    const s = `"${schema}"`;
    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    const first = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'a', operation_id: null, idempotency_key: null, body: {} });
    expect(await stores.auditLog.head()).toEqual({ sequence: 1, entry_hash: first.entry_hash });
    // An entry beyond the head without the head moved (audit_head_follow disabled, as only the
    // tables' owner can): the head may then step to it, even directly, and only to it.
    const tamper = postgresTamper(pool, schema);
    await pool.query(`ALTER TABLE ${s}.audit_log DISABLE TRIGGER audit_head_follow`);
    const second = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'b', operation_id: null, idempotency_key: null, body: {} });
    await pool.query(`ALTER TABLE ${s}.audit_log ENABLE TRIGGER audit_head_follow`);
    expect((await tamper.readRows()).map((row) => row.sequence)).toEqual([1, 2]);
    expect(await stores.auditLog.head()).toEqual({ sequence: 1, entry_hash: first.entry_hash });
    for (const [sequence, hash] of [
      [2, FORGED],
      [2, first.entry_hash],
      [3, second.entry_hash],
      [1, first.entry_hash],
      [0, '0'.repeat(64)],
    ] as const) {
      await expect(pool.query(`UPDATE ${s}.audit_head SET sequence = $1, entry_hash = $2`, [sequence, hash]), `${sequence}`).rejects.toThrow(
        /only follows appends/,
      );
    }
    await expect(pool.query(`UPDATE ${s}.audit_head SET id = 2, sequence = 2, entry_hash = $1`, [second.entry_hash])).rejects.toThrow();
    await pool.query(`UPDATE ${s}.audit_head SET sequence = 2, entry_hash = $1`, [second.entry_hash]);
    expect(await stores.auditLog.head()).toEqual({ sequence: 2, entry_hash: second.entry_hash });
    const third = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'c', operation_id: null, idempotency_key: null, body: {} });
    expect(await stores.auditLog.head()).toEqual({ sequence: 3, entry_hash: third.entry_hash });
    expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
  });

  it("compares with pg_catalog's operators, whatever search_path the session sets (one that shadows = cannot forge the head)", async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call', operation_id: null, idempotency_key: null, body: {} });
    const head = await stores.auditLog.head();
    // A schema of operators that call everything equal, first on the session's search_path (as a
    // role with CREATE on any schema could set up), in a transaction rolled back.
    const shadow = `"${nextSchema()}"`;
    const client = await pool.connect();
    try {
      const attempt = inRolledBack(client, schema, [
        `CREATE SCHEMA ${shadow}`,
        ...['bigint', 'text'].flatMap((type) => [
          `CREATE FUNCTION ${shadow}.equal_${type}(${type}, ${type}) RETURNS boolean LANGUAGE sql AS 'SELECT true'`,
          `CREATE OPERATOR ${shadow}.= (LEFTARG = ${type}, RIGHTARG = ${type}, FUNCTION = ${shadow}.equal_${type})`,
        ]),
        `SET LOCAL search_path = ${shadow}, pg_catalog`,
        `UPDATE "${schema}".audit_head SET sequence = 9, entry_hash = '${FORGED}'`,
      ]);
      await expect(attempt).rejects.toThrow(/only follows appends/);
    } finally {
      client.release();
    }
    expect(await stores.auditLog.head()).toEqual(head);
  });

  it('pins the search_path of every trigger function of the schema to pg_catalog, pg_temp', async () => {
    const schema = nextSchema();
    await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    const functions = await pool.query<{ proname: string; proconfig: string[] | null }>(
      `SELECT p.proname, p.proconfig FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
        WHERE n.nspname = $1 AND p.prorettype = 'pg_catalog.trigger'::regtype ORDER BY p.proname`,
      [schema],
    );
    expect(functions.rows.length).toBe(9);
    for (const row of functions.rows) expect({ [row.proname]: row.proconfig }).toEqual({ [row.proname]: ['search_path=pg_catalog, pg_temp'] });
  });

  it('migrates a version 5 schema (its audit log kept) to version 6, whose guard checks the change instead of the trigger depth', async () => {
    const schema = nextSchema();
    const s = `"${schema}"`;
    await createSchemaAtVersion(pool, s, 5);
    // Two entries as hosts of version 5 appended them: copied row by row (the triggers check and
    // move the head) from stores on a scratch schema.
    const scratch = nextSchema();
    const writer = await openPostgresStores({ pool, schema: scratch, clock: new ManualClock(T0) });
    for (let index = 0; index < 2; index += 1) {
      await writer.auditLog.append({ kind: 'sealed_call', call_id: `old-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    for (const sequence of [1, 2]) {
      await pool.query(`INSERT INTO ${s}.audit_log SELECT * FROM "${scratch}".audit_log WHERE sequence = $1`, [sequence]);
    }
    const head = await writer.auditLog.head();
    await pool.query(`DROP SCHEMA "${scratch}" CASCADE`);
    const guardSource = async () =>
      (await pool.query<{ prosrc: string }>(`SELECT prosrc FROM pg_proc WHERE oid = $1::regprocedure`, [`${s}.audit_head_guard()`])).rows[0]?.prosrc ?? '';
    expect(await guardSource()).toContain('pg_trigger_depth');
    // At version 5 the review's attack goes through (rolled back here).
    const client = await pool.connect();
    try {
      expect(await inRolledBack(client, schema, depthTwoAttacks(schema, 2)[0]?.[1] ?? [])).toEqual({ sequence: '1', entry_hash: FORGED });
      // A DELETE there was skipped without a word (the guard answered NEW, which a DELETE has not).
      expect(await inRolledBack(client, schema, deleteFromOwnTrigger(schema))).toEqual({ sequence: '2', entry_hash: head?.entry_hash });

      const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
      expect(stores.schemaVersion).toBe(7);
      const versions = await pool.query(`SELECT version FROM ${s}.schema_version ORDER BY version`);
      expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
      expect(await guardSource()).not.toContain('pg_trigger_depth');
      // The trigger of version 1 calls the replaced function: one guard, before UPDATE or DELETE.
      const triggers = await pool.query<{ tgname: string; proname: string }>(
        `SELECT t.tgname, p.proname FROM pg_trigger AS t JOIN pg_proc AS p ON p.oid = t.tgfoid
         WHERE t.tgrelid = $1::regclass AND NOT t.tgisinternal ORDER BY t.tgname`,
        [`${s}.audit_head`],
      );
      expect(triggers.rows).toEqual([
        { tgname: 'audit_head_guard', proname: 'audit_head_guard' },
        { tgname: 'audit_head_no_truncate', proname: 'audit_head_no_truncate' },
      ]);
      for (const [name, statements] of depthTwoAttacks(schema, 2)) {
        await expect(inRolledBack(client, schema, statements), name).rejects.toThrow(/only follows appends/);
      }
      await expect(inRolledBack(client, schema, deleteFromOwnTrigger(schema))).rejects.toThrow(/only follows appends/);
      await expect(pool.query(`DELETE FROM ${s}.audit_head`)).rejects.toThrow(/only follows appends/);
      expect(await stores.auditLog.head()).toEqual(head);
      const entry = await stores.auditLog.append({ kind: 'sealed_call', call_id: 'after', operation_id: null, idempotency_key: null, body: {} });
      expect(entry.sequence).toBe(3);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
      // Reopening applies nothing again.
      expect((await openPostgresStores({ pool, schema })).schemaVersion).toBe(7);
      expect((await pool.query(`SELECT count(*)::int AS count FROM ${s}.schema_version`)).rows).toEqual([{ count: 7 }]);
    } finally {
      client.release();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: a claim retried across a purge', () => {
  it('the review: each attempt reads the clock again, so a purged key never hands out a token twice', async () => {
    const clock = new ManualClock(1_000);
    const { a, b, poolB } = await twoHosts(clock);
    try {
      const key = 'refund-7';
      const first = await a.claim({ key, request_sha256: REQUEST, owner: 'A1', lease_ms: 5 });
      expect(first).toMatchObject({ kind: 'claimed', fencing_token: 1_001 });
      // B reads the clock at 1 000; before its insert A takes the key over and gives it back;
      // before its takeover update the clock jumps and retention deletes the record.
      const hooks: Record<string, () => Promise<void>> = {
        insert_record: async () => {
          clock.set(1_005);
          const second = await a.claim({ key, request_sha256: REQUEST, owner: 'A2', lease_ms: 5 });
          if (second.kind !== 'claimed') throw new Error('A2 did not take the key over');
          await a.release({ key, fencing_token: second.fencing_token });
        },
        update_record: async () => {
          clock.set(2_000);
          expect(await a.purgeExpired({ older_than_ms: 0 })).toBe(1);
        },
      };
      // B's statements run on a client of its pool: each named one may run a hook first.
      beforeNamedStatements(poolB, async (name) => {
        const hook = hooks[name];
        if (hook === undefined) return;
        delete hooks[name];
        await hook();
      });
      clock.set(1_000);
      const claimed = await b.claim({ key, request_sha256: REQUEST, owner: 'B', lease_ms: 30_000 });
      expect(Object.keys(hooks)).toEqual([]);
      // A first token from the reading after the purge, above every token the key handed out.
      expect(claimed).toMatchObject({ kind: 'claimed', fencing_token: 2_001 });
      const late = await a.markStarted({ key, fencing_token: 1_001, lease_ms: 30_000 });
      expect(late).toMatchObject({ ok: false, reason: 'fenced' });
      expect(await b.markStarted({ key, fencing_token: 2_001, lease_ms: 30_000 })).toMatchObject({ ok: true });
    } finally {
      await poolB.end();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: purging a backlog', () => {
  it('the review: deletes 2 500 settled records in batches of 1 000 (three statements), then the lapsed claims (one), keeping the others', async () => {
    const clock = new ManualClock(10_000);
    const schema = nextSchema();
    const { idempotencyStore: store } = await openPostgresStores({ pool, schema, clock });
    const q = `"${schema}"`;
    await pool.query(
      `INSERT INTO ${q}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       SELECT 'old-' || g, repeat('a', 64), 'released', 'o', 1000 + g, 0, 500, 500 FROM generate_series(1, 2500) AS g`,
    );
    await pool.query(
      `INSERT INTO ${q}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       VALUES ('lapsed', repeat('a', 64), 'claimed', 'o', 900, 600, 500, 500)`,
    );
    expect(await store.claim({ key: 'live', request_sha256: REQUEST, owner: 'o', lease_ms: 60_000 })).toMatchObject({ kind: 'claimed' });
    // A statement-level trigger of the test's own counts the DELETE statements.
    await pool.query(`CREATE TABLE ${q}.deletes (at serial)`);
    await pool.query(`CREATE FUNCTION ${q}.count_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ${q}.deletes DEFAULT VALUES; RETURN NULL; END $$`);
    await pool.query(`CREATE TRIGGER count_delete AFTER DELETE ON ${q}.idempotency_records FOR EACH STATEMENT EXECUTE FUNCTION ${q}.count_delete()`);
    expect(await store.purgeExpired({ older_than_ms: 1_000 })).toBe(2_501);
    expect((await pool.query(`SELECT count(*)::int AS n FROM ${q}.deletes`)).rows[0]).toEqual({ n: 4 });
    expect((await pool.query(`SELECT key FROM ${q}.idempotency_records`)).rows).toEqual([{ key: 'live' }]);
    // The floor was raised to the highest token deleted: the purged keys never repeat a token.
    expect((await pool.query(`SELECT token::int AS token FROM ${q}.idempotency_token_floor`)).rows[0]).toEqual({ token: 3_500 });
  });
});

/**
 * Host B claims a key host A holds with a 5 ms lease, and before each of B's takeovers A takes the
 * key over again (its lease then runs out too), so B's conditional update always finds the record
 * changed. `beforeTakeover` runs first, with the takeover's number. Answers what B's claim threw.
 */
async function loseEveryRace(
  hosts: Awaited<ReturnType<typeof twoHosts>>,
  clock: ManualClock,
  beforeTakeover: (takeover: number) => void = () => undefined,
): Promise<{ failure: unknown; takeovers: number }> {
  const { a, b, poolB } = hosts;
  const key = 'hot-key';
  expect(await a.claim({ key, request_sha256: REQUEST, owner: 'A0', lease_ms: 5 })).toMatchObject({ kind: 'claimed' });
  let takeovers = 0;
  beforeNamedStatements(poolB, async (name) => {
    if (name !== 'update_record') return;
    clock.advance(10);
    takeovers += 1;
    beforeTakeover(takeovers);
    const taken = await a.claim({ key, request_sha256: REQUEST, owner: `A${takeovers}`, lease_ms: 5 });
    if (taken.kind !== 'claimed') throw new Error('the other host did not take the key over');
    clock.advance(10);
  });
  clock.advance(10);
  const failure = await b.claim({ key, request_sha256: REQUEST, owner: 'B', lease_ms: 30_000 }).then(
    () => null,
    (error: unknown) => error,
  );
  return { failure, takeovers };
}

describe.skipIf(!available)('PostgreSQL stores: a claim that keeps losing its race', () => {
  it('the review: gives up after 32 attempts with PostgresWriteContentionError, writing nothing', { timeout: 30_000 }, async () => {
    const clock = new ManualClock(1_000);
    const hosts = await twoHosts(clock);
    try {
      const { failure, takeovers } = await loseEveryRace(hosts, clock);
      expect(PostgresWriteContentionError.isInstance(failure)).toBe(true);
      expect(failure).toBeInstanceOf(PostgresWriteContentionError);
      expect((failure as PostgresWriteContentionError).attempts).toBe(32);
      // The first attempt was the insert; every later one a takeover that lost.
      expect(takeovers).toBe(31);
      expect(await hosts.a.get('hot-key')).toMatchObject({ owner: 'A31', state: 'claimed' });
    } finally {
      await hosts.poolB.end();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: a claim backing off', () => {
  it('gives its pooled connection back while it waits: a pool of one serves others meanwhile', { timeout: 30_000 }, async () => {
    const clock = new ManualClock(1_000);
    const hosts = await twoHosts(clock, 1);
    try {
      // The takeover count at the moment another caller of B's pool got its only connection.
      let servedAt: number | null = null;
      let served: Promise<void> | undefined;
      let latest = 0;
      const { failure, takeovers } = await loseEveryRace(hosts, clock, (takeover) => {
        latest = takeover;
        // Past the immediate retries: B backs off after this attempt loses.
        if (takeover !== 8) return;
        served = hosts.poolB.connect().then((client) => {
          servedAt = latest;
          client.release();
        });
      });
      await served;
      // Still the same bounded contention: 32 attempts, nothing written by B.
      expect(PostgresWriteContentionError.isInstance(failure) && failure.attempts === 32).toBe(true);
      expect(takeovers).toBe(31);
      // Served in the wait after the attempt that lost, not once B had given up.
      expect(servedAt).toBe(8);
    } finally {
      await hosts.poolB.end();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: close', () => {
  it('waits for a claim backing off: it ends as it would have (32 attempts), and only then the pool', { timeout: 30_000 }, async () => {
    const clock = new ManualClock(1_000);
    const schema = nextSchema();
    const a = (await openPostgresStores({ pool, schema, clock })).idempotencyStore;
    // B's stores own their pool, which close() ends.
    const storesB = await openPostgresStores({ connectionString: DATABASE_URL, schema, clock });
    let closing: Promise<void> | undefined;
    let closedAtTakeover: number | null = null;
    let latest = 0;
    const { failure, takeovers } = await loseEveryRace({ a, b: storesB.idempotencyStore, poolB: storesB.pool }, clock, (takeover) => {
      latest = takeover;
      // Past the immediate retries: B backs off after this attempt loses, holding no connection.
      if (takeover === 8) closing = storesB.close().then(() => void (closedAtTakeover = latest));
    });
    // Without the wait the next attempt after the backoff failed: "Cannot use a pool after calling end on the pool".
    expect(PostgresWriteContentionError.isInstance(failure) && failure.attempts === 32).toBe(true);
    expect(takeovers).toBe(31);
    await closing;
    expect(closedAtTakeover).toBe(31);
    expect(storesB.pool.ended).toBe(true);
  });

  it('the review: closes once however often it is called (later calls answer the first promise); calls after it reject on the ended pool', async () => {
    const stores = await openPostgresStores({ connectionString: DATABASE_URL, schema: nextSchema(), clock: new ManualClock(1_000) });
    expect(await stores.idempotencyStore.get('absent')).toBeUndefined();
    // A signal handler and a finally block both closing: the second call ended the pool again,
    // which pg refuses ("Called end on pool more than once").
    const first = stores.close();
    const second = stores.close();
    expect(second).toBe(first);
    await expect(first).resolves.toBeUndefined();
    expect(stores.pool.ended).toBe(true);
    await expect(stores.close()).resolves.toBeUndefined();
    // Calls after close are not served by the ended pool: they reject, writing nothing.
    const ended = /Cannot use a pool after calling end on the pool/;
    await expect(stores.auditLog.head()).rejects.toThrow(ended);
    await expect(stores.idempotencyStore.claim({ key: 'late', request_sha256: REQUEST, owner: 'host', lease_ms: 1_000 })).rejects.toThrow(ended);
    await expect(stores.auditLog.append({ kind: 'sealed_call', call_id: 'late', operation_id: null, idempotency_key: null, body: {} })).rejects.toThrow(ended);
    await expect(stores.close()).resolves.toBeUndefined();
    // A caller-owned pool: closing twice ends nothing, and the stores keep working on it.
    const callers = await openPostgresStores({ pool, schema: nextSchema(), clock: new ManualClock(1_000) });
    await callers.close();
    await expect(callers.close()).resolves.toBeUndefined();
    expect(pool.ended).toBe(false);
    expect(await callers.auditLog.head()).toBeNull();
  });

  it('settles at once with nothing in flight, and a caller-owned pool stays open', async () => {
    const stores = await openPostgresStores({ pool, schema: nextSchema(), clock: new ManualClock(1_000) });
    expect(await stores.idempotencyStore.get('absent')).toBeUndefined();
    await stores.close();
    expect(pool.ended).toBe(false);
    expect(await stores.auditLog.head()).toBeNull();
  });
});

describe.skipIf(!available)('PostgreSQL stores: the token floor', () => {
  const claimInput = (key: string, owner: string, lease_ms = 1_000) => ({ key, request_sha256: REQUEST, owner, lease_ms });
  const tokenFloor = async (schema: string) => (await pool.query<{ id: number; token: string }>(`SELECT id, token FROM "${schema}".idempotency_token_floor`)).rows;

  it('migrates a version 4 schema with records: seeded from the clock at the migration, raised by every DELETE and TRUNCATE, never lowered', async () => {
    const schema = nextSchema();
    const s = `"${schema}"`;
    // A version 4 schema (started and intent-key records), plus a released record, and one that
    // version 4 purged (token T0 - 500, at or below its cutoff): the floor cannot know its tokens.
    const v4 = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    try {
      await createSchemaAtVersion(v4, s, 4);
      const insert = `INSERT INTO ${s}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
                      VALUES ($1, $2, $3, 'host-old', $4, $5, $6, $7)`;
      await v4.query(insert, ['key-old', REQUEST, 'started', 7, T0 + 60_000, T0 - 5, T0]);
      await v4.query(insert, ['key-released', REQUEST, 'released', T0 - 999, T0 - 998, T0 - 999, T0 - 998]);
      await v4.query(insert, ['key-purged-before', REQUEST, 'released', T0 - 500, T0 - 499, T0 - 500, T0 - 499]);
      await v4.query(`DELETE FROM ${s}.idempotency_records WHERE key = 'key-purged-before'`);
    } finally {
      await v4.end();
    }

    const clock = new ManualClock(T0);
    const stores = await openPostgresStores({ pool, schema, clock });
    const store = stores.idempotencyStore;
    expect(stores.schemaVersion).toBe(7);
    const versions = await pool.query(`SELECT version FROM ${s}.schema_version ORDER BY version`);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0) }]);
    // The records of version 4 read back as they were; a released one is claimed with its token + 1.
    expect(await store.get('key-old')).toMatchObject({ state: 'started', fencing_token: 7 });
    expect(await store.claim(claimInput('key-released', 'host-new'))).toMatchObject({ kind: 'claimed', fencing_token: T0 - 998 });
    // The clock steps back past the purged record's time: the key's next record starts above the seed.
    clock.set(T0 - 600);
    expect(await store.claim(claimInput('key-purged-before', 'host-new'))).toEqual({ kind: 'claimed', fencing_token: T0 + 1, lease_expires_at: T0 + 400, took_over: false });
    expect(await store.release({ key: 'key-purged-before', fencing_token: T0 - 500, handler_declared_not_started: true })).toEqual({ ok: false, reason: 'fenced', state: 'claimed' });
    // A purge raises it to the highest token it deletes (T0 + 1), in its transaction.
    clock.set(T0 + 10_000);
    expect(await store.purgeExpired({ older_than_ms: 0 })).toBe(2);
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0 + 1) }]);
    // A raw DELETE too, and never down; TRUNCATE raises it to the tokens it removes.
    await pool.query(`DELETE FROM ${s}.idempotency_records WHERE key = 'key-old'`);
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0 + 1) }]);
    expect(await store.claim(claimInput('key-truncated', 'host-new'))).toMatchObject({ fencing_token: T0 + 10_001 });
    // Only at READ COMMITTED: at a stricter isolation the trigger's query would read the
    // transaction's snapshot while TRUNCATE removes rows committed after it (review of the fix).
    for (const isolation of ['REPEATABLE READ', 'SERIALIZABLE']) {
      const client = await pool.connect();
      try {
        await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
        await expect(client.query(`TRUNCATE ${s}.idempotency_records`), isolation).rejects.toThrow(/truncated only at READ COMMITTED/);
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    }
    expect(await store.get('key-truncated')).toMatchObject({ fencing_token: T0 + 10_001 });
    await pool.query(`TRUNCATE ${s}.idempotency_records`);
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0 + 10_001) }]);
    // The floor row only rises.
    await expect(pool.query(`UPDATE ${s}.idempotency_token_floor SET token = 0`)).rejects.toThrow(/only rises/);
    await expect(pool.query(`DELETE FROM ${s}.idempotency_token_floor`)).rejects.toThrow(/only rises/);
    await expect(pool.query(`TRUNCATE ${s}.idempotency_token_floor`)).rejects.toThrow(/only rises/);
    // A host of version 4 still running on the schema plans a first token from its clock alone:
    // behind the floor, its insert is refused instead of repeating a purged token.
    await expect(
      pool.query(
        `INSERT INTO ${s}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
         VALUES ('key-truncated', $1, 'claimed', 'host-v4', $2, $3, $4, $4)`,
        [REQUEST, T0 + 10_001, T0 + 11_000, T0 + 10_000],
      ),
    ).rejects.toMatchObject({ code: 'TSF01' });
    expect(await store.get('key-truncated')).toBeUndefined();
    // Reopening applies nothing and seeds nothing again.
    const reopened = await openPostgresStores({ pool, schema, clock: new ManualClock(T0 + 86_400_000) });
    expect(reopened.schemaVersion).toBe(7);
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0 + 10_001) }]);
  });

  it('starts a new schema at 0, and migratePostgres alone (no clock reading) seeds an upgraded one with 0, refusing a reading above 8.64e15', async () => {
    const fresh = nextSchema();
    await openPostgresStores({ pool, schema: fresh, clock: new ManualClock(T0) });
    expect(await tokenFloor(fresh)).toEqual([{ id: 1, token: '0' }]);
    const upgraded = nextSchema();
    await createSchemaAtVersion(pool, `"${upgraded}"`, 4);
    await expect(migratePostgres(pool, upgraded, '2026-07-19T00:00:00.000Z', -1)).rejects.toThrow(RangeError);
    // Above the largest clock reading (8.64e15): it would seed the floor past the bound version 7
    // sets, and every first claim would then fail. Refused before anything is written.
    for (const reading of [8_640_000_000_000_001, Number.MAX_SAFE_INTEGER]) {
      await expect(migratePostgres(pool, upgraded, '2026-07-19T00:00:00.000Z', reading)).rejects.toThrow(RangeError);
    }
    expect((await pool.query(`SELECT max(version) AS version FROM "${upgraded}".schema_version`)).rows).toEqual([{ version: 4 }]);
    expect(await migratePostgres(pool, upgraded, '2026-07-19T00:00:00.000Z')).toBe(7);
    expect(await tokenFloor(upgraded)).toEqual([{ id: 1, token: '0' }]);
  });

  /**
   * A purge of `key` in progress on its own connection (deleted, the floor raised, not committed),
   * as READ COMMITTED lets a claim meet it: the claim's insert waits for it, then goes ahead with
   * what it computed before. Answers the commit.
   */
  async function purgeInProgress(schema: string, key: string): Promise<{ commit: () => Promise<void>; client: pg.PoolClient }> {
    const client = await pool.connect();
    await client.query('BEGIN');
    expect((await client.query(`DELETE FROM "${schema}".idempotency_records WHERE key = $1`, [key])).rowCount).toBe(1);
    return {
      client,
      commit: async () => {
        await client.query('COMMIT');
        client.release();
      },
    };
  }

  /** Whether `promise` is still pending after `ms`. */
  const stillPending = async (promise: Promise<unknown>, ms: number) =>
    Promise.race([promise.then(() => false, () => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), ms))]);

  it('the review: a claim whose insert waited for a purge of the key gets a token above the floor that purge raised (the insert check, READ COMMITTED)', async () => {
    const schema = nextSchema();
    const clock = new ManualClock(T0);
    const hostA = (await openPostgresStores({ pool, schema, clock })).idempotencyStore;
    const hostB = (await openPostgresStores({ pool: pipelinedPool, schema, clock })).idempotencyStore;
    // Host A's record: two tokens handed out (a lapsed claim taken over), then released.
    expect(await hostA.claim(claimInput('refund-7', 'A1'))).toMatchObject({ fencing_token: T0 + 1 });
    clock.advance(1_000);
    expect(await hostA.claim(claimInput('refund-7', 'A2'))).toMatchObject({ fencing_token: T0 + 2, took_over: true });
    expect((await hostA.release({ key: 'refund-7', fencing_token: T0 + 2 })).ok).toBe(true);
    // Retention deletes it (not committed yet) while host B, whose clock reads far behind, claims
    // the key: B's insert meets the row being deleted and waits.
    const purge = await purgeInProgress(schema, 'refund-7');
    clock.set(T0 - 3_600_000);
    const claimB = hostB.claim(claimInput('refund-7', 'B'));
    expect(await stillPending(claimB, 300)).toBe(true);
    await purge.commit();
    // The insert went ahead with a token from before the purge; the check refused it, and B
    // planned again above the floor (T0 + 2).
    expect(await claimB).toEqual({ kind: 'claimed', fencing_token: T0 + 3, lease_expires_at: T0 - 3_600_000 + 1_000, took_over: false });
    expect(await tokenFloor(schema)).toEqual([{ id: 1, token: String(T0 + 2) }]);
    for (const stale of [T0 + 1, T0 + 2]) {
      expect(await hostA.release({ key: 'refund-7', fencing_token: stale, handler_declared_not_started: true })).toEqual({ ok: false, reason: 'fenced', state: 'claimed' });
    }
  });

  it('under REPEATABLE READ (a changed default) the same race is a serialization failure, never a repeated token', async () => {
    const schema = nextSchema();
    const clock = new ManualClock(T0);
    const repeatable = new pg.Pool({ connectionString: DATABASE_URL, max: 2, options: '-c default_transaction_isolation=repeatable\\ read' });
    try {
      const hostA = (await openPostgresStores({ pool, schema, clock })).idempotencyStore;
      const hostB = (await openPostgresStores({ pool: repeatable, schema, clock })).idempotencyStore;
      expect((await repeatable.query<{ transaction_isolation: string }>('SHOW transaction_isolation')).rows).toEqual([{ transaction_isolation: 'repeatable read' }]);
      expect(await hostA.claim(claimInput('refund-7', 'A1'))).toMatchObject({ fencing_token: T0 + 1 });
      expect((await hostA.release({ key: 'refund-7', fencing_token: T0 + 1 })).ok).toBe(true);
      const purge = await purgeInProgress(schema, 'refund-7');
      clock.set(T0 - 3_600_000);
      const claimB = hostB.claim(claimInput('refund-7', 'B'));
      expect(await stillPending(claimB, 300)).toBe(true);
      await purge.commit();
      await expect(claimB).rejects.toMatchObject({ code: '40001' });
      expect(await hostA.get('refund-7')).toBeUndefined();
    } finally {
      await repeatable.end();
    }
  });

  it('hosts racing claims, releases and purges while their clocks step back and forth never hand a key a token twice', async () => {
    const schema = nextSchema();
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: DATABASE_URL, max: 2 }));
    try {
      const clocks = pools.map(() => new ManualClock(T0));
      const hosts = await Promise.all(pools.map((hostPool, index) => openPostgresStores({ pool: hostPool, schema, clock: clocks[index] as ManualClock })));
      const issued = new Map<string, number[]>();
      const keys = ['key-1', 'key-2', 'key-3'];
      let seed = 7;
      const next = (below: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed % below;
      };
      await Promise.all(
        hosts.map(async ({ idempotencyStore: store }, index) => {
          const clock = clocks[index] as ManualClock;
          for (let round = 0; round < 40; round += 1) {
            const key = keys[next(keys.length)] as string;
            const claim = await store.claim({ key, request_sha256: REQUEST, owner: `host-${index}`, lease_ms: 1 });
            if (claim.kind === 'claimed') {
              issued.set(key, [...(issued.get(key) ?? []), claim.fencing_token]);
              await store.release({ key, fencing_token: claim.fencing_token });
            }
            // Each host's clock: forward, or back by up to an hour (further than the retention).
            clock.set(Math.max(T0, clock.now() + (next(3) === 0 ? -next(3_600_000) : next(5_000))));
            if (next(3) === 0) await store.purgeExpired({ older_than_ms: next(2) * 1_000 });
          }
        }),
      );
      for (const key of keys) {
        const tokens = issued.get(key) ?? [];
        expect(tokens.length, key).toBeGreaterThan(0);
        expect(new Set(tokens).size, `${key}: ${tokens.join(', ')}`).toBe(tokens.length);
      }
    } finally {
      await Promise.all(pools.map((hostPool) => hostPool.end()));
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: the token floor bound (schema version 7)', () => {
  // Roles belong to the cluster, not the database: one per test run, dropped with what it was granted.
  const role = `${RUN_SCHEMA}_floor`;
  afterAll(async () => {
    const exists = await pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
    if (exists.rowCount === 0) return;
    await pool.query(`DROP OWNED BY "${role}"`);
    await pool.query(`DROP ROLE "${role}"`);
  });

  /** 2^53 + 2: the floor the review forged, after which every claim threw a RangeError. */
  const BEYOND = '9007199254740994';
  const claimInput = (key: string) => ({ key, request_sha256: REQUEST, owner: 'host', lease_ms: 1_000 });
  const tokenFloor = async (schema: string) =>
    (await pool.query<{ token: string }>(`SELECT token FROM "${schema}".idempotency_token_floor WHERE id = 1`)).rows[0]?.token;
  /** A released record under `key` with `token`, written as a role with INSERT on the records can. */
  const insertRecord = (schema: string) =>
    `INSERT INTO "${schema}".idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
     VALUES ($1, '${REQUEST}', 'released', 'forger', $2, 0, 0, 0)`;

  it('the review: a role with only the listed grants can neither lift the floor beyond the bound nor store a token beyond it, and claims keep working', async () => {
    expect(FENCING_TOKEN_BOUND).toBe(Number.MAX_SAFE_INTEGER - 1);
    await pool.query(`CREATE ROLE "${role}" NOLOGIN`);
    const schema = nextSchema();
    const s = `"${schema}"`;
    const clock = new ManualClock(T0);
    await (await openPostgresStores({ pool, schema, clock })).close();
    for (const grant of RUNTIME_GRANTS) await pool.query(grant.replaceAll('$s', s).replaceAll('$r', `"${role}"`));
    const rolePool = new pg.Pool({ connectionString: DATABASE_URL, max: 2, options: `-c role=${role}` });
    try {
      await expect(rolePool.query('SELECT current_user AS name')).resolves.toMatchObject({ rows: [{ name: role }] });
      const stores = await openPostgresStores({ pool: rolePool, schema, clock });
      const store = stores.idempotencyStore;
      // A purged key (the floor at its token, T0 + 1), then a completed one.
      const purged = await store.claim(claimInput('purged'));
      if (purged.kind !== 'claimed') throw new Error(`expected a claim, got ${purged.kind}`);
      expect((await store.release({ key: 'purged', fencing_token: purged.fencing_token })).ok).toBe(true);
      clock.advance(60_000);
      expect(await store.purgeExpired({ older_than_ms: 1_000 })).toBe(1);
      expect(await tokenFloor(schema)).toBe(String(T0 + 1));
      const done = await store.claim(claimInput('done'));
      if (done.kind !== 'claimed') throw new Error(`expected a claim, got ${done.kind}`);
      expect((await store.markStarted({ key: 'done', fencing_token: done.fencing_token, lease_ms: 1_000 })).ok).toBe(true);
      expect((await store.complete({ key: 'done', fencing_token: done.fencing_token, result: { sealed_json: '{}', receipt: 'r-1' } })).ok).toBe(true);

      // The review's attacks, as the role: the floor lifted beyond the bound directly, and a record
      // with a token beyond it (whose DELETE lifted the floor to it). Both refused, nothing written.
      const boundMessage = /idempotency_token_floor stays at or below 9007199254740990/;
      for (const token of [BEYOND, String(FENCING_TOKEN_BOUND + 1)]) {
        await expect(rolePool.query(`UPDATE ${s}.idempotency_token_floor SET token = $1`, [token]), token).rejects.toMatchObject({
          code: '23514',
          message: expect.stringMatching(boundMessage),
        });
        await expect(rolePool.query(insertRecord(schema), ['forged', token]), token).rejects.toMatchObject({
          code: '23514',
          constraint: 'idempotency_records_fencing_token_bound',
        });
        // Nor by giving a stored record such a token: updates are checked too.
        await expect(rolePool.query(`UPDATE ${s}.idempotency_records SET fencing_token = $1 WHERE key = 'done'`, [token]), token).rejects.toMatchObject({
          code: '23514',
          constraint: 'idempotency_records_fencing_token_bound',
        });
      }
      expect(await tokenFloor(schema)).toBe(String(T0 + 1));
      expect(await store.get('forged')).toBeUndefined();
      expect(await store.get('done')).toMatchObject({ state: 'completed', fencing_token: done.fencing_token });

      // Claims keep working: a replay, and a new key above the floor and the clock.
      expect(await store.claim(claimInput('done'))).toMatchObject({ kind: 'completed', delivery: 'local_replay' });
      expect(await store.claim(claimInput('fresh'))).toMatchObject({ kind: 'claimed', fencing_token: T0 + 60_001 });

      // What the role can still do (README, "Privileges"): lift the floor to the bound itself (and
      // a record to it, whose DELETE lifts the floor there), which only the owner can lower. Replays
      // and claims of stored records still work; a key without a record has no token left: its
      // claim is refused (the constraint, 23514) with nothing written, never planned from a
      // rounded number.
      const atBound = String(FENCING_TOKEN_BOUND);
      await rolePool.query(insertRecord(schema), ['at-bound', atBound]);
      await rolePool.query(`DELETE FROM ${s}.idempotency_records WHERE key = 'at-bound'`);
      expect(await tokenFloor(schema)).toBe(atBound);
      await expect(rolePool.query(`UPDATE ${s}.idempotency_token_floor SET token = $1`, [BEYOND])).rejects.toMatchObject({ code: '23514' });
      expect(await store.claim(claimInput('done'))).toMatchObject({ kind: 'completed', delivery: 'local_replay' });
      clock.advance(60_000);
      expect(await store.claim(claimInput('fresh'))).toMatchObject({ kind: 'claimed', fencing_token: T0 + 60_002, took_over: true });
      await expect(store.claim(claimInput('unclaimed'))).rejects.toMatchObject({ code: '23514', constraint: 'idempotency_records_fencing_token_bound' });
      expect(await store.get('unclaimed')).toBeUndefined();
      await stores.close();
    } finally {
      await rolePool.end();
    }
  });

  it('migrates a version 6 schema (its records kept, not scanned) to version 7, where the forged floor that went through before is refused', async () => {
    const schema = nextSchema();
    const s = `"${schema}"`;
    await createSchemaAtVersion(pool, s, 6);
    await pool.query(
      `INSERT INTO ${s}.idempotency_records (key, request_sha256, state, owner, fencing_token, lease_expires_at, created_at, updated_at)
       VALUES ('key-old', $1, 'started', 'host-old', 7, $2, $3, $4)`,
      [REQUEST, T0 + 60_000, T0 - 5, T0],
    );
    // A record forged at version 6 with a token beyond the bound: version 7 does not scan for it.
    await pool.query(insertRecord(schema), ['key-forged', BEYOND]);
    // At version 6 the review's forged floor goes through (rolled back here).
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE ${s}.idempotency_token_floor SET token = $1`, [BEYOND]);
      expect((await client.query<{ token: string }>(`SELECT token FROM ${s}.idempotency_token_floor`)).rows).toEqual([{ token: BEYOND }]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }

    const stores = await openPostgresStores({ pool, schema, clock: new ManualClock(T0) });
    expect(stores.schemaVersion).toBe(7);
    const versions = await pool.query(`SELECT version FROM ${s}.schema_version ORDER BY version`);
    expect(versions.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }, { version: 6 }, { version: 7 }]);
    const constraint = await pool.query<{ definition: string; convalidated: boolean }>(
      `SELECT pg_get_constraintdef(oid) AS definition, convalidated FROM pg_constraint
       WHERE conrelid = $1::regclass AND conname = 'idempotency_records_fencing_token_bound'`,
      [`${s}.idempotency_records`],
    );
    expect(constraint.rows).toEqual([{ definition: "CHECK ((fencing_token <= '9007199254740990'::bigint)) NOT VALID", convalidated: false }]);
    // The guard's triggers of version 5 call the replaced body, with its search_path still pinned.
    const guard = await pool.query<{ proconfig: string[] }>(`SELECT proconfig FROM pg_proc WHERE oid = $1::regprocedure`, [
      `${s}.idempotency_token_floor_guard()`,
    ]);
    expect(guard.rows).toEqual([{ proconfig: ['search_path=pg_catalog, pg_temp'] }]);
    await expect(pool.query(`UPDATE ${s}.idempotency_token_floor SET token = $1`, [BEYOND])).rejects.toThrow(/stays at or below 9007199254740990/);
    await expect(pool.query(`DELETE FROM ${s}.idempotency_token_floor`)).rejects.toThrow(/only rises/);
    await expect(pool.query(insertRecord(schema), ['key-new-forged', BEYOND])).rejects.toMatchObject({ code: '23514' });
    expect(await tokenFloor(schema)).toBe('0');
    // The records of version 6 read back as they were.
    expect(await stores.idempotencyStore.get('key-old')).toMatchObject({ state: 'started', fencing_token: 7 });
    // The row forged before the upgrade: VALIDATE finds it, and deleting it is refused rather than
    // lifting the floor beyond the bound (README, version 7).
    await expect(pool.query(`ALTER TABLE ${s}.idempotency_records VALIDATE CONSTRAINT idempotency_records_fencing_token_bound`)).rejects.toMatchObject({
      code: '23514',
    });
    await expect(pool.query(`DELETE FROM ${s}.idempotency_records WHERE key = 'key-forged'`)).rejects.toThrow(/stays at or below/);
    expect(await tokenFloor(schema)).toBe('0');
    // Claims keep working.
    expect(await stores.idempotencyStore.claim(claimInput('key-new'))).toMatchObject({ kind: 'claimed', fencing_token: T0 + 1 });
    // Reopening applies nothing again.
    expect((await openPostgresStores({ pool, schema })).schemaVersion).toBe(7);
    expect((await pool.query(`SELECT count(*)::int AS count FROM ${s}.schema_version`)).rows).toEqual([{ count: 7 }]);
  });
});

describe.skipIf(!available)('PostgreSQL stores: a claim waiting for a connection', () => {
  it('the review: the clock is read once a connection is taken, so a purge during the wait never repeats a token', async () => {
    const clock = new ManualClock(1_000);
    const schema = nextSchema();
    const poolB = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
    try {
      const a = (await openPostgresStores({ pool, schema, clock })).idempotencyStore;
      const b = (await openPostgresStores({ pool: poolB, schema, clock })).idempotencyStore;
      const key = 'refund-7';
      expect(await a.claim({ key, request_sha256: REQUEST, owner: 'A1', lease_ms: 5 })).toMatchObject({ fencing_token: 1_001 });
      // B's only connection is busy: its claim waits at clock 1 000.
      const busy = await poolB.connect();
      const pendingB = b.claim({ key, request_sha256: REQUEST, owner: 'B', lease_ms: 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Meanwhile another host takes the expired key over and gives it back; retention deletes it.
      clock.set(1_005);
      const second = await a.claim({ key, request_sha256: REQUEST, owner: 'A2', lease_ms: 5 });
      if (second.kind !== 'claimed') throw new Error('A2 did not take the key over');
      expect((await a.release({ key, fencing_token: second.fencing_token })).ok).toBe(true);
      clock.set(2_000);
      expect(await a.purgeExpired({ older_than_ms: 0 })).toBe(1);
      busy.release();
      expect(await pendingB).toMatchObject({ kind: 'claimed', fencing_token: 2_001 });
      expect(await a.markStarted({ key, fencing_token: 1_001, lease_ms: 30_000 })).toMatchObject({ ok: false, reason: 'fenced' });
    } finally {
      await poolB.end();
    }
  });
});

/**
 * Records the rows of every `select_audit_page` answer of `target`'s clients: one list of rows per
 * page, each row with its canonical text, in the order the pages came.
 */
function recordAuditPages(target: pg.Pool): { canonical: string; sequence: string }[][] {
  const pages: { canonical: string; sequence: string }[][] = [];
  const connect = target.connect.bind(target) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  const wrapped = new WeakSet<object>();
  const wrapClient = async (connecting: Promise<pg.PoolClient>) => {
    const client = await connecting;
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as (config: unknown, ...rest: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (config: unknown, ...rest: unknown[]) => Promise<unknown> }).query = async (config, ...rest) => {
      const result = await query(config, ...rest);
      const name = typeof config === 'object' && config !== null ? String((config as { name?: unknown }).name ?? '') : '';
      if (name.endsWith(':select_audit_page')) pages.push((result as { rows: { canonical: string; sequence: string }[] }).rows);
      return result;
    };
    return client;
  };
  // `pool.query` checks a client out with a callback: passed through (verifyChain's pages go
  // through a client it checks out itself, without one).
  (target as unknown as { connect: (callback?: unknown) => Promise<pg.PoolClient> | undefined }).connect = (callback?: unknown) => {
    if (callback !== undefined) return connect(callback);
    return wrapClient(connect() as Promise<pg.PoolClient>);
  };
  return pages;
}

/** The page text budget of `verifyChain` the README states: 256 KiB of canonical text. */
const PAGE_TEXT = 262_144;

describe.skipIf(!available)('PostgreSQL stores: verifying a log of large entries', () => {
  const append = (stores: Awaited<ReturnType<typeof openPostgresStores>>, size: number, index: number) =>
    stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index, blob: 'x'.repeat(size) } });

  it('the review: ends a page once its canonical text reaches 256 KiB, however few rows, with the same verdict', async () => {
    const schema = nextSchema();
    const counted = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const pages = recordAuditPages(counted);
    try {
      const stores = await openPostgresStores({ pool: counted, schema });
      // 12 entries of about 100 KB: one page of 1000 rows held them all (1000 of 1 MB took a
      // review's process to about 1 GB and held its event loop for seconds).
      for (let index = 1; index <= 12; index += 1) await append(stores, 100_000, index);
      const verification = await stores.auditLog.verifyChain();
      expect(verification).toMatchObject({ ok: true, checked: 12, head: await stores.auditLog.head() });
      expect(pages.map((rows) => rows.length)).toEqual([3, 3, 3, 3, 0]);
      for (const rows of pages) {
        // The text before a page's last row is under the budget: only that row may cross it.
        const before = rows.slice(0, -1).reduce((units, row) => units + Buffer.byteLength(row.canonical), 0);
        expect(before).toBeLessThan(PAGE_TEXT);
      }
      expect(pages.flat().map((row) => Number(row.sequence))).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
      // An edit on a later page is reported where it is, as with pages of 1000 rows.
      await pool.query(`ALTER TABLE "${schema}".audit_log DISABLE TRIGGER USER; UPDATE "${schema}".audit_log SET canonical = replace(canonical, '"index":8', '"index":9') WHERE sequence = 8`);
      expect(await stores.auditLog.verifyChain()).toEqual({ ok: false, position: 8, problem: 'edited', detail: 'entry_hash_mismatch' });
      await stores.close();
    } finally {
      await counted.end();
    }
  });

  it('the review: checks an entry larger than the budget alone, in a page of its own', async () => {
    const schema = nextSchema();
    const counted = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    const pages = recordAuditPages(counted);
    try {
      const stores = await openPostgresStores({ pool: counted, schema });
      await append(stores, 400_000, 1);
      await append(stores, 10, 2);
      await append(stores, 10, 3);
      const anchor = await stores.auditLog.head();
      if (anchor === null) throw new Error('the log has a head');
      expect(await stores.auditLog.verifyChain()).toEqual({ ok: true, checked: 3, head: anchor, anchored: false });
      expect(pages.map((rows) => rows.map((row) => Number(row.sequence)))).toEqual([[1], [2, 3]]);
      pages.length = 0;
      // From the second entry, against an anchor: the large one is only the link it starts from.
      expect(await stores.auditLog.verifyChain({ from: 2, anchor })).toEqual({ ok: true, checked: 2, head: anchor, anchored: true });
      expect(pages.map((rows) => rows.length)).toEqual([2]);
      await stores.close();
    } finally {
      await counted.end();
    }
  });
});

describe.skipIf(!available)('PostgreSQL stores: raw SQL tampering', () => {
  async function tampered(edit: string) {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    for (let index = 1; index <= 6; index += 1) {
      await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    const s = `"${schema}"`;
    await pool.query(`ALTER TABLE ${s}.audit_log DISABLE TRIGGER USER; ${edit.replaceAll('$s', s)}`);
    return stores.auditLog.verifyChain();
  }

  it('detects an edited body at its position', async () => {
    expect(await tampered(`UPDATE $s.audit_log SET canonical = replace(canonical, '"index":3', '"index":4') WHERE sequence = 3`)).toEqual({
      ok: false,
      position: 3,
      problem: 'edited',
      detail: 'entry_hash_mismatch',
    });
  });

  it('the review: a thousand forged rows at sequences above 2^53 are reported, not paged over for ever', { timeout: 30_000 }, async () => {
    const schema = nextSchema();
    // A pool whose clients stop a verification that keeps paging (the bug looped for ever): the
    // test then fails at once instead of hanging.
    const counted = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    let pages = 0;
    beforeNamedStatements(counted, (name) => {
      if (name !== 'select_audit_page') return;
      pages += 1;
      if (pages > 100) throw new Error('verifyChain kept paging');
    });
    try {
      const stores = await openPostgresStores({ pool: counted, schema });
      for (let index = 1; index <= 6; index += 1) {
        await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } });
      }
      const last = 8_407_199_761_014_507_005n;
      // Each forged row claims position 8, after the 6 genuine entries: the check looks ahead for position 7.
      const forged = JSON.stringify({ body: {}, call_id: null, idempotency_key: null, kind: 'x', operation_id: null, recorded_at: '2026-01-01T00:00:00.000Z', schema_version: 'toolseal-audit-entry-v2', sequence: 8 });
      await pool.query(
        `ALTER TABLE "${schema}".audit_log DISABLE TRIGGER USER;
         INSERT INTO "${schema}".audit_log SELECT g, 'r', 'x', null, null, null, 'p', 'h', '${forged}' FROM generate_series(${last - 999n}::bigint, ${last}::bigint) g`,
      );
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: false, position: 7 });
      expect(pages).toBe(2);
      await stores.close();
    } finally {
      await counted.end();
    }
  });

  it('detects a deleted row at its position', async () => {
    expect(await tampered('DELETE FROM $s.audit_log WHERE sequence = 3')).toMatchObject({ ok: false, position: 3, problem: 'deleted' });
  });

  it('detects reordered rows at the first position', async () => {
    // The primary key is checked row by row: move through a free number.
    const swap = `UPDATE $s.audit_log SET sequence = -3 WHERE sequence = 3;
      UPDATE $s.audit_log SET sequence = 3 WHERE sequence = 4;
      UPDATE $s.audit_log SET sequence = 4 WHERE sequence = -3`;
    expect(await tampered(swap)).toMatchObject({ ok: false, position: 3, problem: 'reordered' });
  });

  it('detects an inserted copy of a row', async () => {
    const insert = `UPDATE $s.audit_log SET sequence = sequence + 100 WHERE sequence >= 3;
      UPDATE $s.audit_log SET sequence = sequence - 99 WHERE sequence >= 100;
      INSERT INTO $s.audit_log SELECT 3, recorded_at, kind, call_id, operation_id, idempotency_key, previous_hash, entry_hash, canonical
        FROM $s.audit_log WHERE sequence = 2`;
    expect(await tampered(insert)).toMatchObject({ ok: false, position: 3, problem: 'inserted' });
  });

  it("detects another schema's genuine chain copied over a log with an identity, without an anchor", async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(9) });
    const [schemaA, schemaB] = [nextSchema(), nextSchema()];
    const a = await openPostgresStores({ pool, schema: schemaA, digester, logId: 'tenant-a' });
    const b = await openPostgresStores({ pool, schema: schemaB, digester, logId: 'tenant-b' });
    for (let index = 1; index <= 3; index += 1) {
      await a.auditLog.append({ kind: 'sealed_call', call_id: `a${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    for (let index = 1; index <= 5; index += 1) {
      await b.auditLog.append({ kind: 'sealed_call', call_id: `b${index}`, operation_id: null, idempotency_key: null, body: { index } });
    }
    const [A, B] = [`"${schemaA}"`, `"${schemaB}"`];
    await pool.query(`ALTER TABLE ${B}.audit_log DISABLE TRIGGER USER; ALTER TABLE ${B}.audit_head DISABLE TRIGGER USER;
      DELETE FROM ${B}.audit_log; INSERT INTO ${B}.audit_log SELECT * FROM ${A}.audit_log;
      UPDATE ${B}.audit_head SET sequence = h.sequence, entry_hash = h.entry_hash FROM ${A}.audit_head h;`);
    expect(await a.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
    expect(await b.auditLog.verifyChain()).toEqual({ ok: false, position: 1, problem: 'broken_link', detail: 'genesis_mismatch' });
  });

  it('refuses an anchor read back from the head row as text (a bigint sequence) instead of calling it anchored', async () => {
    const schema = nextSchema();
    const stores = await openPostgresStores({ pool, schema });
    await stores.auditLog.append({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: {} });
    const saved = (await pool.query<{ sequence: string; entry_hash: string }>(`SELECT sequence, entry_hash FROM "${schema}".audit_head`)).rows[0];
    expect(typeof saved?.sequence).toBe('string');
    await expect(stores.auditLog.verifyChain({ anchor: saved as unknown as AuditHead })).rejects.toThrow(/^anchor\.sequence/);
    expect(await stores.auditLog.verifyChain({ anchor: { sequence: Number(saved?.sequence), entry_hash: saved?.entry_hash ?? '' } })).toMatchObject({
      ok: true,
      anchored: true,
    });
  });

  it('reports whether its chain is keyed: unkeyed by default, keyed with a keyed digester', async () => {
    const plain = await openPostgresStores({ pool, schema: nextSchema() });
    const keyed = await openPostgresStores({ pool, schema: nextSchema(), digester: createDigester({ key: new Uint8Array(32).fill(9) }) });
    expect(plain.auditLog.keyed).toBe(false);
    expect(keyed.auditLog.keyed).toBe(true);
    await Promise.all([plain.close(), keyed.close()]);
  });


  it('refuses a malformed log identity before connecting', async () => {
    const schema = nextSchema();
    await expect(openPostgresStores({ pool, schema, logId: 'x'.repeat(257) })).rejects.toThrow(expect.objectContaining({ name: 'StoreInputError', field: 'logId' }));
    const exists = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    expect(exists.rowCount).toBe(0);
  });

  it('detects a canonical text re-serialized through jsonb', async () => {
    expect(await tampered(`UPDATE $s.audit_log SET canonical = canonical::jsonb::text WHERE sequence = 2`)).toEqual({
      ok: false,
      position: 2,
      problem: 'edited',
      detail: 'not_canonical',
    });
  });
});

describe.skipIf(!available)('PostgreSQL stores: eight pools race duplicate claims', () => {
  it('exactly one claim wins per key and the handler runs exactly once per key', async () => {
    const schema = nextSchema();
    const clock = new ManualClock(T0);
    await openPostgresStores({ pool, schema, clock });
    const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: DATABASE_URL, max: 4 }));
    try {
      const hosts = await Promise.all(pools.map((hostPool) => openPostgresStores({ pool: hostPool, schema, clock })));
      const keys = Array.from({ length: 20 }, (_, index) => `key-${index}`);
      const runs = new Map<string, number>();
      const outcomes: ClaimOutcome[] = [];
      const attempts: Promise<void>[] = [];
      for (let round = 0; round < 200; round += 1) {
        for (const [index, key] of keys.entries()) {
          const host = hosts[(round + index) % hosts.length];
          if (host === undefined) throw new Error('host');
          attempts.push(
            (async () => {
              const store = host.idempotencyStore;
              const claim = await store.claim({ key, request_sha256: REQUEST, owner: `host-${(round + index) % 8}`, lease_ms: 60_000 });
              outcomes.push(claim);
              if (claim.kind !== 'claimed') return;
              expect((await store.markStarted({ key, fencing_token: claim.fencing_token, lease_ms: 60_000 })).ok).toBe(true);
              runs.set(key, (runs.get(key) ?? 0) + 1);
              const completed = await store.complete({ key, fencing_token: claim.fencing_token, result: { sealed_json: '{}', receipt: null } });
              expect(completed.ok).toBe(true);
            })(),
          );
        }
      }
      await Promise.all(attempts);
      expect(outcomes).toHaveLength(4000);
      expect(outcomes.filter((outcome) => outcome.kind === 'claimed')).toHaveLength(20);
      expect([...runs.entries()].sort()).toEqual(keys.map((key) => [key, 1]).sort());
      expect(outcomes.filter((outcome) => outcome.kind === 'conflict' || outcome.kind === 'outcome_unknown')).toHaveLength(0);
    } finally {
      await Promise.all(pools.map((hostPool) => hostPool.end()));
    }
  }, 120_000);

  it.each([false, true])('appends from eight pools form one linear chain (pipelined clients: %s)', async (pipeline) => {
    const schema = nextSchema();
    const digester = createDigester({ key: new Uint8Array(32).fill(9) });
    await openPostgresStores({ pool, schema, digester });
    const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: DATABASE_URL, max: 2, pipeline }));
    try {
      const hosts = await Promise.all(pools.map((hostPool) => openPostgresStores({ pool: hostPool, schema, digester })));
      const appended = await Promise.all(
        Array.from({ length: 400 }, (_, index) =>
          hosts[index % 8]?.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index } }),
        ),
      );
      expect(appended.map((entry) => entry?.sequence).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 400 }, (_, index) => index + 1),
      );
      const verification = await hosts[3]?.auditLog.verifyChain();
      expect(verification).toMatchObject({ ok: true, checked: 400 });
    } finally {
      await Promise.all(pools.map((hostPool) => hostPool.end()));
    }
  }, 120_000);
});

/** 32-bit FNV-1a: the schema tag of the former statement names. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
