import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openSqliteStores, type SqliteStoresOptions } from './open-sqlite-stores.js';
import { migrateSqlite } from './migrate-sqlite.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './sqlite-migrations.js';
import { SCHEMA_TRIGGERS } from './__fixtures__/sqlite-tamper.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-schema-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const nextPath = (name = 'store') => join(directory, `${name}-${(files += 1)}.db`);
const REQUEST = 'a'.repeat(64);


/** What `open` throws (`undefined` when it returns). */
function refusal(open: () => unknown): unknown {
  try {
    open();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The file's bytes and which of SQLite's side files exist beside it. */
function snapshot(path: string): { bytes: Buffer; sideFiles: string[] } {
  return { bytes: readFileSync(path), sideFiles: ['-wal', '-shm', '-journal'].filter((suffix) => existsSync(`${path}${suffix}`)) };
}

/**
 * Opens `path` expecting a refusal: `StoreInputError` on `path`, naming the file, whose message
 * matches every pattern, and the file exactly as it was (bytes, no side file left behind).
 */
function expectRefusedUnchanged(path: string, patterns: readonly RegExp[], options: Partial<SqliteStoresOptions> = {}): string {
  const before = snapshot(path);
  const thrown = refusal(() => openSqliteStores({ path, ...options }));
  expect(StoreInputError.isInstance(thrown) && thrown.field, String(thrown)).toBe('path');
  const message = String(thrown);
  expect(message).toContain(JSON.stringify(path));
  for (const pattern of patterns) expect(message).toMatch(pattern);
  const after = snapshot(path);
  expect(after.bytes.equals(before.bytes), `${path}: bytes changed`).toBe(true);
  expect(after.sideFiles).toEqual(before.sideFiles);
  return message;
}

/** A store file at the current version with entries and a record, closed (its WAL checkpointed into it). */
async function storeFile(entries = 3): Promise<string> {
  const path = nextPath();
  const stores = openSqliteStores({ path });
  await stores.idempotencyStore.claim({ key: 'refund-7', request_sha256: REQUEST, owner: 'host-1', lease_ms: 30_000 });
  for (let index = 1; index <= entries; index += 1) {
    await stores.auditLog.append({ kind: 'sealed_call', call_id: `call-${index}`, operation_id: null, idempotency_key: null, body: { index, text: 'x'.repeat(200) } });
  }
  stores.close();
  return path;
}

/** Runs raw SQL on a file (as another tool would), then closes it. */
function editFile(path: string, edit: (database: BetterSqlite3.Database) => void): void {
  const database = new BetterSqlite3(path);
  try {
    edit(database);
  } finally {
    database.close();
  }
}

/**
 * Reads a file through a connection of its own. Not a read-only one: closing that leaves the side
 * files of a WAL file behind, which the last connection to close removes.
 */
function readFile<T>(path: string, read: (database: BetterSqlite3.Database) => T): T {
  const database = new BetterSqlite3(path, { fileMustExist: true });
  try {
    return read(database);
  } finally {
    database.close();
  }
}

/** A file as version `version` of this package left it (WAL, no records), closed, after `edit`. */
function fileAtVersion(version: number, edit: (database: BetterSqlite3.Database) => void = () => {}): string {
  const path = nextPath(`version-${version}`);
  editFile(path, (database) => {
    database.pragma('journal_mode = WAL');
    database.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT');
    for (const migration of SQLITE_MIGRATIONS.filter((candidate) => candidate.version <= version)) {
      for (const statement of migration.statements) database.exec(statement);
      database.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(migration.version, '2026-07-01T00:00:00.000Z');
    }
    edit(database);
  });
  return path;
}

const namesIn = (database: BetterSqlite3.Database, type: string) =>
  database.prepare<[string], string>('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name').pluck().all(type);

describe('openSqliteStores refuses a file that is not a SQLite database', () => {
  it('a text file, random bytes, and a store file cut short (in its header, after its first page, in the middle), naming the path, and leaves each as it was', async () => {
    const store = readFileSync(await storeFile(60));
    // A file of several pages: cut after the first one, the tables' pages are gone.
    expect(store.length).toBeGreaterThan(8 * 4096);
    const contents: [string, Buffer][] = [
      ['text', Buffer.from('order_id,amount\nORDER-C7,6000\n')],
      ['random', Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 151 + 7) % 256))],
      ['header-16', store.subarray(0, 16)],
      ['header-50', store.subarray(0, 50)],
      ['first-page', store.subarray(0, 4096)],
      ['half', store.subarray(0, Math.floor(store.length / 2) + 3)],
    ];
    for (const [name, content] of contents) {
      const path = nextPath(name);
      writeFileSync(path, content);
      expectRefusedUnchanged(path, [/is not a SQLite database/]);
    }
  });
});

