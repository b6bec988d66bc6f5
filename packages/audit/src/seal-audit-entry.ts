import type { JsonObject, Sha256Hex } from '@toolseal/contracts';
import { CanonicalizationError, canonicalize, canonicalString, DEFAULT_MAX_DEPTH, isSha256Hex, type Digester } from '@toolseal/digests';
import { isWellFormedText, utf8LengthWithin } from '@toolseal/guard';
import type { AuditEntry, AuditEntryInput, StoredAuditRow } from './audit-log.js';
import { checkIdentifier, checkOptionalIdentifier } from './check-store-input.js';
import { StoreInputError } from './store-input-error.js';

/** The digest domain of the audit hash chain (links of `AUDIT_ENTRY_SCHEMA_VERSION` records). */
export const AUDIT_CHAIN_DOMAIN = 'toolseal.audit_chain.v2';
/** The `schema_version` inside every canonical entry record written now. */
export const AUDIT_ENTRY_SCHEMA_VERSION = 'toolseal-audit-entry-v2';
/**
 * Records written before version 2 (`toolseal-audit-entry-v1`) and the domain of their links
 * (`toolseal.audit_chain.v1`, the record embedded as a JSON string). Still verified.
 */
export const AUDIT_ENTRY_SCHEMA_VERSION_V1 = 'toolseal-audit-entry-v1';
export const AUDIT_CHAIN_DOMAIN_V1 = 'toolseal.audit_chain.v1';
/** The `previous_hash` of the first entry of a log without an identity (the default). */
export const GENESIS_HASH: Sha256Hex = '0'.repeat(64);
/** The digest domain of a log identity's genesis hash (`auditGenesisHash`). */
export const AUDIT_GENESIS_DOMAIN = 'toolseal.audit_genesis.v1';
/** Default limit on an entry body's canonical UTF-8 size. */
export const DEFAULT_MAX_AUDIT_BODY_BYTES = 1024 * 1024;

const KIND = /^[a-z][a-z0-9_]{0,63}$/;
// Year 10000: beyond it `toISOString` changes shape and `recorded_at` stops sorting as text.
const MAX_RECORDED_AT_MS = 253_402_300_800_000;

/**
 * How deep an entry body may nest (999): the stored record holds the body one level down, and
 * the chain verifier canonicalizes the whole record again within `DEFAULT_MAX_DEPTH` (1000). A
 * deeper body is refused at append (`StoreInputError`), never stored to fail verification later as
 * an edited entry (which would stop `verifyChain` there, hiding whatever follows).
 */
export const MAX_AUDIT_BODY_DEPTH = DEFAULT_MAX_DEPTH - 1;

const BODY_CANONICAL_OPTIONS = { reuseRemembered: true, maxDepth: MAX_AUDIT_BODY_DEPTH } as const;

/** An entry checked and canonicalized outside the append lock; only the chain fields are missing. */
export interface PreparedAuditEntry {
  kind: string;
  call_id: string | null;
  operation_id: string | null;
  idempotency_key: string | null;
  /**
   * The object `bodyCanonical` was made from: the caller's own, read once, not a copy. The stored
   * record is `bodyCanonical`; an accessor inside the body, or a change to it after the append,
   * makes this object read differently from it.
   */
  body: JsonObject;
  /**
   * RFC 8785 text of `body`, from one reading of each of its members (a frozen member whose builder
   * remembered its text, `rememberCanonicalText`, is written as remembered instead).
   */
  bodyCanonical: string;
}

/**
 * Checks an entry (throws StoreInputError on a caller bug) and canonicalizes its body once, so
 * the work done while holding the append lock is string assembly and one hash.
 *
 * Each field of `input` is read exactly once, into a local that is both checked and stored: an
 * accessor (or Proxy) answering differently per read cannot get an unchecked `kind` or identifier
 * stored, nor make the prepared `body` an object other than the one `bodyCanonical` was made from.
 * `canonicalize` in turn reads each member of the body once, so `bodyCanonical` is one consistent
 * reading of it; a frozen projection whose text its builder remembered (the protected audit of a
 * sealed call, see `rememberCanonicalText`) is written as remembered, not read.
 */
