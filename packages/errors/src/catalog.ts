import type {
  ErrorCategory,
  ErrorCode,
  ExecutionOutcome,
  Recovery,
  ResultStatus,
} from '@toolseal/contracts';

/** Whether an error may carry `retry_after_ms`, and within which bounds. */
export type RetryAfterPolicy =
  | { readonly policy: 'forbidden' }
  | {
      /** `optional`: may be `null`; `required`: must be a number. */
      readonly policy: 'optional' | 'required';
      /** Smallest allowed value, in milliseconds. */
      readonly min_ms: number;
      /** Largest allowed value, in milliseconds. */
      readonly max_ms: number;
    };

/** One row of the fixed catalog. Everything here is trusted control data. */
export interface CatalogEntry {
  /** The code this row defines. */
  readonly code: ErrorCode;
  /** Coarse family. */
  readonly category: ErrorCategory;
  /** The `model_result.status` an error of this code always has. */
  readonly status: ResultStatus;
  /** The `execution.outcome` an error of this code always has. */
  readonly outcome: ExecutionOutcome;
  /** The fixed recovery. The model may explain it but cannot rewrite it. */
  readonly recovery: Recovery;
  /** The fixed text the model may see. Never exception or handler text. */
  readonly safe_message: string;
  /** Whether `retry_after_ms` is allowed and its bounds. */
  readonly retry_after: RetryAfterPolicy;
  /** The `ErrorReason.rule` values allowed for this code; empty means no reasons. */
  readonly reason_rules: readonly string[];
}

/**
 * The rules `@toolseal/guard` reports for untrusted JSON: limits checked before parsing and parse
 * failures. Part of the `INVALID_ARGUMENTS` vocabulary.
 */
export const GUARD_RULES = Object.freeze([
  'max_bytes',
  'max_depth',
  'max_array_items',
  'max_object_keys',
  'max_string_length',
  'max_total_nodes',
  'duplicate_key',
  'forbidden_key',
  'malformed_json',
  'invalid_utf8',
  'lone_surrogate',
  'byte_order_mark',
  'non_json_value',
] as const);

/**
 * Reason rules for `INVALID_ARGUMENTS`: JSON Schema keywords in snake_case, then the guard's limits
 * and parse failures (`GUARD_RULES`).
 */
export const INPUT_RULES = Object.freeze([
  'type',
  'required',
  'additional_properties',
  'minimum',
  'maximum',
  'exclusive_minimum',
  'exclusive_maximum',
  'multiple_of',
  'min_length',
  'max_length',
  'pattern',
  'format',
  'enum',
  'const',
  'min_items',
  'max_items',
  'unique_items',
  'min_properties',
  'max_properties',
  'property_names',
  'dependent_required',
  'unevaluated_properties',
  'unevaluated_items',
  'one_of',
  'any_of',
  'all_of',
  'not',
  'if',
  'contains',
  'false_schema',
  ...GUARD_RULES,
] as const);

/** Reason rules for `RULE_REJECTED`: the business rules a trusted check can fail. */
export const RULE_REJECTION_RULES = Object.freeze([
  'amount_mismatch',
  'unit_mismatch',
  'quantity_exceeds_eligible',
  'partial_amount_not_allowed',
  'duplicate_line_id',
  'line_not_eligible',
  'currency_not_allowed',
  'recipient_not_allowed',
  'data_classification',
  'rule_violation',
] as const);

/** Reason rules for `MALFORMED_TOOL_CALL`: a provider response an adapter cannot accept. */
export const MALFORMED_CALL_RULES = Object.freeze([
  'duplicate_call_id',
  'missing_call_id',
  'empty_tool_name',
  'too_many_calls',
  'malformed_response',
  'max_bytes',
] as const);

const NO_RETRY: RetryAfterPolicy = Object.freeze({ policy: 'forbidden' });
const NO_REASONS: readonly string[] = Object.freeze([]);

/** Types one row; `deepFreeze` below freezes it with the rest of the catalog. */
function entry(row: CatalogEntry): CatalogEntry {
  return row;
}

/**
 * Freezes `value` and every object or array reachable from it (each once), so no part of the
 * catalog can be changed at run time: not a row, not a `retry_after` policy, not a rule list.
 */
function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (typeof value !== 'object' || value === null || seen.has(value)) return value;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
    if (descriptor !== undefined && 'value' in descriptor) deepFreeze(descriptor.value, seen);
  }
  return Object.freeze(value);
}

/**
 * The fixed error catalog (spec 000, "An error catalog expresses the recovery protocol"; spec 002,
 * "Return an actionable rejection without silently repairing it"). It is data: hosts read it,
 * `schemas/error-catalog.json` publishes it, and `checkError` compares every error against it.
 */