describe("openSqliteStores refuses a SQLite database of another application", () => {
  /** Another application's database, user_version 42, closed. */
  function foreignFile(name: string, statements: readonly string[], journalMode: 'delete' | 'wal' = 'delete'): string {
    const path = nextPath(name);
    editFile(path, (database) => {
      database.pragma(`journal_mode = ${journalMode}`);
      for (const statement of statements) database.exec(statement);
      database.pragma('user_version = 42');
    });
    return path;
  }

  const cases: [string, readonly string[], 'delete' | 'wal'][] = [
    ['unrelated tables', ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)", "INSERT INTO notes (text) VALUES ('keep me')"], 'delete'],
    ['unrelated tables (WAL)', ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)", "INSERT INTO notes (text) VALUES ('keep me')"], 'wal'],
    [
      "this store's table names, other columns",
      [
        'CREATE TABLE audit_log (id INTEGER PRIMARY KEY, message TEXT)',
        'CREATE TABLE idempotency_records (key TEXT PRIMARY KEY, value TEXT)',
        'CREATE TABLE audit_head (id INTEGER PRIMARY KEY, position INTEGER)',
        "INSERT INTO audit_log (message) VALUES ('started')",
      ],
      'delete',
    ],
    [
      'a schema_version table of its own',
      ['CREATE TABLE schema_version (version INTEGER)', 'INSERT INTO schema_version VALUES (3)', 'CREATE TABLE users (id INTEGER PRIMARY KEY)'],
      'delete',
    ],
    [
      "this store's empty schema_version table beside tables of its own",
      ['CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT', 'CREATE TABLE users (id INTEGER PRIMARY KEY)'],
      'delete',
    ],
  ];

  for (const [name, statements, journalMode] of cases) {
    it(`${name}: without creating a table, changing user_version or its journal mode`, () => {
      const path = foreignFile(name.replace(/\W+/g, '-'), statements, journalMode);
      const objectsBefore = readFile(path, (database) => database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all());
      expectRefusedUnchanged(path, [/is a SQLite database of another application/]);
      readFile(path, (database) => {
        expect(database.pragma('user_version', { simple: true })).toBe(42);
        expect(database.pragma('journal_mode', { simple: true })).toBe(journalMode);
        expect(database.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(objectsBefore);
      });
    });
  }
});

describe('openSqliteStores refuses a file written by a newer schema version of this store', () => {
  it('naming both versions, before comparing its objects, and leaves the file as it was', async () => {
    const path = await storeFile();
    // A later version may add tables and change triggers: the version decides first.
    editFile(path, (database) => {
      database.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SQLITE_SCHEMA_VERSION + 1, '2027-01-01T00:00:00.000Z');
      database.exec('CREATE TABLE audit_archive (sequence INTEGER PRIMARY KEY) STRICT');
      database.exec('DROP TRIGGER audit_log_append_only_update');
    });
    const message = expectRefusedUnchanged(path, [
      new RegExp(`schema version ${SQLITE_SCHEMA_VERSION + 1} is newer than this package \\(${SQLITE_SCHEMA_VERSION}\\)`),
    ]);
    expect(message).not.toMatch(/audit_log_append_only_update/);
  });

  it('also when a process of that version upgrades the file between the check and the migration', () => {
    const path = fileAtVersion(4);
    const upgrade = (database: BetterSqlite3.Database) =>
      database.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SQLITE_SCHEMA_VERSION + 1, '2027-01-01T00:00:00.000Z');
    // The check has read version 4 when the store switches the file to WAL; the newer process commits then.
    const pragma = BetterSqlite3.prototype.pragma;
    let upgraded = false;
    const spy = vi.spyOn(BetterSqlite3.prototype, 'pragma').mockImplementation(function (this: BetterSqlite3.Database, source, options) {
      if (source === 'journal_mode = WAL' && !upgraded) {
        upgraded = true;
        editFile(path, upgrade);
      }
      return pragma.call(this, source, options);
    });
    let thrown: unknown;
    try {
      thrown = refusal(() => openSqliteStores({ path }));
    } finally {
      spy.mockRestore();
    }
    expect(upgraded).toBe(true);
    expect(StoreInputError.isInstance(thrown) && thrown.field, String(thrown)).toBe('path');
    expect(String(thrown)).toMatch(new RegExp(`schema version ${SQLITE_SCHEMA_VERSION + 1} is newer than this package`));
    // Nothing of this version's migrations was applied.
    readFile(path, (database) => expect(database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3, 4, SQLITE_SCHEMA_VERSION + 1]));
  });
});