export function prepareAuditEntry(
  input: AuditEntryInput,
  options: { maxBodyBytes?: number } = {},
): PreparedAuditEntry {
  if (typeof input !== 'object' || input === null) throw new StoreInputError('entry', 'must be an object');
  // One read per field, in the order they are checked.
  const kind: unknown = input.kind;
  const body: unknown = input.body;
  const callId: unknown = input.call_id;
  const operationId: unknown = input.operation_id;
  const idempotencyKey: unknown = input.idempotency_key;
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    throw new StoreInputError('kind', 'must match ^[a-z][a-z0-9_]{0,63}$');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new StoreInputError('body', 'must be a JSON object');
  }
  let bodyCanonical: string;
  try {
    // A projection whose text its builder remembered (the protected audit of a sealed call) is
    // written as remembered, not walked again: see `rememberCanonicalText`.
    bodyCanonical = canonicalize(body, BODY_CANONICAL_OPTIONS);
  } catch (error) {
    if (CanonicalizationError.isInstance(error)) {
      throw new StoreInputError('body', `cannot be canonicalized (${error.reason} at ${error.path})`);
    }
    throw error;
  }
  // A walked text escapes every control character and refuses lone surrogates; only a text trusted
  // code remembered for a projection can hold a raw NUL, which PostgreSQL text refuses, or a lone
  // surrogate, which the chain link cannot be computed over: refused here, for this entry alone,
  // rather than failing every append of a group commit (and the same in every store).
  if (bodyCanonical.includes('\u0000')) {
    throw new StoreInputError('body', 'holds a raw NUL character (a remembered canonical text that is not RFC 8785)');
  }
  if (!isWellFormedText(bodyCanonical)) {
    throw new StoreInputError('body', 'holds a lone surrogate (a remembered canonical text that is not RFC 8785)');
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_AUDIT_BODY_BYTES;
  // Decided from the length alone unless the text is within 3x of the limit.
  if (!utf8LengthWithin(bodyCanonical, maxBodyBytes)) {
    throw new StoreInputError('body', `canonical form exceeds ${maxBodyBytes} bytes`);
  }
  return {
    kind,
    call_id: checkOptionalIdentifier('call_id', callId),
    operation_id: checkOptionalIdentifier('operation_id', operationId),
    idempotency_key: checkOptionalIdentifier('idempotency_key', idempotencyKey),
    // The very object canonicalized above (canonicalize accepts only plain objects and arrays).
    body: body as JsonObject,
    bodyCanonical,
  };
}

/**
 * The `previous_hash` of a log's first entry. Without a log identity (`logId` undefined, the
 * default) it is `GENESIS_HASH`, 64 zeros, as every log written before identities existed. With
 * one it is `digester.digestTagged('toolseal.audit_genesis.v1', { log_id })` (an HMAC with a keyed
 * digester), so the whole chain is bound to that identity: another log's genuine chain, copied
 * over this one's rows and head, breaks at entry 1 (`broken_link` / `genesis_mismatch`).
 * A malformed identity (not 1..256 storable characters) throws a `StoreInputError`.
 */
export function auditGenesisHash(digester: Digester, logId: string | undefined): Sha256Hex {
  if (logId === undefined) return GENESIS_HASH;
  return digester.digestTagged(AUDIT_GENESIS_DOMAIN, { log_id: checkIdentifier('logId', logId) });
}

/** Where in the chain an entry goes. */
export interface ChainPosition {
  sequence: number;
  recorded_at: string;
  previous_hash: Sha256Hex;
}

