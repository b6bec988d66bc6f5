import type { Digester } from '@toolseal/digests';
import { AuditChainVerifier } from './audit-chain-verifier.js';
import type {
  AuditEntry,
  AuditEntryInput,
  AuditHead,
  AuditLog,
  AuditPage,
  AuditPageRequest,
  AuditQuery,
  AuditTamper,
  ChainVerification,
  StoredAuditRow,
  VerifyChainOptions,
} from './audit-log.js';
import { checkFindCompletedInput, checkFindUnresolvedInput } from './check-find-unresolved-input.js';
import { checkClock, checkDigester, checkIdentifier, checkMaxBodyBytes, checkOptionNames, checkPurgeInput } from './check-store-input.js';
import { StoreInputError } from './store-input-error.js';
import { checkVerifyChainOptions } from './check-verify-chain-options.js';
import { readClock, type Clock } from './clock.js';
import type {
  ClaimInput,
  ClaimOutcome,
  CompleteInput,
  FencedInput,
  FindCompletedInput,
  FindUnresolvedInput,
  FencedOutcome,
  IdempotencyRecord,
  IdempotencyStore,
  MarkStartedInput,
  PurgeInput,
  ReconcileInput,
  ReleaseInput,
} from './idempotency-store.js';
import { matchesAuditQuery, normalizeAuditQuery } from './normalize-audit-query.js';
import {
  checkIdempotencyOperation,
  planIdempotencyTransition,
  type IdempotencyOperation,
  type PlannedWrite,
} from './plan-idempotency-transition.js';
import {
  auditEntryFromRow,
  auditEntryWithBody,
  auditGenesisHash,
  formatRecordedAt,
  prepareAuditEntry,
  sealAuditEntry,
} from './seal-audit-entry.js';
import { isPurgeable } from './is-purgeable.js';
import { isUnresolved, oldestFirst } from './is-unresolved.js';

export interface MemoryStoresOptions {
  /** The time source for leases, retention and `recorded_at`. */
  clock: Clock;
  /**
   * Hashes the audit chain; a keyed digester (`createDigester({ key })`) makes it an HMAC chain.
   * Pass the digester your dispatcher uses: `auditLog.keyed` reports which kind this one is.
   */
  digester: Digester;
  /** Largest canonical entry body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /**
   * The log's identity (1..256 characters), bound into the link of its first entry
   * (`auditGenesisHash`): another log's chain does not verify in its place. Default none (the
   * genesis hash is 64 zeros). Set it when the log begins and never change it.
   */
  logId?: string;
}

export interface MemoryStores {
  auditLog: AuditLog;
  idempotencyStore: IdempotencyStore;
  /** Test-only raw access to the audit rows. */
  tamper: AuditTamper;
}

/**
 * An audit log and an idempotency store in process memory: for tests, demos and single-process
 * hosts that accept losing both on restart. Same semantics as the durable stores. Options that are
 * not an object, a missing or malformed `clock` or `digester`, a malformed `maxBodyBytes` or
 * `logId` throw `StoreInputError` naming the option, here rather than at the first call.
 */
const MEMORY_STORE_OPTIONS: readonly (keyof MemoryStoresOptions)[] = ['clock', 'digester', 'maxBodyBytes', 'logId'];

