import type { JsonObject, Sha256Hex } from '@toolseal/contracts';

/** What the dispatcher appends. */
export interface AuditEntryInput {
  /**
   * What the entry records: the dispatcher appends `sealed_call` (one per call) and
   * `write_started` (before a write's handler runs); hosts may use any other lowercase snake_case
   * word (`^[a-z][a-z0-9_]{0,63}$`).
   */
  kind: string;
  /** The provider call id the entry is about, or `null` (indexed for queries). */
  call_id: string | null;
  /** The dispatcher's operation id, or `null` (indexed for queries). */
  operation_id: string | null;
  /** The idempotency key, or `null` (indexed for queries). */
  idempotency_key: string | null;
  /**
   * The record itself: the `protected_audit`, the `model_result` digest, a decision record...
   * Must be JSON that RFC 8785 can canonicalize. Stored as canonical JSON text.
   */
  body: JsonObject;
}

/** One stored entry of the chain. */
export interface AuditEntry extends AuditEntryInput {
  /** Position in the chain, from 1, without gaps. */
  sequence: number;
  /** When it was appended: RFC 3339 UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`) from the injected clock. */
  recorded_at: string;
  /**
   * The previous entry's `entry_hash`; for the first entry the log's genesis hash (64 zeros, or
   * `auditGenesisHash(digester, logId)` for a log with an identity).
   */
  previous_hash: Sha256Hex;
  /** `digestTagged('toolseal.audit_chain.v2', { previous_hash, entry: <the record: JSON.parse(canonical)> })`. */
  entry_hash: Sha256Hex;
  /** The canonical JSON text of the entry record, exactly as stored and hashed. */
  canonical: string;
}

/** A row exactly as a store keeps it: the columns a tamper test edits. */
export interface StoredAuditRow {
  sequence: number;
  recorded_at: string;
  kind: string;
  call_id: string | null;
  operation_id: string | null;
  idempotency_key: string | null;
  previous_hash: string;
  entry_hash: string;
  canonical: string;
}

/** The chain head as a store keeps it beside the rows (updated in the same transaction). */
export interface AuditHead {
  sequence: number;
  entry_hash: Sha256Hex;
}

/** What `verifyChain` can find wrong, at the first bad position. */
export type ChainProblem =
  /** The entry's content, a column, or its hash does not match (or it was forged without the key). */
  | 'edited'
  /** An entry is missing at this position (including a truncated tail). */
  | 'deleted'
  /** An entry that does not belong to the chain sits at this position (forged or replayed). */
  | 'inserted'
  /** The entry for this position exists, but later in the storage order. */
  | 'reordered'
  /** The entry's `previous_hash` is not the hash of the entry before it. */
  | 'broken_link';

export type ChainVerification =
  | {
      ok: true;
      /** How many entries were checked. */
      checked: number;
      /**
       * The last entry checked, its hash recomputed by this verification (never a value read from
       * the stored head row), or `null` when no entry was checked: the log is empty, or `from` is
       * just past its last entry (then keep the anchor you already have: never replace it with
       * `null`). Save it outside the store, as the next `anchor`, to detect rewrites later.
       */
      head: AuditHead | null;
      /**
       * `true` when an `anchor` kept outside the store was compared with the row at its position
       * and matched: the chain still holds it. An anchor at `from - 1` (verifying from just past
       * it) is compared with that entry's stored hash, the link the check starts from. `false`
       * for an anchor further before `from` (never compared).
       * `false` without one: the rows were only compared with the head row stored beside them,
       * which anyone able to delete rows can rewind too, so deleting the newest entries goes
       * undetected (even with a key). Only entries up to the anchor are protected from truncation.
       */
      anchored: boolean;
    }
  | {
      ok: false;
      /** The first bad sequence position. */
      position: number;
      problem: ChainProblem;
      /** A short machine-readable detail for operators (`entry_hash_mismatch`, `not_canonical`...). */
      detail: string;
    };

