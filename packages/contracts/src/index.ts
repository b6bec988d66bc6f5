export type { JsonValue, JsonObject, Sha256Hex } from './json.js';
export type {
  ModelResult,
  ModelResultSchemaVersion,
  ResultStatus,
  ExecutionOutcome,
  Delivery,
  Trust,
  Execution,
  Provenance,
} from './model-result.js';
export type { ModelError, ErrorCode, ErrorCategory, Recovery, ErrorReason } from './model-error.js';
export type { ProtectedAudit, Binding, Downstream, Redaction } from './protected-audit.js';
export type { SealedResult } from './sealed-result.js';
export type { ToolContract, EffectKind } from './tool-contract.js';
export type { ToolCall, RawArguments } from './tool-call.js';
export type { PrincipalContext } from './principal.js';
export type {
  ProviderContext,
  CallContext,
  KnownProvider,
  VerifyOutcome,
  VerifyFailureReason,
  DigestHex,
} from './provider.js';
export type { ResultVerifier } from './result-verifier.js';
export type {
  ProviderAdapter,
  ParseToolCallsOutcome,
  FormatToolResultsInput,
  FormatToolResultsOutcome,
  FormatFailure,
  FormatFailureReason,
} from './provider-adapter.js';
export {
  MODEL_RESULT_SCHEMA_VERSION,
  PROTECTED_AUDIT_SCHEMA_VERSION,
  SCHEMA_NAMES,
  type SchemaName,
} from './constants.js';
