import type { Sha256Hex } from './json.js';
import type { ProviderContext } from './provider.js';
import type { ToolContract } from './tool-contract.js';

/** The three SHA-256 bindings of a sealed call. Verification recomputes each; shape proves nothing. */
export interface Binding {
  /**
   * H(tenant, subject, tool, arguments, inputRev, outputRev, effectRev): the business intent.
   * Excludes the call id and the idempotency key.
   * @pattern ^[0-9a-f]{64}$
   */
  request_sha256: Sha256Hex;
  /**
   * H(model_result): the complete result the model sees.
   * @pattern ^[0-9a-f]{64}$
   */
  result_sha256: Sha256Hex;
  /**
   * H(provider, response, call, operation, idempotencyKey, adapter, toolContract, request, result).
   * @pattern ^[0-9a-f]{64}$
   */
  call_binding_sha256: Sha256Hex;
}

/** The downstream side of a call: what a status query and reconciliation need. */
export interface Downstream {
  /**
   * The dispatcher's id for this execution attempt; bound into the call digest.
   * @minLength 1
   * @maxLength 128
   */
  operation_id: string;
  /**
   * The idempotency key of a write (`null` for reads); bound into the call digest, not the request digest.
   * @minLength 1
   * @maxLength 256
   */
  idempotency_key: string | null;
  /**
   * The downstream system's receipt for a committed write, or `null`. Protected by the audit chain.
   * Never empty, never holding NUL (what every idempotency store can hold).
   * @minLength 1
   * @maxLength 256
   * @pattern ^[^\u0000]*$
   */
  receipt: string | null;
  /**
   * An opaque reference a status query can use, or `null`. Protected by the audit chain.
   * Never empty, never holding NUL.
   * @minLength 1
   * @maxLength 256
   * @pattern ^[^\u0000]*$
   */
  status_ref: string | null;
}

/** One redaction the host made before sealing. */
export interface Redaction {
  /**
   * JSON Pointer of the redacted location in the handler output.
   * @maxLength 256
   */
  path: string;
  /**
   * Why it was redacted, from a finite vocabulary (`sensitive_key`, `truncated`, ...).
   * @pattern ^[a-z][a-z0-9_]{0,63}$
   */
  reason: string;
}

/**
 * The protected projection of one call: for operations, reconciliation and investigation. Never
 * embedded in `model_result`, never serialized into a provider payload.
 */
export interface ProtectedAudit {
  /** Always `tool-protected-audit-v1`. */
  schema_version: 'tool-protected-audit-v1';
  /**
   * One-way digest of tenant and subject; the raw identity is not stored here.
   * @pattern ^[0-9a-f]{64}$
   */
  principal_ref: Sha256Hex;
  /** Provider, API family, response id, call id and adapter revision. */
  provider_context: ProviderContext;
  /** The tool name, effect and all six revisions the call ran under. */
  tool_contract: ToolContract;
  /** Operation id, idempotency key, downstream receipt and status reference. */
  downstream: Downstream;
  /** The three recomputable bindings. */
  binding: Binding;
  /**
   * Redactions made before sealing.
   * @maxItems 64
   */
  redactions: Redaction[];
}
