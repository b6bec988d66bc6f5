export { canonicalize, DEFAULT_MAX_DEPTH, type CanonicalizeOptions } from './canonicalize.js';
export { rememberCanonicalText } from './remembered-texts.js';
export { CanonicalizationError, type CanonicalizationFailureReason } from './canonicalization-error.js';
export { nobleBackend, type HashBackend } from './hash-backend.js';
export {
  createDigester,
  DIGEST_DOMAINS,
  MAX_ARGUMENTS_DEPTH,
  MIN_KEY_BYTES,
  type Digester,
  type DigesterOptions,
  type PrincipalRefInput,
  type RequestDigestInput,
  type CallBindingDigestInput,
} from './digester.js';
export { constantTimeEqual } from './constant-time-equal.js';
export { isSha256Hex } from './sha256-hex.js';
export { canonicalStringOrUndefined as canonicalString } from './is-well-formed-text.js';