export interface VerifyChainOptions {
  /**
   * First sequence to check (default 1; a positive integer, else a `RangeError`). Checking from
   * `n > 1` trusts entry `n - 1`'s stored hash as the starting link. With nothing stored from `n`
   * on (`n` = last sequence + 1), no entry is checked: the stored head must still name entry
   * `n - 1` with that hash (else `head_mismatch`, or `beyond_head` for an earlier or empty head),
   * and the result is `{ ok: true, checked: 0, head: null }`.
   */
  from?: number;
  /**
   * A head saved earlier (from an append or a verification) and kept outside the store: the
   * chain must still contain exactly this entry hash at this sequence (an anchor at `from - 1`
   * is compared with that entry's stored hash, where the check starts). Without a key or an
   * anchor, someone who can rewrite the whole table can rewrite the whole chain; without an
   * anchor, even with a key, someone who can delete rows can drop the newest entries and rewind
   * the stored head (the result then says `anchored: false`). `sequence` must be a positive
   * safe integer (a number: convert a `bigint` or text read back first) and `entry_hash` 64
   * lowercase hex; anything else throws a `RangeError` before anything is read.
   */
  anchor?: AuditHead;
}

/** Filters for `query`; all given filters must match. */
export interface AuditQuery {
  kind?: string;
  call_id?: string;
  operation_id?: string;
  idempotency_key?: string;
  /** Inclusive lower bound on `recorded_at`, RFC 3339. */
  from_time?: string;
  /** Exclusive upper bound on `recorded_at`, RFC 3339. */
  to_time?: string;
}

export interface AuditPageRequest {
  /** 1..1000 entries per page. */
  limit: number;
  /** The `next` cursor of the previous page (a sequence; entries after it are returned). */
  after?: number;
}

export interface AuditPage {
  /** Matching entries in sequence order. */
  entries: AuditEntry[];
  /** Pass as `after` for the next page; `null` when there is no more. */
  next: number | null;
}

/**
 * The append-only audit log. There is deliberately no update or delete API: corrections are new
 * entries. Every implementation chains entries the same way, so `verifyChain` can re-derive
 * everything from the stored canonical text.
 */
export interface AuditLog {
  /**
   * Whether the chain's links are HMAC-keyed: the `keyed` of the digester the log chains with
   * (`createDigester({ key })` of `@toolseal/digests`). A dispatcher compares it with its own
   * digester's, so that a host whose digester is keyed does not write, unawares, to a chain anyone
   * able to rewrite the table can re-hash. Absent: unknown (a store that does not report it).
   */
  readonly keyed?: boolean;
  /**
   * Appends one entry at the head of the chain (serialized across every connection and host).
   * Each field of `entry` is read once; the value checked is the value stored. The entry returned
   * carries as `body` the object passed (not a copy), the one its `canonical` text was made from;
   * `canonical` is what was stored, so parse it (or `query`) for the stored body when that object
   * has accessors or may have changed since.
   */
  append(entry: AuditEntryInput): Promise<AuditEntry>;
  /** Re-derives the chain from the stored text and names the first bad position. */
  verifyChain(options?: VerifyChainOptions): Promise<ChainVerification>;
  /** Entries matching `filter`, in sequence order, one page at a time. */
  query(filter: AuditQuery, page: AuditPageRequest): Promise<AuditPage>;
  /**
   * The current head as stored beside the rows, or `null` when the log is empty. Not verified:
   * an anchor is better taken from an append's answer or a successful `verifyChain`'s `head`.
   */
  head(): Promise<AuditHead | null>;
}

/**
 * Raw access to a store's audit rows, bypassing the API: how tamper tests play an attacker who
 * can write the database. Every store's test harness provides one; production code never does.
 */
export interface AuditTamper {
  /** Copies of the stored rows, in storage order. */
  readRows(): Promise<StoredAuditRow[]>;
  /** Replaces every stored row with `rows`; the stored head is left as it is. */
  writeRows(rows: StoredAuditRow[]): Promise<void>;
  /** Overwrites the stored head (`null`: the log claims to be empty). */
  writeHead(head: AuditHead | null): Promise<void>;
}
