import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { sqliteOpenRefusal } from './check-database-file.js';
import { SCHEMA_VERSION_TABLE_STATEMENT, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './sqlite-migrations.js';

/** A table, index, view or trigger as `sqlite_master` records it. */
interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** An object the migrations create, and the first schema version that has it. */
interface ExpectedObject extends SchemaObject {
  version: number;
}

/** What one read transaction found in the file. */
interface StoredSchema {
  objects: ReadonlyMap<string, SchemaObject>;
  /** `max(version)` of `schema_version` (0 when empty); `undefined` when that table is missing or not this store's. */
  version: number | undefined;
}

/**
 * Objects by `objectKey` (type and name: SQLite lets a trigger share a table's name), as of each
 * schema version (0: the `schema_version` table alone). Built once, at the first open.
 */
let expectedSchemas: ReadonlyMap<number, ReadonlyMap<string, ExpectedObject>> | undefined;

/** How many object names a refusal lists before it says how many more there are. */
const LISTED_OBJECTS = 5;

/**
 * Throws `StoreInputError` (option `path`) unless `database` is empty or this store's database at a
 * version this package knows, holding every table, index and trigger that version created, as it
 * created them; returns that version (0: nothing applied yet). Refused: a file SQLite cannot read
 * as a database (a text file, one cut short), another application's database (no `schema_version`
 * table of this store's), one written by a newer schema version, and one where an object of the
 * schema was dropped or changed (without the triggers, raw SQL rewrites audit entries and records
 * unseen), and one with a trigger the schema does not create on one of the store's tables (it can
 * undo what the store's triggers do). Other objects the schema does not create (a host's own index,
 * view, table, or trigger on a table of its own) are left alone.
 *
 * Reads only (one read transaction, so a migration committed meanwhile is seen whole or not at
 * all): called before the first write of an open, it leaves a refused file exactly as it was. Its
 * read is the first one of a connection, so SQLite's refusal of a file this process cannot open
 * for writing comes from it too (a WAL file in a directory this process may not write): a
 * `StoreInputError` on `path` as well (`sqliteOpenRefusal`).
 */
export function checkSqliteSchema(database: Database, path: string): number {
  const refusal = (problem: string) => new StoreInputError('path', `${JSON.stringify(path)} ${problem}`);
  let stored: StoredSchema;
  try {
    stored = database.transaction(() => readStoredSchema(database)).deferred();
  } catch (error) {
    // SQLite reads the header and the schema pages at the first statement: that is where a file
    // that is not a database (SQLITE_NOTADB) or one shorter than its header says (SQLITE_CORRUPT) fails.
    if (error instanceof BetterSqlite3.SqliteError && error.code === 'SQLITE_NOTADB') {
      throw refusal(`is not a SQLite database (SQLite: ${JSON.stringify(error.message)})`);
    }
    if (error instanceof BetterSqlite3.SqliteError && error.code.startsWith('SQLITE_CORRUPT')) {
      throw refusal(`is not a SQLite database, or one cut short or damaged (SQLite: ${JSON.stringify(error.message)})`);
    }
    // It is also where a WAL file in a directory this process may not write fails: SQLite cannot
    // create the -wal and -shm files (SQLITE_READONLY_DIRECTORY, "attempt to write a readonly database").
    throw sqliteOpenRefusal(error, path) ?? error;
  }
  const { objects, version } = stored;
  // A new file (or an empty database of any application): the migrations create everything.
  if (objects.size === 0) return 0;
  const foreign = `is a SQLite database of another application, not this store's:`;
  if (!objects.has(SCHEMA_VERSION_KEY)) {
    throw refusal(`${foreign} it has no schema_version table (it holds ${describeObjects([...objects.values()])})`);
  }
  if (version === undefined) throw refusal(`${foreign} its schema_version table is not the one this store creates`);
  if (version > SQLITE_SCHEMA_VERSION) {
    throw refusal(
      `was written by a newer version of @toolseal/store-sqlite: its schema version ${version} is newer than this package (${SQLITE_SCHEMA_VERSION}); upgrade every process that opens it`,
    );
  }
  const expected = expectedSchema(version);
  if (expected === undefined) throw refusal(`${foreign} its schema_version table records version ${version}, which this store never writes`);
  if (version === 0) {
    // Left by a first open that stopped between creating schema_version and the first migration;
    // anything else in it was put there by someone else.
    const others = [...objects.values()].filter((object) => objectKey(object) !== SCHEMA_VERSION_KEY);
    if (others.length > 0) throw refusal(`${foreign} beside an empty schema_version table it holds ${describeObjects(others)}`);
    return 0;
  }
  const problems: string[] = [];
  for (const object of expected.values()) {
    const found = objects.get(objectKey(object));
    const named = `${object.type} ${object.name} (schema version ${object.version})`;
    if (found === undefined) problems.push(`${named} is missing`);
    else if (!sameObject(found, object)) problems.push(`${named} is not the one this store creates`);
  }
  // A trigger of someone else's on one of the store's tables can undo what its statements and
  // triggers do (a BEFORE UPDATE ... RAISE(IGNORE) on the token floor stops purges raising it).
  // Compared as SQLite compares names, ASCII letters in either case: `sqlite_master.tbl_name` keeps
  // the name as the statement wrote it, and a trigger `ON AUDIT_LOG` fires on `audit_log`.
  const tables = new Set([...expected.values()].filter((object) => object.type === 'table').map((object) => asciiLowerCase(object.name)));
  for (const [key, object] of objects) {
    if (object.type === 'trigger' && tables.has(asciiLowerCase(object.tbl_name)) && !expected.has(key)) {
      problems.push(`trigger ${object.name} on table ${object.tbl_name} is not one this store creates (drop it)`);
    }
  }
  if (problems.length > 0) {
    throw refusal(
      `does not hold everything schema version ${version} of this store created in it: ${problems.join(', ')}. ` +
        'A trigger missing or changed may have let raw SQL rewrite audit entries or idempotency records unseen: create each object again ' +
        'with its statement in SQLITE_MIGRATIONS (at the version named), or restore the file from a backup, then check the log with verifyChain',
    );
  }
  return version;
}

/** Every object of the file, and its schema version when it has this store's `schema_version` table. */
function readStoredSchema(database: Database): StoredSchema {
  const objects = readObjects(database);
  const table = objects.get(SCHEMA_VERSION_KEY);
  const ours = expectedSchema(0)?.get(SCHEMA_VERSION_KEY);
  if (table === undefined || ours === undefined || !sameObject(table, ours)) return { objects, version: undefined };
  const row = database.prepare<[], { version: number | null }>('SELECT max(version) AS version FROM schema_version').get();
  return { objects, version: row?.version ?? 0 };
}

/** `name` with its ASCII capitals in lower case, and nothing else changed: how SQLite folds names. */
function asciiLowerCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));
}