/** Builds the stored row of a prepared entry at `position`: its canonical record and hash. */
export function sealAuditEntry(prepared: PreparedAuditEntry, position: ChainPosition, digester: Digester): StoredAuditRow {
  const record = canonicalAuditRecord(prepared, position);
  let canonical = record;
  let entryHash: Sha256Hex;
  if (isSha256Hex(position.previous_hash)) {
    // The chain link text, then the record as a slice of it. Slicing flattens the link into one
    // string, and the stored record is a view of that string: a row keeps two heap objects
    // instead of the tree of pieces the record was assembled from (about 16 more objects, 0.5 KB,
    // each copied by every young-generation collection a retained row goes through).
    const link = chainLinkText(record, position.previous_hash);
    canonical = link.slice(CHAIN_PREFIX.length, CHAIN_PREFIX.length + record.length);
    entryHash = digester.digestText(link);
  } else {
    entryHash = computeAuditEntryHash(digester, position.previous_hash, record, AUDIT_ENTRY_SCHEMA_VERSION);
  }
  return {
    sequence: position.sequence,
    recorded_at: position.recorded_at,
    kind: prepared.kind,
    call_id: prepared.call_id,
    operation_id: prepared.operation_id,
    idempotency_key: prepared.idempotency_key,
    previous_hash: position.previous_hash,
    entry_hash: entryHash,
    canonical,
  };
}

/**
 * The canonical JSON text of an entry record. Equal to
 * `canonicalize({ body, call_id, idempotency_key, kind, operation_id, recorded_at, schema_version,
 * sequence })`, assembled from the body's canonical text (keys are already in RFC 8785 order).
 */
export function canonicalAuditRecord(prepared: PreparedAuditEntry, position: ChainPosition): string {
  return (
    `{"body":${prepared.bodyCanonical}` +
    `,"call_id":${canonicalScalar(prepared.call_id)}` +
    `,"idempotency_key":${canonicalScalar(prepared.idempotency_key)}` +
    `,"kind":${canonicalScalar(prepared.kind)}` +
    `,"operation_id":${canonicalScalar(prepared.operation_id)}` +
    `,"recorded_at":${canonicalScalar(position.recorded_at)}` +
    `,"schema_version":"${AUDIT_ENTRY_SCHEMA_VERSION}"` +
    `,"sequence":${Number.isSafeInteger(position.sequence) ? String(position.sequence) : canonicalize(position.sequence)}}`
  );
}

/**
 * `canonicalize(value)` for the string and null columns of a record, without a walk: a string
 * without lone surrogates is exactly its `JSON.stringify` text (RFC 8785 §3.2.2.2). Anything else
 * goes through `canonicalize`, which throws as before.
 */
function canonicalScalar(value: string | null): string {
  if (value === null) return 'null';
  return canonicalString(value) ?? canonicalize(value);
}

const CHAIN_PREFIX = `{"domain":${JSON.stringify(AUDIT_CHAIN_DOMAIN)},"entry":`;
const CHAIN_PREFIX_V1 = `{"domain":${JSON.stringify(AUDIT_CHAIN_DOMAIN_V1)},"entry":`;

/**
 * The chain link of the canonical record text `canonical` after `previous_hash`: H, or HMAC with
 * a keyed digester, of the canonical
 * `{ domain: 'toolseal.audit_chain.v2', entry: <the record, as a JSON object>, previous_hash }`,
 * i.e. `digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(canonical), previous_hash })`.
 *
 * The text is written directly ("domain" < "entry" < "previous_hash"): the record is already
 * canonical, and embedding it as an object rather than as a JSON string (version 1) saves escaping
 * and hashing a second copy of it (about 1.1 µs of an 8 µs memory append for a 1.5 KB record).
 * Callers pass only canonical text: records they built, or stored ones `verifyChain` has checked
 * to be canonical first. `schemaVersion` is the record's own (`AUDIT_ENTRY_SCHEMA_VERSION` for
 * records written now): required, so a caller recomputing old rows cannot get the wrong formula by
 * default. A `toolseal-audit-entry-v1` record gets its version 1 link:
 * `digestTagged('toolseal.audit_chain.v1', { entry: canonical, previous_hash })`.
 */
