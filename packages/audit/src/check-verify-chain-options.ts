import { isSha256Hex } from '@toolseal/digests';
import type { AuditHead } from './audit-log.js';

/** `verifyChain` options after the check: `from` defaulted, the anchor a private frozen copy. */
export interface CheckedVerifyChainOptions {
  from: number;
  anchor: Readonly<AuditHead> | undefined;
}

/**
 * Checks `verifyChain({ from, anchor })` before anything is read, and throws a `RangeError` naming
 * the problem on a caller bug. An anchor is the one check that catches a rewrite or a truncation,
 * so one that could never match a row must not pass silently: a `sequence` that is not a positive
 * safe integer (the string `"3"` a PostgreSQL `bigint` or an environment variable reads back as,
 * `2.5`) was never compared with anything, and the verification would still have said `anchored`.
 * Every store calls it, and `AuditChainVerifier` calls it again for stores that do not.
 */
export function checkVerifyChainOptions(options: unknown): CheckedVerifyChainOptions {
  if (options === undefined) return { from: 1, anchor: undefined };
  if (typeof options !== 'object' || options === null) throw new RangeError('verifyChain options must be an object');
  const { from, anchor } = options as { from?: unknown; anchor?: unknown };
  let start = 1;
  if (from !== undefined) {
    if (typeof from !== 'number' || !Number.isSafeInteger(from) || from < 1) throw new RangeError('from must be a positive integer');
    start = from;
  }
  if (anchor === undefined) return { from: start, anchor: undefined };
  if (typeof anchor !== 'object' || anchor === null) {
    throw new RangeError('anchor must be { sequence, entry_hash } (omit it to verify without one)');
  }
  const { sequence, entry_hash } = anchor as { sequence?: unknown; entry_hash?: unknown };
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) {
    throw new RangeError('anchor.sequence must be a positive safe integer (a number: convert a bigint or text read back first)');
  }
  if (!isSha256Hex(entry_hash)) throw new RangeError('anchor.entry_hash must be 64 lowercase hexadecimal characters');
  return { from: start, anchor: Object.freeze({ sequence, entry_hash }) };
}
