export { readOwnData, readRefusalField, HIDDEN_FIELD } from './read-own-data.js';
export { isPlainObject } from './is-plain-object.js';
export {
  isDisplaySafeIdentifier,
  isWellFormedIdentifier,
  MAX_STORABLE_IDENTIFIER_LENGTH,
  MAX_PROVIDER_ID_LENGTH,
  MAX_TOOL_NAME_LENGTH,
} from './is-well-formed-identifier.js';
export { jsonByteLength } from './json-byte-length.js';
export { createAdapterIdentity, type AdapterIdentity } from './create-adapter-identity.js';
export {
  resolveToolCallLimits,
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_MAX_ARGUMENT_BYTES,
  type ToolCallLimitOptions,
  type ToolCallLimits,
} from './resolve-tool-call-limits.js';
export { resolveAdapterSettings, type AdapterOptions, type AdapterSettings } from './resolve-adapter-settings.js';
export {
  rejectMalformedToolCall,
  type MalformedToolCallRule,
  type ParseRejection,
} from './reject-malformed-tool-call.js';
export {
  createToolCallCollector,
  privateArgumentsOf,
  type ToolCallCollector,
  type ToolCallCollectorOptions,
} from './create-tool-call-collector.js';
export { collectToolCalls } from './collect-tool-calls.js';
export { mayHoldRoundedInteger } from './may-hold-rounded-integer.js';
export { formatOptionsOf } from './format-options-of.js';
export {
  correlateToolResults,
  isVerifyFailureReason,
  PRESENTED_MODEL_RESULT_LIMITS,
  type CorrelatedResult,
  type CorrelateToolResultsOutcome,
} from './correlate-tool-results.js';
export {
  createProviderAdapter,
  type ProviderAdapterDefinition,
} from './create-provider-adapter.js';
