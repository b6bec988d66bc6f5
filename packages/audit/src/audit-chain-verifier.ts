import { canonicalize, isSha256Hex, type Digester } from '@toolseal/digests';
import type { AuditHead, ChainProblem, ChainVerification, StoredAuditRow } from './audit-log.js';
import { checkVerifyChainOptions } from './check-verify-chain-options.js';
import { AUDIT_ENTRY_SCHEMA_VERSION, AUDIT_ENTRY_SCHEMA_VERSION_V1, computeAuditEntryHash, GENESIS_HASH } from './seal-audit-entry.js';

export interface AuditChainVerifierOptions {
  digester: Digester;
  /** First sequence position fed (default 1). */
  from?: number;
  /**
   * The hash entry `from` must link to: the log's genesis hash for `from = 1` (`GENESIS_HASH`,
   * the default, or `auditGenesisHash(digester, logId)` for a log with an identity), else the
   * stored hash of entry `from - 1`, or `null` when that entry is missing (reported as deleted).
   */
  previousHash?: string | null;
  /**
   * The head stored beside the rows, read in the same snapshot (`null`: the log says it is empty).
   * Anything but `null` or a positive safe integer `sequence` with a 64-hex `entry_hash` is
   * reported as `edited` / `head_malformed`, never returned.
   */
  storedHead: AuditHead | null;
  /**
   * A head kept outside the store that the chain must still contain (at `from - 1` it is compared
   * with `previousHash`, the stored hash of that entry). Checked like
   * `verifyChain`'s (`checkVerifyChainOptions`): a malformed one throws a `RangeError`.
   */
  anchor?: AuditHead;
}

type Failure = Extract<ChainVerification, { ok: false }>;

const RECORD_KEYS = [
  'body',
  'call_id',
  'idempotency_key',
  'kind',
  'operation_id',
  'recorded_at',
  'schema_version',
  'sequence',
].join(',');

/**
 * Re-derives an audit chain from stored rows fed in storage order, and names the first bad
 * position. Push-based so a store can feed it from a synchronous cursor inside one read
 * transaction, or page by page from an asynchronous one.
 *
 * Classification at the first row that does not verify, at position p:
 * - its record says sequence < p: `inserted` at p (a replayed copy of an earlier entry), or at
 *   p - 1 when it is a different entry linking to the same predecessor (a self-consistent forgery
 *   pushed the genuine entry p - 1 down a row);
 * - its record says sequence > p: `reordered` when a later row holds entry p, else `deleted`;
 * - otherwise, when the next row holds entry p: `inserted` (a forged entry pushed p back);
 * - otherwise `broken_link` (previous_hash is not the head) or `edited` (content, column or hash);
 * - rows past the stored head: `inserted`; a stored head past the last row: `deleted`.
 *
 * A successful verification's `head` is always the last row whose hash it recomputed, or `null`
 * when it recomputed none (an empty log, or `from` just past the last entry): never a value taken
 * from the stored head. When no row is checked from `from > 1`, the stored head must still name
 * entry `from - 1` with the hash the check starts from (`previousHash`), else `head_mismatch`
 * (another hash) or `beyond_head` (an earlier or no head, while entry `from - 1` exists).
 *
 * An anchor is compared with the row at its position, or, when it sits at `from - 1`, with the
 * stored hash of that entry the check starts from (`previousHash`): a mismatch is `edited` /
 * `anchor_mismatch` at its sequence, a match makes the result `anchored`. An anchor further
 * before `from` is never compared.
 */
export class AuditChainVerifier {
  readonly #digester: Digester;
  readonly #storedHeadSequence: number;
  /** A well-formed copy of the stored head, or `null` (also when it was malformed). */
  readonly #storedHead: AuditHead | null;
  /** The stored head was neither `null` nor `{ sequence: positive safe integer, entry_hash: 64 hex }`. */
  readonly #storedHeadMalformed: boolean;
  readonly #anchor: Readonly<AuditHead> | undefined;
  /** The anchor was compared with the row at its position, or with `previousHash` at `from - 1` (and matched). */
  #anchorCompared = false;
  readonly #from: number;
  #position: number;
  #previousHash: string;
  /** The hash entry `from` must link to, as given (`null`: entry `from - 1` is missing). */
  readonly #startHash: string | null;
  #last: AuditHead | null = null;
  #lastPreviousHash: string | null = null;
  #pending: Failure | null = null;
  #scanningFor: number | null = null;
  #verdict: Failure | null = null;
  /** A version 2 record was verified: an older writer may not append after it. */
  #sawCurrentVersion = false;

