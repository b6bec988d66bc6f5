// Another process on the same SQLite file that holds the write lock for a while, as a long batch
// of writes, a backup or another host's slow transaction would: it takes BEGIN IMMEDIATE, tells
// the parent, commits `holdMs` later (writing nothing), tells the parent again and exits.
import BetterSqlite3 from 'better-sqlite3';

const [databasePath, holdMs] = process.argv.slice(2);
if (databasePath === undefined || holdMs === undefined) throw new Error('usage: lock-holder-child <database> <hold ms>');
const database = new BetterSqlite3(databasePath);
database.exec('BEGIN IMMEDIATE');
process.send?.({ step: 'locked' });
setTimeout(() => {
  database.exec('COMMIT');
  database.close();
  process.send?.({ step: 'released' }, () => process.exit(0));
}, Number(holdMs));
