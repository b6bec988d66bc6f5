/**
 * The fixed error codes. The catalog in `@toolseal/errors` defines, for each, the category, result
 * status, execution outcome, recovery, safe message and retry-after rule.
 */
export type ErrorCode =
  | 'UNKNOWN_TOOL'
  | 'MALFORMED_TOOL_CALL'
  | 'INVALID_ARGUMENTS'
  | 'NOT_FOUND'
  | 'RULE_REJECTED'
  | 'FACTS_UNAVAILABLE'
  | 'STATE_CHANGED'
  | 'APPROVAL_REQUIRED'
  | 'APPROVAL_INVALID'
  | 'TIMEOUT_BEFORE_EXECUTE'
  | 'RATE_LIMIT'
  | 'OUTCOME_UNKNOWN'
  | 'IDEMPOTENCY_CONFLICT'
  | 'STATUS_CONFLICT'
  | 'OUTPUT_CONTRACT_VIOLATION'
  | 'TOOL_ERROR';

/** Coarse family of an error, for dashboards and routing. */
export type ErrorCategory =
  | 'input'
  | 'access'
  | 'business_rule'
  | 'state'
  | 'approval'
  | 'availability'
  | 'execution'
  | 'conflict'
  | 'contract';

/**
 * What the caller must do next. Fixed by the catalog per code: the model may explain it but can
 * never rewrite it.
 */
export type Recovery =
  | 'correct_input'
  | 'none'
  | 'request_approval'
  | 'retry_after'
  | 'query_status'
  | 'human_review'
  | 'refresh_state'
  | 'hold';

/**
 * One finite, machine-readable reason attached to an error: which argument field (a JSON Pointer
 * made only of contract-known property names and array indexes) broke which rule.
 */
export interface ErrorReason {
  /**
   * JSON Pointer into the proposed arguments, or `""` for the whole proposal. Built only from
   * property names the contract declares and array indexes, never from attacker-chosen keys.
   * @maxLength 256
   * @pattern ^(/([A-Za-z0-9_]{1,64}|[0-9]{1,6})){0,16}$
   */
  field: string;
  /**
   * The rule that failed, from a finite vocabulary (schema keywords such as `required`, `maximum`,
   * `additionalProperties`, guard limits such as `max_bytes`, or business rules such as
   * `amount_mismatch`).
   * @pattern ^[a-z][a-z0-9_]{0,63}$
   */
  rule: string;
}

/**
 * A catalogued, model-safe error. Every field except `reasons` and `retry_after_ms` is fixed by the
 * catalog for its code; verification compares them with the catalog again.
 */
export interface ModelError {
  /** The catalog code. */
  code: ErrorCode;
  /** The catalog category for `code`. */
  category: ErrorCategory;
  /**
   * The catalog's fixed safe message for `code`. Never exception text, never handler text.
   * @maxLength 300
   */
  safe_message: string;
  /** The catalog's fixed recovery for `code`. */
  recovery: Recovery;
  /**
   * Milliseconds to wait before retrying, when the catalog allows or requires it for `code`;
   * otherwise `null`.
   * @asType integer
   * @minimum 0
   * @maximum 86400000
   */
  retry_after_ms: number | null;
  /**
   * Finite field-level reasons (input and business-rule errors); empty for other codes.
   * @maxItems 16
   */
  reasons: ErrorReason[];
}
