export {
  ERROR_CATALOG,
  ERROR_CODES,
  INPUT_RULES,
  GUARD_RULES,
  RULE_REJECTION_RULES,
  MALFORMED_CALL_RULES,
  isErrorCode,
  type CatalogEntry,
  type RetryAfterPolicy,
} from './catalog.js';
export { makeError, type MakeErrorOptions } from './make-error.js';
export { checkError, MAX_REASON_FIELD_LENGTH, type CheckErrorOutcome } from './check-error.js';
export { errorCatalogDocument, type ErrorCatalogDocument } from './catalog-document.js';
