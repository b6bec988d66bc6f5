import type { Sha256Hex } from './json.js';

/**
 * Providers toolseal ships adapters for. None is reserved: an adapter for another API of one of
 * them uses the same name (`openai` for Chat Completions) with its own API family and revision,
 * and an adapter for any other provider uses that provider's own lowercase name.
 */
export type KnownProvider = 'openai' | 'anthropic' | 'gemini';

/**
 * Where a call came from on the provider side, as the trusted adapter parsed it. Correlation is by
 * these ids, never by array position.
 */
export interface ProviderContext {
  /**
   * Provider name, e.g. `openai`.
   * @pattern ^[a-z][a-z0-9_-]{0,31}$
   */
  provider: string;
  /**
   * API family within the provider, e.g. `responses`, `messages`, `interactions`.
   * @pattern ^[a-z][a-z0-9_.-]{0,63}$
   */
  api_family: string;
  /**
   * The provider's id of the response (OpenAI response id, Anthropic message id, Gemini interaction id).
   * @minLength 1
   * @maxLength 256
   */
  response_id: string;
  /**
   * The provider's id of this tool call within the response.
   * @minLength 1
   * @maxLength 256
   */
  call_id: string;
  /**
   * Revision of the adapter that parsed the call and will serialize the result.
   * @minLength 1
   * @maxLength 64
   */
  adapter_revision: string;
}

/** The outcome of verifying one sealed result against trusted context. */
export type VerifyOutcome = { ok: true } | { ok: false; reasons: VerifyFailureReason[] };

/** The finite reasons verification can fail for. */
export type VerifyFailureReason =
  | 'malformed_package'
  | 'model_result_schema'
  | 'output_contract'
  | 'error_catalog'
  | 'provenance'
  | 'principal_ref'
  | 'provider_context'
  | 'tool_contract'
  | 'downstream'
  | 'request_digest'
  | 'result_digest'
  | 'call_binding'
  | 'unregistered_adapter';

/** A lowercase SHA-256 hex digest re-exported for adapter authors. */
export type DigestHex = Sha256Hex;

/**
 * The trusted identity of one execution of a call: the provider context plus the dispatcher's
 * operation id and the idempotency key. All of it is bound into `call_binding_sha256`.
 */
export interface CallContext extends ProviderContext {
  /**
   * The dispatcher's id for this execution attempt.
   * @minLength 1
   * @maxLength 128
   */
  operation_id: string;
  /**
   * The idempotency key of a write; `null` for reads.
   * @minLength 1
   * @maxLength 256
   */
  idempotency_key: string | null;
}