export const ERROR_CATALOG: Readonly<Record<ErrorCode, CatalogEntry>> = deepFreeze({
  UNKNOWN_TOOL: entry({
    code: 'UNKNOWN_TOOL',
    category: 'input',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'correct_input',
    safe_message: 'The requested tool is not available. Use only the tools you were given.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  MALFORMED_TOOL_CALL: entry({
    code: 'MALFORMED_TOOL_CALL',
    category: 'input',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'correct_input',
    safe_message: 'The tool call could not be read. Send each tool call once, with a name and an id.',
    retry_after: NO_RETRY,
    reason_rules: MALFORMED_CALL_RULES,
  }),
  INVALID_ARGUMENTS: entry({
    code: 'INVALID_ARGUMENTS',
    category: 'input',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'correct_input',
    safe_message: 'The arguments do not match the tool contract. Correct the listed fields and try again.',
    retry_after: NO_RETRY,
    reason_rules: INPUT_RULES,
  }),
  // Deliberately one message for "does not exist" and "not yours" (spec 000, NOT_FOUND).
  NOT_FOUND: entry({
    code: 'NOT_FOUND',
    category: 'access',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'none',
    safe_message: 'The requested resource is not available.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  RULE_REJECTED: entry({
    code: 'RULE_REJECTED',
    category: 'business_rule',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'correct_input',
    safe_message: 'The proposal does not match the eligible values; revise it for review.',
    retry_after: NO_RETRY,
    reason_rules: RULE_REJECTION_RULES,
  }),
  FACTS_UNAVAILABLE: entry({
    code: 'FACTS_UNAVAILABLE',
    category: 'availability',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'hold',
    safe_message: 'The proposal is on hold because the facts needed to check it are unavailable.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  STATE_CHANGED: entry({
    code: 'STATE_CHANGED',
    category: 'state',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'refresh_state',
    safe_message: 'The current state no longer permits this proposal. Refresh the state before proposing again.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  APPROVAL_REQUIRED: entry({
    code: 'APPROVAL_REQUIRED',
    category: 'approval',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'request_approval',
    safe_message: 'This action needs approval from a person before it can run.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  APPROVAL_INVALID: entry({
    code: 'APPROVAL_INVALID',
    category: 'approval',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'request_approval',
    safe_message: 'The approval does not match this exact request or has expired. A new approval is needed.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  TIMEOUT_BEFORE_EXECUTE: entry({
    code: 'TIMEOUT_BEFORE_EXECUTE',
    category: 'availability',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'retry_after',
    safe_message: 'The tool did not start before its deadline. Nothing was executed.',
    retry_after: { policy: 'optional', min_ms: 0, max_ms: 600_000 },
    reason_rules: NO_REASONS,
  }),
  RATE_LIMIT: entry({
    code: 'RATE_LIMIT',
    category: 'availability',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'retry_after',
    safe_message: 'Too many requests. Nothing was executed; retry after the given delay.',
    retry_after: { policy: 'required', min_ms: 1, max_ms: 3_600_000 },
    reason_rules: NO_REASONS,
  }),
  OUTCOME_UNKNOWN: entry({
    code: 'OUTCOME_UNKNOWN',
    category: 'execution',
    status: 'unknown',
    outcome: 'unknown',
    recovery: 'query_status',
    safe_message: 'The action may or may not have been carried out. Query its status; do not repeat it.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  IDEMPOTENCY_CONFLICT: entry({
    code: 'IDEMPOTENCY_CONFLICT',
    category: 'conflict',
    status: 'failed',
    outcome: 'not_started',
    recovery: 'human_review',
    safe_message: 'This idempotency key was already used for a different request. A person must review it.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  STATUS_CONFLICT: entry({
    code: 'STATUS_CONFLICT',
    category: 'conflict',
    status: 'unknown',
    outcome: 'unknown',
    recovery: 'human_review',
    safe_message: 'The recorded status and the downstream status disagree. A person must review it.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  OUTPUT_CONTRACT_VIOLATION: entry({
    code: 'OUTPUT_CONTRACT_VIOLATION',
    category: 'contract',
    status: 'failed',
    outcome: 'unknown',
    recovery: 'human_review',
    safe_message: 'The tool returned data outside its contract, so it was withheld. A person must review it.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
  TOOL_ERROR: entry({
    code: 'TOOL_ERROR',
    category: 'execution',
    status: 'failed',
    outcome: 'unknown',
    recovery: 'human_review',
    safe_message: 'The tool failed. A person must review it.',
    retry_after: NO_RETRY,
    reason_rules: NO_REASONS,
  }),
});

/** Every catalog code, in catalog order. */
export const ERROR_CODES: readonly ErrorCode[] = deepFreeze(Object.keys(ERROR_CATALOG) as ErrorCode[]);

/** True when `value` is a catalog code (own key only: `"toString"` is not a code). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOG, value);
}