/** How objects are told apart: by type and name (a trigger may share a table's name). */
function objectKey(object: SchemaObject): string {
  return `${object.type} ${object.name}`;
}

const SCHEMA_VERSION_KEY = 'table schema_version';

/** The tables, indexes, views and triggers of `database` by `objectKey`, SQLite's own (`sqlite_...`) left out. */
function readObjects(database: Database): Map<string, SchemaObject> {
  const rows = database
    .prepare<[], SchemaObject>("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY rowid")
    .all();
  return new Map(rows.map((row) => [objectKey(row), row]));
}

/** The objects of schema version `version` by `objectKey`; `undefined` for a version this package never wrote. */
function expectedSchema(version: number): ReadonlyMap<string, ExpectedObject> | undefined {
  expectedSchemas ??= replayMigrations();
  return expectedSchemas.get(version);
}

/**
 * The objects of each schema version, from the statements that create them: the migrations are
 * applied to an empty in-memory database and its `sqlite_master` read after each one, so what a
 * file is compared with cannot drift from what the migrations write (a column added by `ALTER
 * TABLE` included). `upgradeStatements` only change rows.
 */
function replayMigrations(): ReadonlyMap<number, ReadonlyMap<string, ExpectedObject>> {
  const scratch = new BetterSqlite3(':memory:');
  try {
    const schemas = new Map<number, ReadonlyMap<string, ExpectedObject>>();
    let previous: ReadonlyMap<string, ExpectedObject> = new Map();
    const snapshot = (version: number) => {
      const current = new Map<string, ExpectedObject>();
      for (const [key, object] of readObjects(scratch)) {
        current.set(key, { ...object, version: previous.get(key)?.version ?? version });
      }
      schemas.set(version, current);
      previous = current;
    };
    scratch.exec(SCHEMA_VERSION_TABLE_STATEMENT);
    snapshot(0);
    for (const migration of SQLITE_MIGRATIONS) {
      for (const statement of migration.statements) scratch.exec(statement);
      snapshot(migration.version);
    }
    return schemas;
  } finally {
    scratch.close();
  }
}

/** Same kind, same table and the same statement, whitespace aside. */
function sameObject(found: SchemaObject, expected: SchemaObject): boolean {
  const statement = (object: SchemaObject) => object.sql?.replace(/\s+/g, ' ').trim() ?? null;
  return found.type === expected.type && found.tbl_name === expected.tbl_name && statement(found) === statement(expected);
}

/** `table notes, index notes_by_text and 4 more`. */
function describeObjects(objects: readonly SchemaObject[]): string {
  const listed = objects.slice(0, LISTED_OBJECTS).map((object) => `${object.type} ${object.name}`);
  const more = objects.length - listed.length;
  return more > 0 ? `${listed.join(', ')} and ${more} more` : listed.join(', ');
}
