import type {
  FormatFailure,
  FormatToolResultsInput,
  ResultVerifier,
  SealedResult,
  ToolCall,
  VerifyFailureReason,
} from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import type { AdapterIdentity } from './create-adapter-identity.js';
import { readOwnData } from './read-own-data.js';

/** One call with its verified result, ready to serialize. */
export interface CorrelatedResult {
  /** The call, as the adapter parsed it. */
  readonly call: ToolCall;
  /** The RFC 8785 canonical JSON text of `model_result`: the exact text that was verified. */
  readonly modelResultText: string;
  /** `model_result.status !== 'succeeded'`, for providers with an error flag. */
  readonly isError: boolean;
}

/** Every call with its verified result in call order, or every refusal. */
export type CorrelateToolResultsOutcome =
  | { ok: true; response_id: string; results: CorrelatedResult[] }
  | { ok: false; failures: FormatFailure[] };

function refusal(
  callId: string | null,
  reason: FormatFailure['reason'],
  verifyReasons: VerifyFailureReason[] = [],
): FormatFailure {
  return { call_id: callId, reason, verify_reasons: verifyReasons };
}

function isOwnIdentity(identity: AdapterIdentity, context: {
  provider: unknown;
  api_family: unknown;
  adapter_revision: unknown;
}): boolean {
  return (
    context.provider === identity.provider &&
    context.api_family === identity.apiFamily &&
    typeof context.adapter_revision === 'string' &&
    identity.acceptedAdapterRevisions.has(context.adapter_revision)
  );
}

/**
 * Checks the calls of one turn (trusted host input: they must come from this adapter's
 * `parseToolCalls` on one response). Throws a `TypeError` when they cannot have: no calls, a
 * repeated call id, or calls from several responses. A bug in the host, not an outcome.
 */
function indexCalls(calls: readonly ToolCall[]): { responseId: string; byId: Map<string, ToolCall> } {
  const first = calls[0];
  if (first === undefined) {
    throw new TypeError('formatToolResults needs the calls of one response: got none');
  }
  const byId = new Map<string, ToolCall>();
  for (const call of calls) {
    if (call.response_id !== first.response_id) {
      throw new TypeError('formatToolResults needs the calls of one response: got several response ids');
    }
    if (byId.has(call.call_id)) {
      throw new TypeError('formatToolResults needs the calls of one response: got a repeated call id');
    }
    byId.set(call.call_id, call);
  }
  return { responseId: first.response_id, byId };
}

/**
 * The results of one turn as an array and its length, or `null` when `results` cannot be read as
 * one: not an array, or a hostile object (a revoked proxy, a throwing `length`) that throws when
 * read. Results are untrusted: they may come from a store.
 */
function readResults(results: unknown): { items: readonly unknown[]; count: number } | null {
  try {
    if (!Array.isArray(results)) return { items: [], count: 0 };
    const count = readOwnData(results, 'length');
    return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? { items: results, count } : null;
  } catch {
    return null;
  }
}

/**
 * The provider-neutral half of `formatToolResults`: correlates results to calls by
 * `protected_audit.provider_context.call_id` (never by position), refuses foreign, unknown,
 * duplicate and missing results, canonicalizes each `model_result` once, and verifies that exact
 * snapshot with `verify`. All or nothing: one refusal refuses the turn.
 *
 * Never throws on bad results (they may come from a store): a result that cannot be read (a
 * revoked or hostile proxy as the result, its `protected_audit` or anything read through them,
 * or a `results` array that throws when read) and a throwing verifier are refusals
 * (`verification_failed`, `malformed_package`), with the call id when it was read before the throw.
 * Results stay in call order, whatever order they arrive in.
 */