  constructor(options: AuditChainVerifierOptions) {
    this.#digester = options.digester;
    const checked = checkVerifyChainOptions({ from: options.from, anchor: options.anchor });
    this.#from = checked.from;
    this.#position = this.#from;
    const storedHead = readStoredHead(options.storedHead);
    this.#storedHeadMalformed = storedHead === undefined;
    this.#storedHead = storedHead ?? null;
    // A malformed head bounds no row: the rows are checked in full, then the head is reported.
    this.#storedHeadSequence = storedHead === undefined ? Number.POSITIVE_INFINITY : (storedHead?.sequence ?? 0);
    this.#anchor = checked.anchor;
    const previousHash = options.previousHash === undefined ? GENESIS_HASH : options.previousHash;
    this.#startHash = previousHash;
    this.#previousHash = previousHash ?? '';
    if (previousHash === null) {
      this.#verdict = fail(this.#from - 1, 'deleted', 'missing');
    } else if (this.#anchor !== undefined && this.#from > 1 && this.#anchor.sequence === this.#from - 1) {
      // An anchor at `from - 1` (the incremental check: from just past the last anchor) is compared
      // with that entry's stored hash, the link the check starts from: a rewritten chain no longer
      // holds it, even when no row is checked after it.
      if (this.#anchor.entry_hash !== previousHash) this.#verdict = fail(this.#from - 1, 'edited', 'anchor_mismatch');
      else this.#anchorCompared = true;
    }
  }

  /** Feeds the next stored row; returns `false` once a verdict is reached (stop feeding). */
  push(row: StoredAuditRow): boolean {
    if (this.#verdict !== null) return false;
    const position = this.#position;
    if (this.#scanningFor !== null) {
      if (recordSequence(row.canonical) === this.#scanningFor) {
        this.#verdict = fail(this.#scanningFor, 'reordered', 'entry_out_of_order');
      }
      return this.#verdict === null;
    }
    if (this.#pending !== null) {
      // A forged entry at p pushed the genuine entry p one row down.
      this.#verdict =
        recordSequence(row.canonical) === this.#pending.position
          ? fail(this.#pending.position, 'inserted', 'forged_entry')
          : this.#pending;
      return false;
    }

    const record = parseCanonicalRecord(row.canonical);
    if (record !== null && record.sequence !== position) {
      if (record.sequence < position) {
        // Two different entries linking to the same predecessor: the chain forked at the earlier
        // one, and the genuine entry (which the rest of the chain links to) is this one.
        const forked =
          record.sequence === position - 1 &&
          row.previous_hash === this.#lastPreviousHash &&
          row.entry_hash !== this.#last?.entry_hash;
        this.#verdict = forked
          ? fail(position - 1, 'inserted', 'forked')
          : fail(position, 'inserted', 'sequence_repeated');
        return false;
      }
      this.#scanningFor = position;
      return true;
    }
    if (position > this.#storedHeadSequence) {
      this.#verdict = fail(position, 'inserted', 'beyond_head');
      return false;
    }
    const problem = this.#checkRow(row, record, position);
    if (problem !== null) {
      this.#pending = problem;
      return true;
    }
    if (this.#anchor !== undefined && this.#anchor.sequence === position) {
      if (this.#anchor.entry_hash !== row.entry_hash) {
        this.#verdict = fail(position, 'edited', 'anchor_mismatch');
        return false;
      }
      this.#anchorCompared = true;
    }
    if (record?.schema_version === AUDIT_ENTRY_SCHEMA_VERSION) this.#sawCurrentVersion = true;
    this.#lastPreviousHash = row.previous_hash;
    this.#previousHash = row.entry_hash;
    this.#last = { sequence: position, entry_hash: row.entry_hash };
    this.#position = position + 1;
    return true;
  }

  /** The verdict after the last row. */
  finish(): ChainVerification {
    if (this.#verdict !== null) return this.#verdict;
    if (this.#pending !== null) return this.#pending;
    if (this.#scanningFor !== null) return fail(this.#scanningFor, 'deleted', 'missing');
    const lastSequence = this.#position - 1;
    if (this.#anchor !== undefined && this.#anchor.sequence > lastSequence && this.#anchor.sequence >= this.#from) {
      return fail(lastSequence + 1, 'deleted', 'anchor_beyond_end');
    }
    // Where the head should point: the last entry checked, else the one before `from` (at least 1).
    if (this.#storedHeadMalformed) return fail(Math.max(lastSequence, 1), 'edited', 'head_malformed');
    if (this.#storedHeadSequence > lastSequence) return fail(lastSequence + 1, 'deleted', 'truncated');
    const storedHead = this.#storedHead;
    if (this.#last === null && this.#from > 1) {
      // No row was checked: `from` is just past the last entry. The stored head must name entry
      // `from - 1` as the check's starting link does (a later head was reported as truncated).
      if (storedHead === null || storedHead.sequence < lastSequence) return fail(lastSequence, 'inserted', 'beyond_head');
      if (storedHead.entry_hash !== this.#startHash) return fail(lastSequence, 'edited', 'head_mismatch');
    }
    if (storedHead !== null && this.#last !== null && storedHead.entry_hash !== this.#last.entry_hash) {
      return fail(lastSequence, 'edited', 'head_mismatch');
    }
    // Only an anchor that was compared counts: with the row at its position, or at `from - 1` with
    // the stored hash the check starts from (one further before `from` never was). The head
    // is the last row whose hash was recomputed, never the stored one: `null` when none was (an
    // empty log, or nothing after `from - 1`), so a host keeps the anchor it already has.
    return { ok: true, checked: lastSequence - this.#from + 1, head: this.#last, anchored: this.#anchorCompared };
  }

  #checkRow(row: StoredAuditRow, record: CanonicalRecord | null, position: number): Failure | null {
    if (record === null) return fail(position, 'edited', 'not_canonical');
    if (
      row.sequence !== record.sequence ||
      row.recorded_at !== record.recorded_at ||
      row.kind !== record.kind ||
      row.call_id !== record.call_id ||
      row.operation_id !== record.operation_id ||
      row.idempotency_key !== record.idempotency_key
    ) {
      return fail(position, 'edited', 'column_mismatch');
    }
    if (row.previous_hash !== this.#previousHash) {
      // Entry 1 links to the log's genesis: another log's chain (or a log identity that was
      // added or changed after the log began) fails here.
      return fail(position, 'broken_link', position === 1 ? 'genesis_mismatch' : 'previous_hash_mismatch');
    }
    // Version 1 records may only precede version 2 ones: a log continues in the newer version.
    if (record.schema_version === AUDIT_ENTRY_SCHEMA_VERSION_V1 && this.#sawCurrentVersion) {
      return fail(position, 'edited', 'version_downgrade');
    }
    if (computeAuditEntryHash(this.#digester, row.previous_hash, row.canonical, record.schema_version) !== row.entry_hash) {
      return fail(position, 'edited', 'entry_hash_mismatch');
    }
    return null;
  }
}

interface CanonicalRecord {
  /** `AUDIT_ENTRY_SCHEMA_VERSION`, or version 1 for entries written before it (own link formula). */
  schema_version: string;
  sequence: number;
  recorded_at: string;
  kind: string;
  call_id: string | null;
  operation_id: string | null;
  idempotency_key: string | null;
}

/** The record of a stored canonical text, or `null` unless it is exactly canonical and well-formed. */
function parseCanonicalRecord(text: string): CanonicalRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (Object.keys(record).sort().join(',') !== RECORD_KEYS) return null;
  const { body, sequence, recorded_at, kind, call_id, operation_id, idempotency_key, schema_version } = record;
  if (
    (schema_version !== AUDIT_ENTRY_SCHEMA_VERSION && schema_version !== AUDIT_ENTRY_SCHEMA_VERSION_V1) ||
    typeof body !== 'object' ||
    body === null ||
    Array.isArray(body) ||
    typeof sequence !== 'number' ||
    !Number.isSafeInteger(sequence) ||
    typeof recorded_at !== 'string' ||
    typeof kind !== 'string' ||
    !isNullableString(call_id) ||
    !isNullableString(operation_id) ||
    !isNullableString(idempotency_key)
  ) {
    return null;
  }
  try {
    // Duplicate keys, reordered keys, whitespace or other number spellings all fail here.
    if (canonicalize(value) !== text) return null;
  } catch {
    return null;
  }
  return { schema_version, sequence, recorded_at, kind, call_id, operation_id, idempotency_key };
}

/**
 * A copy of a stored head read once: `null` for none, `undefined` unless it is an object with a
 * positive safe integer `sequence` and a 64-hex `entry_hash` (a database can hand back anything).
 */
function readStoredHead(head: unknown): AuditHead | null | undefined {
  if (head === null) return null;
  if (typeof head !== 'object') return undefined;
  const { sequence, entry_hash } = head as Record<string, unknown>;
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1 || !isSha256Hex(entry_hash)) return undefined;
  return { sequence, entry_hash };
}

function recordSequence(text: string): number | null {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const sequence = (value as Record<string, unknown>)['sequence'];
    return typeof sequence === 'number' ? sequence : null;
  } catch {
    return null;
  }
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

function fail(position: number, problem: ChainProblem, detail: string): Failure {
  return { ok: false, position, problem, detail };
}