export function createMemoryStores(options: MemoryStoresOptions): MemoryStores {
  if (typeof options !== 'object' || options === null) {
    throw new StoreInputError('options', 'must be an object with a clock and a digester');
  }
  checkOptionNames(options, MEMORY_STORE_OPTIONS);
  // Both are required: the memory store has no default clock or digester.
  const clock = checkClock(options.clock);
  const { digester, keyed } = checkDigester(options.digester);
  const maxBodyBytes = checkMaxBodyBytes(options.maxBodyBytes);
  const genesisHash = auditGenesisHash(digester, options.logId);
  let rows: StoredAuditRow[] = [];
  let storedHead: AuditHead | null = null;
  const records = new Map<string, IdempotencyRecord>();
  /** The keys of every record, by request digest: `findUnresolved` reads one digest's keys only. */
  const keysByRequest = new Map<string, Set<string>>();
  /** The keys of every record that has an intent digest, by that digest (`findUnresolved` by intent, `findCompleted`). */
  const keysByIntent = new Map<string, Set<string>>();
  /**
   * The highest fencing token of any record `purgeExpired` deleted (0 before the first): a key's
   * first claim starts above it, so a purged record's tokens never come back, whatever the clock
   * does (`planIdempotencyTransition`).
   */
  let tokenFloor = 0;

  /** Moves `key` in `index` from the digest `previous` to `next` (`undefined`/`null`: none). */
  function reindex(
    index: Map<string, Set<string>>,
    key: string,
    previous: string | null | undefined,
    next: string | null | undefined,
  ): void {
    if (previous === next) return;
    if (previous !== undefined && previous !== null) {
      const keys = index.get(previous);
      keys?.delete(key);
      if (keys?.size === 0) index.delete(previous);
    }
    if (next !== undefined && next !== null) {
      const keys = index.get(next) ?? new Set<string>();
      keys.add(key);
      index.set(next, keys);
    }
  }

  /** Keeps both indexes in step with a record going from `previous` to `next` (absent: `undefined`). */
  function indexRecord(key: string, previous: IdempotencyRecord | undefined, next: IdempotencyRecord | undefined): void {
    reindex(keysByRequest, key, previous?.request_sha256, next?.request_sha256);
    reindex(keysByIntent, key, previous?.intent_sha256, next?.intent_sha256);
  }

  const auditLog: AuditLog = {
    keyed,

    async append(input: AuditEntryInput): Promise<AuditEntry> {
      const prepared = prepareAuditEntry(input, maxBodyBytes === undefined ? {} : { maxBodyBytes });
      const row = sealAuditEntry(
        prepared,
        {
          sequence: (storedHead?.sequence ?? 0) + 1,
          recorded_at: formatRecordedAt(readClock(clock)),
          previous_hash: storedHead?.entry_hash ?? genesisHash,
        },
        digester,
      );
      rows.push(row);
      storedHead = { sequence: row.sequence, entry_hash: row.entry_hash };
      return auditEntryWithBody(row, prepared.body);
    },

    async verifyChain(verifyOptions?: VerifyChainOptions): Promise<ChainVerification> {
      const { from, anchor } = checkVerifyChainOptions(verifyOptions);
      const startIndex = from === 1 ? 0 : rows.findIndex((row) => row.sequence >= from);
      const previous = from === 1 ? undefined : rows.find((row) => row.sequence === from - 1);
      const verifier = new AuditChainVerifier({
        digester,
        from,
        previousHash: from === 1 ? genesisHash : (previous?.entry_hash ?? null),
        storedHead,
        ...(anchor === undefined ? {} : { anchor }),
      });
      if (startIndex >= 0) {
        for (let index = startIndex; index < rows.length; index += 1) {
          const row = rows[index];
          if (row === undefined || !verifier.push(row)) break;
        }
      }
      return verifier.finish();
    },

    async query(filter: AuditQuery, page: AuditPageRequest): Promise<AuditPage> {
      const query = normalizeAuditQuery(filter, page);
      const entries: AuditEntry[] = [];
      let more = false;
      for (const row of rows) {
        if (!matchesAuditQuery(row, query)) continue;
        if (entries.length === query.limit) {
          more = true;
          break;
        }
        entries.push(auditEntryFromRow(row));
      }
      const last = entries[entries.length - 1];
      return { entries, next: more && last !== undefined ? last.sequence : null };
    },

    async head(): Promise<AuditHead | null> {
      return storedHead === null ? null : { ...storedHead };
    },
  };

  function run(operation: IdempotencyOperation): ClaimOutcome | FencedOutcome {
    const checked = checkIdempotencyOperation(operation);
    const now = readClock(clock);
    // A copy: outcomes hand stored results to the caller, who must not be able to edit the store.
    const stored = records.get(checked.input.key);
    const current = stored === undefined ? undefined : structuredClone(stored);
    const plan =
      checked.type === 'claim'
        ? planIdempotencyTransition(current, checked, now, tokenFloor)
        : planIdempotencyTransition(current, checked, now);
    if (plan.write !== null) apply(plan.write);
    return plan.outcome;
  }

  function apply(write: PlannedWrite): void {
    // Single-threaded: the read above and this write cannot interleave with another operation.
    indexRecord(write.record.key, records.get(write.record.key), write.record);
    records.set(write.record.key, structuredClone(write.record));
  }

  const idempotencyStore: IdempotencyStore = {
    async claim(input: ClaimInput) {
      return run({ type: 'claim', input }) as ClaimOutcome;
    },
    async markStarted(input: MarkStartedInput) {
      return run({ type: 'markStarted', input }) as FencedOutcome;
    },
    async complete(input: CompleteInput) {
      return run({ type: 'complete', input }) as FencedOutcome;
    },
    async release(input: ReleaseInput) {
      return run({ type: 'release', input }) as FencedOutcome;
    },
    async markUnknown(input: FencedInput) {
      return run({ type: 'markUnknown', input }) as FencedOutcome;
    },
    async reconcile(input: ReconcileInput) {
      return run({ type: 'reconcile', input }) as FencedOutcome;
    },
    async get(key: string) {
      const record = records.get(checkIdentifier('key', key));
      return record === undefined ? undefined : structuredClone(record);
    },
    async findUnresolved(input: FindUnresolvedInput) {
      const checked = checkFindUnresolvedInput(input);
      const { limit } = checked;
      const keys = 'intent_sha256' in checked ? keysByIntent.get(checked.intent_sha256) : keysByRequest.get(checked.request_sha256);
      const now = readClock(clock);
      const found: IdempotencyRecord[] = [];
      for (const key of keys ?? []) {
        const record = records.get(key);
        if (record !== undefined && isUnresolved(record, now)) found.push(record);
      }
      return oldestFirst(found, limit).map((record) => structuredClone(record));
    },
    async findCompleted(input: FindCompletedInput) {
      const { intent_sha256, limit } = checkFindCompletedInput(input);
      const found: IdempotencyRecord[] = [];
      for (const key of keysByIntent.get(intent_sha256) ?? []) {
        const record = records.get(key);
        if (record?.state === 'completed') found.push(record);
      }
      return oldestFirst(found, limit).map((record) => structuredClone(record));
    },
    async purgeExpired(input: PurgeInput) {
      const cutoff = readClock(clock) - checkPurgeInput(input);
      let purged = 0;
      for (const [key, record] of records) {
        if (isPurgeable(record, cutoff)) {
          indexRecord(key, record, undefined);
          records.delete(key);
          // Single-threaded: no claim runs between this deletion and the floor's raise.
          tokenFloor = Math.max(tokenFloor, record.fencing_token);
          purged += 1;
        }
      }
      return purged;
    },
  };

  const tamper: AuditTamper = {
    async readRows() {
      return rows.map((row) => ({ ...row }));
    },
    async writeRows(replacement: StoredAuditRow[]) {
      rows = replacement.map((row) => ({ ...row }));
    },
    async writeHead(head: AuditHead | null) {
      storedHead = head === null ? null : { ...head };
    },
  };

  return { auditLog, idempotencyStore, tamper };
}
