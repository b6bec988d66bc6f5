import type { VerifyOutcome } from './provider.js';
import type { SealedResult } from './sealed-result.js';
import type { ToolCall } from './tool-call.js';

/**
 * Recomputes every binding of `sealed` from trusted context (principal, operation, registry) for
 * the given call. The host builds it per turn (see `@toolseal/result`); adapters call it before
 * serializing anything.
 *
 * `options.canonical_model_result`, when an adapter passes it, is the RFC 8785 text of
 * `model_result` that the adapter will send, and `sealed.model_result` is then a private copy the
 * adapter parsed from exactly that text (`JSON.parse`), so the two correspond by construction. A
 * verifier may compute `result_sha256` over these bytes instead of canonicalizing the copy again,
 * and must still validate the copy (never the text's origin). A verifier that ignores the option
 * gives the same verdict; existing two-argument verifiers stay valid.
 */
export type ResultVerifier = (
  sealed: SealedResult,
  call: ToolCall,
  options?: {
    /** The exact text the adapter sends as `model_result`: `canonicalize(sealed.model_result)`. */
    readonly canonical_model_result?: string;
  },
) => VerifyOutcome;
