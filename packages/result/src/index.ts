export type { ToolSpec, OutputLimits, LinkPolicy, ControlProvenance } from './tool-spec.js';
export { RegistryError } from './registry-error.js';
export {
  createToolRegistry,
  DEFAULT_OUTPUT_LIMITS,
  DEFAULT_CONTROL_PROVENANCE,
  UNREGISTERED_TOOL_NAME,
  type ToolRegistry,
  type ToolRegistryOptions,
  type RegisteredTool,
  type CompiledValidator,
} from './tool-registry.js';
export {
  createInputFieldTemplates,
  MAX_INPUT_FIELD_TEMPLATES,
  type InputFieldTemplates,
} from './input-field-templates.js';
export {
  OUTPUT_VIOLATION_RULES,
  OUTPUT_ONLY_RULES,
  MAX_OUTPUT_VIOLATIONS,
  MAX_VIOLATION_PATH_LENGTH,
  boundViolations,
  type OutputViolation,
} from './output-violation.js';
export { MAX_CLOCK_SKEW_MS } from './check-output.js';
export { CONTRACT_KEYS, CONTRACT_REVISIONS } from './contract-keys.js';
export { MIN_PROTECTED_VALUE_LENGTH } from './find-protected-values.js';
export {
  sealResult,
  type SealResultInput,
  type SealResultOutput,
  type SealSubject,
  type HandlerData,
} from './seal-result.js';
export { verifyResult, type TrustedContext, type VerifyResultOptions } from './verify-result.js';
export { createResultVerifier } from './create-result-verifier.js';
export { MODEL_RESULT_SCHEMA, PROTECTED_AUDIT_SCHEMA } from './package-schema.js';
export { providerContextFieldOutsideSchema, type ProviderContextFields } from './is-protected-audit.js';
