// A host process that may not write what the test made read-only: it opens the stores (or runs
// migrateSqlite) on each path it is given and reports what each attempt threw. Root may write every
// file, so a child started by a test running as root first gives root up, becoming the `nobody`
// user and group (65534), before it opens anything; the modules are loaded by then.
import { StoreInputError } from '@toolseal/audit';
import BetterSqlite3 from 'better-sqlite3';
import { migrateSqlite } from '../migrate-sqlite.js';
import { openSqliteStores } from '../open-sqlite-stores.js';

/** One attempt: `open` is `openSqliteStores`, `migrate` is `migrateSqlite` on a connection of its own. */
export interface UnprivilegedAttempt {
  mode: 'open' | 'migrate';
  path: string;
}

/** What an attempt did: `opened`, or what it threw (`field` for a StoreInputError, else null). */
export type UnprivilegedOutcome = { opened: true } | { opened: false; name: string; field: string | null; message: string };

const [attemptsJson] = process.argv.slice(2);
if (attemptsJson === undefined) throw new Error('usage: open-unprivileged-child <attempts json>');
const attempts = JSON.parse(attemptsJson) as UnprivilegedAttempt[];

const NOBODY = 65534;
if (process.getuid?.() === 0) {
  process.setgroups?.([]);
  process.setgid?.(NOBODY);
  process.setuid?.(NOBODY);
}

function attempt({ mode, path }: UnprivilegedAttempt): UnprivilegedOutcome {
  try {
    if (mode === 'open') {
      openSqliteStores({ path }).close();
    } else {
      const database = new BetterSqlite3(path);
      try {
        migrateSqlite(database, '2026-07-19T00:00:00.000Z');
      } finally {
        database.close();
      }
    }
    return { opened: true };
  } catch (error) {
    return {
      opened: false,
      name: error instanceof Error ? error.name : typeof error,
      field: StoreInputError.isInstance(error) ? error.field : null,
      message: String(error),
    };
  }
}

const outcomes = attempts.map(attempt);
process.send?.({ uid: process.getuid?.() ?? null, outcomes }, () => process.exit(0));