describe('openSqliteStores checks every table, index and trigger of the schema at open', () => {
  it('a fresh file holds exactly the triggers the README lists', () => {
    const path = nextPath();
    openSqliteStores({ path }).close();
    expect(readFile(path, (database) => namesIn(database, 'trigger'))).toEqual(SCHEMA_TRIGGERS);
  });

  for (const trigger of SCHEMA_TRIGGERS) {
    it(`refuses a file whose trigger ${trigger} was dropped, naming it, and leaves the file as it was`, async () => {
      const path = await storeFile();
      editFile(path, (database) => database.exec(`DROP TRIGGER ${trigger}`));
      const message = expectRefusedUnchanged(path, [new RegExp(`trigger ${trigger} \\(schema version \\d\\) is missing`), /SQLITE_MIGRATIONS/]);
      // Only the one dropped is named.
      for (const other of SCHEMA_TRIGGERS.filter((name) => name !== trigger)) expect(message).not.toContain(other);
    });
  }

  it('refuses a trigger replaced by one of the same name that does something else', async () => {
    const path = await storeFile();
    editFile(path, (database) =>
      database.exec(`DROP TRIGGER audit_log_append_only_update;
        CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log WHEN 0 BEGIN SELECT 1; END`),
    );
    expectRefusedUnchanged(path, [/trigger audit_log_append_only_update \(schema version 1\) is not the one this store creates/]);
  });

  it('refuses a dropped index, a dropped table, and a table of the same name with other columns', async () => {
    const droppedIndex = await storeFile();
    editFile(droppedIndex, (database) => database.exec('DROP INDEX idempotency_records_intent'));
    expectRefusedUnchanged(droppedIndex, [/index idempotency_records_intent \(schema version 3\) is missing/]);

    const droppedTable = await storeFile();
    editFile(droppedTable, (database) => database.exec('DROP TABLE idempotency_token_floor'));
    expectRefusedUnchanged(droppedTable, [/table idempotency_token_floor \(schema version 5\) is missing/, /trigger idempotency_token_floor_only_rises/]);

    const otherColumns = await storeFile();
    editFile(otherColumns, (database) =>
      database.exec(`ALTER TABLE audit_head RENAME TO audit_head_old;
        CREATE TABLE audit_head (id INTEGER PRIMARY KEY, sequence INTEGER NOT NULL, entry_hash TEXT NOT NULL, note TEXT) STRICT;
        INSERT INTO audit_head SELECT id, sequence, entry_hash, NULL FROM audit_head_old;`),
    );
    expectRefusedUnchanged(otherColumns, [/table audit_head \(schema version 1\) is not the one this store creates/]);
  });

  it('checks a file of an earlier version against what that version created, before migrating it', () => {
    const path = fileAtVersion(3, (database) => database.exec('DROP TRIGGER audit_head_follows_log'));
    expectRefusedUnchanged(path, [/schema version 3/, /trigger audit_head_follows_log \(schema version 1\) is missing/]);
    readFile(path, (database) => {
      expect(database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual([1, 2, 3]);
      expect(namesIn(database, 'table')).not.toContain('idempotency_token_floor');
    });
  });

  it('opens again once the trigger is created anew from its statement in SQLITE_MIGRATIONS, and leaves objects of the host\'s own alone', async () => {
    const path = await storeFile();
    editFile(path, (database) => database.exec('DROP TRIGGER audit_log_append_only_delete'));
    expectRefusedUnchanged(path, [/trigger audit_log_append_only_delete \(schema version 1\) is missing/]);
    const statement = SQLITE_MIGRATIONS.find((migration) => migration.version === 1)?.statements.find((candidate) =>
      candidate.includes('TRIGGER audit_log_append_only_delete'),
    );
    expect(statement).toBeDefined();
    editFile(path, (database) => {
      database.exec(statement ?? '');
      // Objects the schema does not create: a host's own table, index, view, and a trigger on its own table.
      database.exec(`CREATE TABLE appended (sequence INTEGER);
        CREATE TABLE appended_count (n INTEGER);
        CREATE INDEX audit_log_kind_time ON audit_log (kind, recorded_at);
        CREATE VIEW refunds AS SELECT sequence FROM audit_log WHERE kind = 'sealed_call';
        CREATE TRIGGER count_appended AFTER INSERT ON appended BEGIN INSERT INTO appended_count VALUES (1); END;`);
    });
    const stores = openSqliteStores({ path });
    try {
      expect(stores.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true, checked: 3 });
      expect((await stores.auditLog.append({ kind: 'sealed_call', call_id: 'call-4', operation_id: null, idempotency_key: null, body: {} })).sequence).toBe(4);
      stores.database.exec('INSERT INTO appended VALUES (4)');
      expect(stores.database.prepare('SELECT count(*) FROM appended_count').pluck().get()).toBe(1);
      expect(() => stores.database.exec('DELETE FROM audit_log WHERE sequence = 1')).toThrow(/append-only/);
    } finally {
      stores.close();
    }
  });

  it('the review: refuses a trigger of someone else\'s on one of the store\'s tables, which can undo what its own do', async () => {
    const path = await storeFile();
    // Stops every purge from raising the token floor: a purged key's fencing tokens would come back.
    editFile(path, (database) =>
      database.exec('CREATE TRIGGER keep_floor BEFORE UPDATE ON idempotency_token_floor BEGIN SELECT RAISE(IGNORE); END'),
    );
    expectRefusedUnchanged(path, [/trigger keep_floor on table idempotency_token_floor is not one this store creates/]);
    const copying = await storeFile();
    editFile(copying, (database) =>
      database.exec(`CREATE TABLE appended (sequence INTEGER);
        CREATE TRIGGER copy_appends AFTER INSERT ON audit_log BEGIN INSERT INTO appended VALUES (NEW.sequence); END;`),
    );
    expectRefusedUnchanged(copying, [/trigger copy_appends on table audit_log is not one this store creates/]);
  });

  it("the review: refuses such a trigger whatever case the statement wrote the table's name in (SQLite folds it, sqlite_master keeps it)", async () => {
    for (const [table, trigger] of [
      ['AUDIT_LOG', 'CREATE TRIGGER drop_starts BEFORE INSERT ON AUDIT_LOG WHEN NEW.kind = \'write_started\' BEGIN SELECT RAISE(IGNORE); END'],
      ['Audit_Head', 'CREATE TRIGGER keep_head BEFORE UPDATE ON "Audit_Head" BEGIN SELECT RAISE(IGNORE); END'],
      ['IDEMPOTENCY_TOKEN_FLOOR', 'CREATE TRIGGER keep_floor BEFORE UPDATE ON main.IDEMPOTENCY_TOKEN_FLOOR BEGIN SELECT RAISE(IGNORE); END'],
    ] as const) {
      const path = await storeFile();
      editFile(path, (database) => database.exec(trigger));
      expectRefusedUnchanged(path, [new RegExp(`trigger \\w+ on table ${table} is not one this store creates`)]);
    }
  });

  it('the review: tells a trigger from a table of the same name (SQLite keeps them apart)', async () => {
    const path = await storeFile();
    editFile(path, (database) =>
      database.exec(`CREATE TABLE notes (text TEXT);
        CREATE TABLE audit_copy (n INTEGER);
        CREATE TRIGGER audit_log AFTER INSERT ON notes BEGIN INSERT INTO audit_copy VALUES (1); END;`),
    );
    const stores = openSqliteStores({ path });
    try {
      expect(stores.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
      expect(await stores.auditLog.verifyChain()).toMatchObject({ ok: true });
    } finally {
      stores.close();
    }
  });

  it('opens an existing empty file, and one left with only an empty schema_version table, as new files', async () => {
    const empty = nextPath('empty');
    writeFileSync(empty, '');
    const onlyVersionTable = nextPath('only-version-table');
    editFile(onlyVersionTable, (database) => database.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL) STRICT'));
    for (const path of [empty, onlyVersionTable]) {
      const stores = openSqliteStores({ path });
      try {
        expect(stores.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
        expect(namesIn(stores.database, 'trigger')).toEqual(SCHEMA_TRIGGERS);
        expect((await stores.idempotencyStore.claim({ key: 'k', request_sha256: REQUEST, owner: 'host-1', lease_ms: 1_000 })).kind).toBe('claimed');
      } finally {
        stores.close();
      }
    }
  });
});

describe('migrateSqlite checks the file as openSqliteStores does, before it writes anything', () => {
  /** `migrateSqlite` on `path` expecting a refusal naming the path, and the file exactly as it was. */
  function expectMigrationRefusedUnchanged(path: string, patterns: readonly RegExp[]): void {
    const before = snapshot(path);
    const database = new BetterSqlite3(path);
    let thrown: unknown;
    try {
      thrown = refusal(() => migrateSqlite(database, '2026-12-02T00:00:00.000Z'));
    } finally {
      database.close();
    }
    expect(StoreInputError.isInstance(thrown) && thrown.field, String(thrown)).toBe('path');
    for (const pattern of [new RegExp(JSON.stringify(path).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), ...patterns]) expect(String(thrown)).toMatch(pattern);
    const after = snapshot(path);
    expect(after.bytes.equals(before.bytes), `${path}: bytes changed`).toBe(true);
    expect(after.sideFiles).toEqual(before.sideFiles);
  }

  it("refuses another application's database without creating its schema_version table (it used to migrate into it)", () => {
    const path = nextPath('foreign-migrate');
    editFile(path, (database) => database.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('keep me')"));
    expectMigrationRefusedUnchanged(path, [/is a SQLite database of another application/]);
    readFile(path, (database) => expect(namesIn(database, 'table')).toEqual(['notes']));
  });

  it('refuses a store file whose trigger was dropped', async () => {
    const path = await storeFile();
    const [trigger] = SCHEMA_TRIGGERS;
    editFile(path, (database) => database.exec(`DROP TRIGGER ${trigger}`));
    expectMigrationRefusedUnchanged(path, [new RegExp(`trigger ${trigger} \\(schema version \\d\\) is missing`)]);
  });

  it('migrates a new file and answers an up-to-date one with its version', () => {
    const path = nextPath('migrate-new');
    const database = new BetterSqlite3(path);
    try {
      expect(migrateSqlite(database, '2026-12-02T00:00:00.000Z')).toBe(SQLITE_SCHEMA_VERSION);
      expect(migrateSqlite(database, '2026-12-02T00:00:00.000Z')).toBe(SQLITE_SCHEMA_VERSION);
    } finally {
      database.close();
    }
    openSqliteStores({ path }).close();
  });
});
