/**
 * How much work one step of a long store call does before it lets the event loop run again.
 * better-sqlite3 is synchronous: a statement, and the work done on its rows, holds the thread (and
 * a write, SQLite's write lock) until it returns. So `purgeExpired` deletes in batches, each one
 * short write transaction, and `verifyChain` reads and checks the log a page at a time, each page
 * one short read, yielding to the event loop (`setImmediate`) in between.
 *
 * Internal: read at every call, not exported from the package. Tests lower the values to cross
 * batch and page boundaries with a few records.
 */
export const SQLITE_BATCH_LIMITS = {
  /**
   * Records one `purgeExpired` batch deletes at most: one `DELETE` in a transaction of its own. About 5 ms of
   * deleting on a laptop, plus the commit.
   */
  purgeBatchRecords: 1_000,
  /**
   * Audit rows one `verifyChain` page reads at most: about 3 ms of checking for 1 KiB bodies (a
   * 200 000-entry keyed log took as long in pages of 100 as in one read, and no step of it held
   * the event loop longer than 15 ms).
   */
  verifyPageRows: 100,
  /**
   * Code units of canonical text after which a `verifyChain` page ends early, however few rows it
   * holds (a page holds at least one row): large bodies cost time (parsing, hashing) and memory by
   * their size, not their number.
   */
  verifyPageTextUnits: 262_144,
};
