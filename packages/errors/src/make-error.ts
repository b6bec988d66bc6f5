import type { ErrorCode, ErrorReason, ModelError } from '@toolseal/contracts';
import { ERROR_CATALOG, isErrorCode } from './catalog.js';
import { checkError } from './check-error.js';

/** What a caller may vary in an error: everything else comes from the catalog. */
export interface MakeErrorOptions {
  /** Field-level reasons; each rule must be allowed for the code. */
  reasons?: readonly ErrorReason[];
  /** Delay before a retry, where the catalog allows one for the code. */
  retryAfterMs?: number;
}

/**
 * Builds the model-safe error body for `code`. Category, message and recovery come from the catalog
 * alone. Throws a `TypeError` when the options break the catalog: that is a bug in the caller, not
 * an outcome to show the model.
 */
export function makeError(code: ErrorCode, options: MakeErrorOptions = {}): ModelError {
  if (!isErrorCode(code)) throw new TypeError(`makeError: unknown error code ${JSON.stringify(code)}`);
  const entry = ERROR_CATALOG[code];
  const error: ModelError = {
    code,
    category: entry.category,
    safe_message: entry.safe_message,
    recovery: entry.recovery,
    retry_after_ms: options.retryAfterMs ?? null,
    reasons: (options.reasons ?? []).map(({ field, rule }) => ({ field, rule })),
  };
  const check = checkError(error);
  if (!check.ok) throw new TypeError(`makeError(${code}): ${check.problems.join('; ')}`);
  return error;
}
