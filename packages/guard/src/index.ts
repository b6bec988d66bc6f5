export { DEFAULT_JSON_LIMITS, resolveJsonLimits, type JsonLimits } from './json-limits.js';
export {
  GUARD_RULES,
  guardViolationToError,
  type GuardRule,
  type GuardViolation,
  type GuardOutcome,
} from './guard-violation.js';
export { parseUntrustedJson } from './parse-untrusted-json.js';
export { scanJsonText } from './scan-json-text.js';
export { checkUntrustedValue, copyUntrustedValue, isWellFormedText } from './check-untrusted-value.js';
export { FORBIDDEN_KEYS, isForbiddenKey } from './forbidden-keys.js';
export { contractSafePointer } from './contract-safe-pointer.js';
export { heldPrefix, holdsPlace } from './holds-place.js';
export { createDeclaredFields, cutToDeclaredFields, MAX_DECLARED_FIELDS, MAX_SCHEMA_NESTING, type DeclaredFields } from './create-declared-fields.js';
/**
 * `inspectInputSchema(schema, rootName = 'input_schema')`: the start-up proof that an input JSON
 * Schema is closed (every value typed, every object `additionalProperties: false` or
 * `unevaluatedProperties: false`, no `if`/`contains`/`patternProperties`..., `$ref` only to a root
 * definition, arrays say their items, `uniqueItems` bounded), returning its `problems` (empty when
 * closed) and the echoable `scalarPaths`. `@toolseal/result`'s tool registry runs it on every
 * `input_schema` and `@toolseal/proposal`'s proposal validator on its proposal schema; a schema is
 * proven closed only when it also compiles with `compileSchema`. The keyword tables, the depth
 * bound and `uniqueItemsProblem` are shared with the registry's output-schema inspection.
 */
export {
  inspectInputSchema,
  uniqueItemsProblem,
  ANY_TYPE_KEYWORDS,
  KEYWORDS_BY_TYPE,
  MAX_INSPECTED_SCHEMA_DEPTH,
  MAX_UNIQUE_ITEMS,
  type InputSchemaInspection,
} from './inspect-input-schema.js';
export { utf8ByteLength, utf8LengthWithin } from './utf8-byte-length.js';
export { jsonByteLength } from './json-byte-length.js';
export { createPinnedAjv, compileSchema, CONTRACT_BASE_ID, PINNED_FORMATS, type PinnedFormat } from './pinned-ajv.js';
/**
 * `ValidationBudgetExceeded`: thrown by a `compileSchema` validator of a schema with a `$ref`,
 * instead of an answer, when a value costs more work than `VALIDATION_WORK_BASE` plus
 * `VALIDATION_WORK_FACTOR` per subschema and unit of the value's size.
 */
export { ValidationBudgetExceeded, VALIDATION_WORK_BASE, VALIDATION_WORK_FACTOR } from './validation-budget.js';
/**
 * `compilePattern(pattern)`: a JSON Schema `pattern` (ECMAScript, Unicode mode) compiled to a
 * linear-time matcher, the engine the pinned Ajv matches `pattern` with; throws a TypeError at
 * compile time for what it refuses (backreferences, lookaround, `\b`, `\p{...}`, over the bounds).
 */
export { compilePattern, MAX_PATTERN_LENGTH, PatternBudgetExceeded, type CompiledPattern } from './compile-pattern.js';
export { MAX_PATTERN_NFA_STATES } from './build-pattern-nfa.js';
export { ajvErrorsToReasons } from './ajv-errors-to-reasons.js';
export { deepFreeze } from './deep-freeze.js';
export {
  DEFAULT_SENSITIVE_KEYS,
  SENSITIVE_KEY_SUFFIXES,
  SENSITIVE_KEY_PREFIXES,
  UNLIFTABLE_KEYS,
  UNLIFTABLE_KEY_SUFFIXES,
  UNLIFTABLE_KEY_PREFIXES,
  isCredentialKeyName,
  isLiftableKeyName,
  normalizeKeyName,
  type NormalizedKeyName,
} from './sensitive-keys.js';
export {
  scanSensitiveKeys,
  createSensitiveKeyScanner,
  MAX_SENSITIVE_KEY_HITS,
  type SensitiveKeyHit,
  type SensitiveKeyScanOptions,
  type SensitiveKeyScanner,
} from './scan-sensitive-keys.js';
export type { ValidateFunction, ErrorObject, Ajv2020 } from 'ajv/dist/2020.js';
export { findCredentialValue, mayHoldCredentialValue, type CredentialValueKind } from './credential-values.js';
