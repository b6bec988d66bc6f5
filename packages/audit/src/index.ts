export { type Clock, systemClock, ManualClock, readClock } from './clock.js';
export { StoreInputError } from './store-input-error.js';
export {
  MAX_IDENTIFIER_LENGTH,
  checkStorableText,
  checkIdentifier,
  checkOptionalIdentifier,
  checkSha256Hex,
  checkPositiveInteger,
  checkNonNegativeInteger,
  checkPurgeInput,
  checkIntegerInRange,
  MAX_LEASE_MS,
  checkLeaseMs,
  MIN_AUDIT_BODY_BYTES_LIMIT,
  MAX_AUDIT_BODY_BYTES_LIMIT,
  checkMaxBodyBytes,
  checkOptionNames,
  checkClock,
  checkDigester,
} from './check-store-input.js';
export type { CheckedDigester } from './check-store-input.js';
export type {
  IdempotencyState,
  StoredDelivery,
  ResultInput,
  StoredResult,
  IdempotencyRecord,
  ClaimInput,
  ClaimOutcome,
  FenceFailure,
  FencedOutcome,
  FencedInput,
  ReleaseInput,
  MarkStartedInput,
  CompleteInput,
  ReconcileInput,
  PurgeInput,
  FindUnresolvedInput,
  CheckedFindUnresolvedInput,
  FindCompletedInput,
  IdempotencyStore,
} from './idempotency-store.js';
export {
  MAX_SEALED_JSON_LENGTH,
  MAX_RECEIPT_LENGTH,
  MAX_OWNER_LENGTH,
  planIdempotencyTransition,
  checkIdempotencyOperation,
  type IdempotencyOperation,
  type PlannedWrite,
  type IdempotencyPlan,
} from './plan-idempotency-transition.js';
export { isPurgeable } from './is-purgeable.js';
export { isUnresolved, oldestFirst, MAX_FIND_UNRESOLVED_LIMIT } from './is-unresolved.js';
export { checkFindUnresolvedInput, checkFindCompletedInput } from './check-find-unresolved-input.js';
export type {
  AuditEntryInput,
  AuditEntry,
  StoredAuditRow,
  AuditHead,
  ChainProblem,
  ChainVerification,
  VerifyChainOptions,
  AuditQuery,
  AuditPageRequest,
  AuditPage,
  AuditLog,
  AuditTamper,
} from './audit-log.js';
export {
  AUDIT_CHAIN_DOMAIN,
  AUDIT_ENTRY_SCHEMA_VERSION,
  AUDIT_CHAIN_DOMAIN_V1,
  AUDIT_ENTRY_SCHEMA_VERSION_V1,
  GENESIS_HASH,
  AUDIT_GENESIS_DOMAIN,
  auditGenesisHash,
  DEFAULT_MAX_AUDIT_BODY_BYTES,
  MAX_AUDIT_BODY_DEPTH,
  prepareAuditEntry,
  sealAuditEntry,
  canonicalAuditRecord,
  computeAuditEntryHash,
  formatRecordedAt,
  auditEntryFromRow,
  auditEntryWithBody,
  type PreparedAuditEntry,
  type ChainPosition,
} from './seal-audit-entry.js';
export { AuditChainVerifier, type AuditChainVerifierOptions } from './audit-chain-verifier.js';
export { checkVerifyChainOptions, type CheckedVerifyChainOptions } from './check-verify-chain-options.js';
export {
  MAX_AUDIT_PAGE_LIMIT,
  normalizeAuditQuery,
  matchesAuditQuery,
  type NormalizedAuditQuery,
} from './normalize-audit-query.js';
export { createMemoryStores, type MemoryStoresOptions, type MemoryStores } from './memory-stores.js';
