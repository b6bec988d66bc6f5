// Test-only: what an attacker who can rewrite a stored package does in plain mode.
import type { SealedResult } from '@toolseal/contracts';
import type { Digester } from '@toolseal/digests';

/** Recomputes `result_sha256` and `call_binding_sha256` of `forged` (in place) from the package alone. */
export function rebindDigests(forged: SealedResult, digester: Digester): SealedResult {
  const audit = forged.protected_audit;
  audit.binding.result_sha256 = digester.resultDigest(forged.model_result);
  audit.binding.call_binding_sha256 = digester.callBindingDigest({
    ...audit.provider_context,
    operation_id: audit.downstream.operation_id,
    idempotency_key: audit.downstream.idempotency_key,
    tool_contract: audit.tool_contract,
    request_sha256: audit.binding.request_sha256,
    result_sha256: audit.binding.result_sha256,
  });
  return forged;
}