export function computeAuditEntryHash(
  digester: Digester,
  previous_hash: string,
  canonical: string,
  schemaVersion: string,
): Sha256Hex {
  const wellFormed = typeof canonical === 'string' && isWellFormedText(canonical);
  if (schemaVersion === AUDIT_ENTRY_SCHEMA_VERSION_V1) {
    if (wellFormed && typeof previous_hash === 'string' && isWellFormedText(previous_hash)) {
      return digester.digestText(`${CHAIN_PREFIX_V1}${JSON.stringify(canonical)},"previous_hash":${JSON.stringify(previous_hash)}}`);
    }
    return digester.digestTagged(AUDIT_CHAIN_DOMAIN_V1, { entry: canonical, previous_hash });
  }
  if (schemaVersion !== AUDIT_ENTRY_SCHEMA_VERSION) throw new RangeError(`unknown audit entry schema_version ${JSON.stringify(schemaVersion)}`);
  // A 64-hex previous hash needs no escaping, and its fixed length keeps the text unambiguous.
  if (wellFormed && isSha256Hex(previous_hash)) {
    return digester.digestText(chainLinkText(canonical, previous_hash));
  }
  return digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: JSON.parse(canonical) as unknown, previous_hash });
}

/**
 * The version 2 chain link text of a canonical record after a 64-hex `previous_hash`: the record
 * is already canonical and the hash needs no escaping, so the text is written directly
 * ("domain" < "entry" < "previous_hash").
 */
function chainLinkText(canonical: string, previous_hash: string): string {
  return `${CHAIN_PREFIX}${canonical},"previous_hash":"${previous_hash}"}`;
}

// The text up to the seconds' dot of the latest second formatted: appends come many per second,
// and building a Date for each measured about 0.5 µs of a 8 µs memory append.
let cachedSecond = -1;
let cachedPrefix = '';

/** `recorded_at` for an epoch time: RFC 3339 UTC with milliseconds, fixed width, sortable as text. */
export function formatRecordedAt(epochMs: number): string {
  if (!Number.isSafeInteger(epochMs) || epochMs < 0 || epochMs >= MAX_RECORDED_AT_MS) {
    throw new RangeError('audit clock time must fall between 1970 and 9999');
  }
  const millisecond = epochMs % 1000;
  const second = epochMs - millisecond;
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second).toISOString().slice(0, 20); // "YYYY-MM-DDTHH:MM:SS."
    cachedSecond = second;
  }
  return `${cachedPrefix}${millisecond < 10 ? '00' : millisecond < 100 ? '0' : ''}${millisecond}Z`;
}

/** The API view of a stored row; the body is parsed from the stored canonical text. */
export function auditEntryFromRow(row: StoredAuditRow): AuditEntry {
  const record = JSON.parse(row.canonical) as { body: JsonObject };
  return auditEntryWithBody(row, record.body);
}

/**
 * The API view of a row just appended, with the body the caller passed (`prepared.body`, the very
 * object `prepared.bodyCanonical` was made from): the stored canonical text is not parsed back (it
 * was written from that body a moment ago). `canonical` is what was stored; parse it for the
 * stored body when the caller's object may have accessors or may have changed since.
 */
export function auditEntryWithBody(row: StoredAuditRow, body: JsonObject): AuditEntry {
  return {
    sequence: row.sequence,
    recorded_at: row.recorded_at,
    kind: row.kind,
    call_id: row.call_id,
    operation_id: row.operation_id,
    idempotency_key: row.idempotency_key,
    body,
    previous_hash: row.previous_hash,
    entry_hash: row.entry_hash,
    canonical: row.canonical,
  };
}
