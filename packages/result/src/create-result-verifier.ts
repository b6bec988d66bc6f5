import type { ResultVerifier, SealedResult, ToolCall, VerifyFailureReason } from '@toolseal/contracts';
import { PROVIDER_CONTEXT_KEY_LIST } from './contract-keys.js';
import { failWith, sealedTextFor, verifyResult, type TrustedContext } from './verify-result.js';

/**
 * Builds the `ResultVerifier` an adapter calls before serializing anything. `lookup` returns the
 * host's trusted record of a call (from its own state, keyed by the call's ids), or `undefined` for
 * a call the host does not know, which fails with `provider_context`. The adapter's `ToolCall` must
 * agree with that record (ids: `provider_context`; tool name: `tool_contract`), and the package is
 * then verified with `verifyResult` against the record, with the verifier's options (the canonical
 * text the adapter sends) passed on. Its `canonicalTextOf` gives the text `sealResult` returned for
 * the call when it is presented with the very projections kept in the record (`sealed`).
 */
export function createResultVerifier(lookup: (call: ToolCall) => TrustedContext | undefined): ResultVerifier {
  const verify: ResultVerifier = (sealed, call, options) => {
    const trusted = lookup(call);
    if (trusted === undefined) return failWith(['provider_context']);
    const reasons: VerifyFailureReason[] = [];
    for (const key of PROVIDER_CONTEXT_KEY_LIST) {
      if (call[key] !== trusted.call[key]) reasons.push('provider_context');
    }
    if (call.tool_name !== trusted.tool_name) reasons.push('tool_contract');
    const outcome = verifyResult(sealed, trusted, options);
    if (reasons.length === 0) return outcome;
    if (!outcome.ok) reasons.push(...outcome.reasons);
    return failWith(reasons);
  };
  // The text `sealResult` returned with the very projections presented (`TrustedContext.sealed`).
  const canonicalTextOf = (sealed: SealedResult, call: ToolCall): string | undefined => {
    const trusted = lookup(call);
    if (trusted === undefined || typeof sealed !== 'object' || sealed === null) return undefined;
    return sealedTextFor(sealed.model_result, sealed.protected_audit, trusted);
  };
  return Object.assign(verify, { canonicalTextOf });
}
