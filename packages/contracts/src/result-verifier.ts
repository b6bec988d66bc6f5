import type { VerifyOutcome } from './provider.js';
import type { SealedResult } from './sealed-result.js';
import type { ToolCall } from './tool-call.js';

/**
 * Recomputes every binding of `sealed` from trusted context (principal, operation, registry) for
 * the given call. The host builds it per turn (see `@toolseal/result`); adapters call it before
 * serializing anything.
 *
 * `options.canonical_model_result`, when an adapter passes it, is the RFC 8785 text of
 * `model_result` that the adapter will send, and `sealed.model_result` is then either a private
 * copy the adapter parsed from exactly that text (`JSON.parse`) or the immutable object the text
 * was made from (`canonicalTextOf`), so the two correspond by construction. A verifier may compute
 * `result_sha256` over these bytes instead of canonicalizing the object again, and must still
 * validate the object (never the text's origin). A verifier that ignores the option gives the same
 * verdict; existing two-argument verifiers stay valid.
 */
export interface ResultVerifier {
  (
    sealed: SealedResult,
    call: ToolCall,
    options?: {
      /** The exact text the adapter sends as `model_result`: `canonicalize(sealed.model_result)`. */
      readonly canonical_model_result?: string;
    },
  ): VerifyOutcome;
  /**
   * Optional: the RFC 8785 text of `sealed.model_result` when `sealed` holds the very projections
   * the host sealed for `call` (made immutable when sealed: `@toolseal/result` freezes them), else
   * `undefined`. An adapter that gets a text sends it and verifies those objects themselves,
   * instead of canonicalizing a value it cannot trust to stay unchanged and parsing a copy back.
   * It must never return a text for a value that could still change or that it did not seal.
   */
  readonly canonicalTextOf?: (sealed: SealedResult, call: ToolCall) => string | undefined;
}
