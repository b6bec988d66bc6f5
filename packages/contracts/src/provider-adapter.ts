import type { ModelError } from './model-error.js';
import type { ResultVerifier } from './result-verifier.js';
import type { SealedResult } from './sealed-result.js';
import type { ToolCall } from './tool-call.js';
import type { VerifyFailureReason } from './provider.js';

/** The outcome of parsing one provider response. */
export type ParseToolCallsOutcome =
  | {
      ok: true;
      /** The provider's id of the response the calls belong to. */
      response_id: string;
      /** The tool calls, in provider order; correlate by `call_id`, never by index. */
      calls: ToolCall[];
    }
  | {
      ok: false;
      /** A catalogued error (`MALFORMED_TOOL_CALL` or `INVALID_ARGUMENTS`) for the whole response. */
      error: ModelError;
    };

/** Why an adapter refused to serialize a turn's results. */
export type FormatFailureReason =
  | 'missing_result'
  | 'duplicate_result'
  | 'unknown_call'
  | 'foreign_adapter'
  | 'verification_failed';

/** One refusal, naming the call it concerns. */
export interface FormatFailure {
  /**
   * The provider call id concerned, or `null` when the result names none or names one that is not
   * display-safe (an `unknown_call` id comes from an untrusted package: it is repeated only when
   * `isDisplaySafeIdentifier` of `@toolseal/adapter-core` accepts it).
   */
  call_id: string | null;
  /** Why. */
  reason: FormatFailureReason;
  /** The verifier's reasons, when `reason` is `verification_failed`. */
  verify_reasons: VerifyFailureReason[];
}

/** What an adapter needs to serialize one turn's results. */
export interface FormatToolResultsInput<TOptions> {
  /** The calls of the turn, as this adapter parsed them. Every call needs exactly one result. */
  calls: readonly ToolCall[];
  /** The sealed results, correlated to calls by `protected_audit.provider_context.call_id`. */
  results: readonly SealedResult[];
  /** Recomputes every digest against trusted context; the adapter calls it for every result. */
  verify: ResultVerifier;
  /** Provider-specific continuation options. */
  options: TOptions;
}

/** The serialized payload, or the list of refusals. Nothing is half-serialized. */
export type FormatToolResultsOutcome<TPayload> =
  | { ok: true; payload: TPayload }
  | { ok: false; failures: FormatFailure[] };

/**
 * What every provider adapter implements. An adapter owns only the last hop: it parses the
 * provider's tool calls into `ToolCall`s and serializes verified `model_result`s into the
 * provider's result items. It never serializes `protected_audit`.
 */
export interface ProviderAdapter<TResponse, TPayload, TOptions> {
  /** Provider name written into every `ToolCall` and checked on every result. */
  readonly provider: string;
  /** API family written into every `ToolCall` and checked on every result. */
  readonly apiFamily: string;
  /** This adapter's revision; a result sealed under another revision is refused. */
  readonly adapterRevision: string;
  /**
   * Parse a provider response into provider-neutral calls. Never throws on untrusted provider data:
   * a malformed or hostile response is `ok: false`. Throws a `TypeError` on host misuse only.
   */
  parseToolCalls(response: TResponse): ParseToolCallsOutcome;
  /**
   * Verify every result again and serialize `model_result`s only. Never throws on untrusted data
   * (a missing, foreign or tampered result is a refusal in `ok: false`); throws a `TypeError` on
   * host misuse: `calls` that are not the ones `parseToolCalls` returned for one response, no
   * `verify`, or `options` the adapter does not accept.
   */
  formatToolResults(input: FormatToolResultsInput<TOptions>): FormatToolResultsOutcome<TPayload>;
}
