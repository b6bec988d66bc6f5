/** The `schema_version` of every `ModelResult`. */
export const MODEL_RESULT_SCHEMA_VERSION = 'tool-model-result-v2' as const;

/** The `schema_version` of every `ProtectedAudit`. */
export const PROTECTED_AUDIT_SCHEMA_VERSION = 'tool-protected-audit-v1' as const;

/**
 * The JSON Schemas generated from these types, one file per top-level type, at
 * `@toolseal/contracts/schemas/<name>.json`.
 */
export const SCHEMA_NAMES = [
  'model-result',
  'model-error',
  'protected-audit',
  'sealed-result',
  'tool-contract',
  'tool-call',
  'principal-context',
  'provider-context',
] as const;

/** One of `SCHEMA_NAMES`. */
export type SchemaName = (typeof SCHEMA_NAMES)[number];