export function correlateToolResults(
  identity: AdapterIdentity,
  input: Pick<FormatToolResultsInput<unknown>, 'calls' | 'results' | 'verify'>,
): CorrelateToolResultsOutcome {
  const { responseId, byId } = indexCalls(input.calls);
  const failures: FormatFailure[] = [];

  for (const call of input.calls) {
    if (!isOwnIdentity(identity, call)) failures.push(refusal(call.call_id, 'foreign_adapter'));
  }

  const named = new Set<string>();
  const verified = new Map<string, CorrelatedResult>();
  const results = readResults(input.results);
  if (results === null) failures.push(refusal(null, 'verification_failed', ['malformed_package']));
  const count = results === null ? 0 : results.count;
  for (let index = 0; index < count; index++) {
    // Set once the call id is read, so that a later throw is reported against it.
    let callId: string | null = null;
    try {
      const sealed = readOwnData(results?.items, index);
      const protectedAudit = readOwnData(sealed, 'protected_audit');
      const context = readOwnData(protectedAudit, 'provider_context');
      const readCallId = readOwnData(context, 'call_id');
      if (typeof readCallId !== 'string') {
        failures.push(refusal(null, 'verification_failed', ['malformed_package']));
        continue;
      }
      callId = readCallId;
      const call = byId.get(callId);
      if (call === undefined || readOwnData(context, 'response_id') !== responseId) {
        failures.push(refusal(callId, 'unknown_call'));
        continue;
      }
      if (named.has(callId)) {
        failures.push(refusal(callId, 'duplicate_result'));
        continue;
      }
      named.add(callId);
      const contextIdentity = {
        provider: readOwnData(context, 'provider'),
        api_family: readOwnData(context, 'api_family'),
        adapter_revision: readOwnData(context, 'adapter_revision'),
      };
      if (!isOwnIdentity(identity, contextIdentity)) {
        failures.push(refusal(callId, 'foreign_adapter'));
        continue;
      }
      const outcome = verifySnapshot(input.verify, sealed, protectedAudit, call);
      if (!outcome.ok) {
        failures.push(refusal(callId, 'verification_failed', outcome.reasons));
        continue;
      }
      verified.set(callId, { call, modelResultText: outcome.text, isError: outcome.isError });
    } catch {
      // Only a hostile object throws here (readOwnData runs no getter, but a proxy's traps run).
      failures.push(refusal(callId, 'verification_failed', ['malformed_package']));
    }
  }

  for (const call of input.calls) {
    if (!named.has(call.call_id)) failures.push(refusal(call.call_id, 'missing_result'));
  }
  if (failures.length > 0) return { ok: false, failures };

  const ordered: CorrelatedResult[] = [];
  for (const call of input.calls) {
    const result = verified.get(call.call_id);
    // Unreachable: every call was named exactly once and nothing failed.
    if (result === undefined) return { ok: false, failures: [refusal(call.call_id, 'missing_result')] };
    ordered.push(result);
  }
  return { ok: true, response_id: responseId, results: ordered };
}

type SnapshotOutcome =
  | { ok: true; text: string; isError: boolean }
  | { ok: false; reasons: VerifyFailureReason[] };

/**
 * Canonicalizes `model_result` once and verifies a plain-data copy parsed back from that text, so
 * the bytes that reach the provider are exactly the bytes that were verified (no getter, proxy or
 * later mutation can slip between the check and the write). The text goes to the verifier too
 * (`canonical_model_result`): it hashes these bytes for `result_sha256` instead of canonicalizing
 * the copy again, and validates the copy, which `JSON.parse` made from exactly these bytes.
 *
 * Validating the original object and sending its canonical text, without the copy, would not be
 * safe: a getter or proxy can answer the validator's reads and the canonicalizer's read differently.
 * The one exception is a package the verifier itself vouches for (`verify.canonicalTextOf`): the
 * frozen projections the host sealed for this call, whose text it kept when sealing.
 */
function verifySnapshot(
  verify: ResultVerifier,
  sealed: unknown,
  protectedAudit: unknown,
  call: ToolCall,
): SnapshotOutcome {
  let text: string;
  let snapshot: SealedResult;
  try {
    const modelResult = readOwnData(sealed, 'model_result');
    const presented = {
      model_result: modelResult as SealedResult['model_result'],
      protected_audit: protectedAudit as SealedResult['protected_audit'],
    };
    const known = verify.canonicalTextOf?.(presented, call);
    if (typeof known === 'string') {
      // The immutable projections the host sealed for this call: their text is already known.
      text = known;
      snapshot = presented;
    } else {
      text = canonicalize(modelResult);
      snapshot = {
        model_result: JSON.parse(text) as SealedResult['model_result'],
        protected_audit: protectedAudit as SealedResult['protected_audit'],
      };
    }
  } catch {
    return { ok: false, reasons: ['malformed_package'] };
  }
  let outcome: ReturnType<ResultVerifier>;
  try {
    outcome = verify(snapshot, call, { canonical_model_result: text });
  } catch {
    return { ok: false, reasons: ['malformed_package'] };
  }
  if (outcome.ok !== true) {
    const reasons = outcome.ok === false && Array.isArray(outcome.reasons) ? [...outcome.reasons] : [];
    return { ok: false, reasons: reasons.length > 0 ? reasons : ['malformed_package'] };
  }
  return { ok: true, text, isError: readOwnData(snapshot.model_result, 'status') !== 'succeeded' };
}
