import type {
  FormatFailure,
  FormatToolResultsInput,
  ResultVerifier,
  SealedResult,
  ToolCall,
  VerifyFailureReason,
} from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { copyUntrustedValue, type JsonLimits } from '@toolseal/guard';
import type { AdapterIdentity } from './create-adapter-identity.js';
import { describeArgument } from './format-options-of.js';
import { isDisplaySafeIdentifier, MAX_PROVIDER_ID_LENGTH } from './is-well-formed-identifier.js';
import { readOwnData } from './read-own-data.js';
import { DEFAULT_MAX_TOOL_CALLS, type ToolCallLimits } from './resolve-tool-call-limits.js';

/** One call with its verified result, ready to serialize. */
export interface CorrelatedResult {
  /** The call, as the adapter parsed it. */
  readonly call: ToolCall;
  /** The RFC 8785 canonical JSON text of `model_result`: the exact text that was verified. */
  readonly modelResultText: string;
  /** `model_result.status !== 'succeeded'`, for providers with an error flag. */
  readonly isError: boolean;
}

/**
 * Every call with its verified result in call order, or every refusal. A refusal's `call_id` is the
 * id of one of the turn's calls, or, for an `unknown_call` result naming no call of the turn, the id
 * that result names when `isDisplaySafeIdentifier` accepts it (1 to 256 characters, each printable
 * ASCII other than the space), else `null`: the package is untrusted, and hosts log failures.
 */
export type CorrelateToolResultsOutcome =
  | { ok: true; response_id: string; results: CorrelatedResult[] }
  | { ok: false; failures: FormatFailure[] };

/**
 * The call id an untrusted package names, as `FormatFailure.call_id` reports it when it names no
 * call of the turn: the id itself when a parser could have returned it (`isDisplaySafeIdentifier`,
 * at most `MAX_PROVIDER_ID_LENGTH` characters), else `null`. Hosts log failures; an id of 5 MB, or
 * one holding a line feed, a terminal escape or a bidirectional override, would forge or hide log
 * lines there.
 */
function reportableCallId(callId: string): string | null {
  return isDisplaySafeIdentifier(callId, MAX_PROVIDER_ID_LENGTH) ? callId : null;
}

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
 * `parseToolCalls` on one response) and reads them once, into a private list. Throws a `TypeError`
 * when they cannot have: not an array, no calls, a hole or something that is no call, a repeated
 * call id, or calls from several responses. A bug in the host, not an outcome. `length` is read
 * once and a hole stops the loop, so a sparse array costs nothing however long it claims to be.
 */
function indexCalls(calls: unknown): { list: ToolCall[]; responseId: string; byId: Map<string, ToolCall> } {
  if (!Array.isArray(calls)) {
    throw new TypeError(`formatToolResults: calls must be the array parseToolCalls returned, got ${describeArgument(calls)}`);
  }
  const items: readonly unknown[] = calls;
  const count = items.length;
  if (count === 0) {
    throw new TypeError('formatToolResults needs the calls of one response: got none');
  }
  const list: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  let responseId: string | undefined;
  for (let index = 0; index < count; index++) {
    const call = items[index];
    if (!isCallLike(call)) {
      throw new TypeError(`formatToolResults: calls[${index}] is not a call parseToolCalls returned`);
    }
    responseId ??= call.response_id;
    if (call.response_id !== responseId) {
      throw new TypeError('formatToolResults needs the calls of one response: got several response ids');
    }
    if (byId.has(call.call_id)) {
      throw new TypeError('formatToolResults needs the calls of one response: got a repeated call id');
    }
    byId.set(call.call_id, call);
    list.push(call);
  }
  return { list, responseId: responseId ?? '', byId };
}

/** Enough of a `ToolCall` to index it: an object with string response and call ids. */
function isCallLike(value: unknown): value is ToolCall {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<ToolCall>).response_id === 'string' &&
    typeof (value as Partial<ToolCall>).call_id === 'string'
  );
}

/**
 * The results of one turn as an array and its length (read once), or `null` when `results` cannot
 * be read as one: a hostile object (a revoked proxy, a throwing `length`) that throws when read, or
 * a length over `maxCount`. Results are untrusted: they may come from a store. Not an array at all
 * reads as no results (every call then misses its result).
 */
function readResults(results: unknown, maxCount: number): { items: readonly unknown[]; count: number } | null {
  try {
    if (!Array.isArray(results)) return { items: [], count: 0 };
    const count = readOwnData(results, 'length');
    return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 && count <= maxCount
      ? { items: results, count }
      : null;
  } catch {
    return null;
  }
}

/** Without limits, the default `maxCalls` of every adapter. */
const DEFAULT_LIMITS: Pick<ToolCallLimits, 'maxCalls'> = { maxCalls: DEFAULT_MAX_TOOL_CALLS };

/**
 * The provider-neutral half of `formatToolResults`: correlates results to calls by
 * `protected_audit.provider_context.call_id` (never by position), refuses foreign, unknown,
 * duplicate and missing results, canonicalizes each `model_result` once, and verifies that exact
 * snapshot with `verify`. All or nothing: one refusal refuses the turn.
 *
 * Never throws on bad results (they may come from a store): a result that cannot be read (a
 * revoked or hostile proxy as the result, its `protected_audit` or anything read through them,
 * or a `results` array that throws when read), a package with own keys other than `model_result`
 * and `protected_audit`, a throwing verifier and a verifier answer that is no catalogued outcome
 * are refusals (`verification_failed`, `malformed_package`), with the call id when it was read
 * before. Results stay in call order, whatever order they arrive in. A failure names a call of the
 * turn, or `null`; an `unknown_call` result's own call id is reported only when it is display-safe
 * (`isDisplaySafeIdentifier`: at most 256 printable ASCII characters), so that a package cannot
 * write what it likes (5 MB, a line feed and a forged log line, a terminal escape) into the host's log.
 *
 * Results are read only up to a plausible count: every call's result plus at most `maxCalls` (the
 * adapter's limit, default 64) strays, each refused on its own (a duplicate, another turn's
 * result). A longer `results` array (a sparse one claiming 2^32 - 1 items, a proxy reporting any
 * length) is refused as a whole before any result is read, so the work and the list of failures
 * stay bounded by the turn. Throws a `TypeError` on host misuse (see `indexCalls`).
 */
export function correlateToolResults(
  identity: AdapterIdentity,
  input: Pick<FormatToolResultsInput<unknown>, 'calls' | 'results' | 'verify'>,
  limits: Pick<ToolCallLimits, 'maxCalls'> = DEFAULT_LIMITS,
): CorrelateToolResultsOutcome {
  if (typeof input !== 'object' || input === null) {
    throw new TypeError(`formatToolResults needs { calls, results, verify, options }: got ${describeArgument(input)}`);
  }
  const { list: calls, responseId, byId } = indexCalls(input.calls);
  // Host misuse, not a tampered package: without a verifier nothing could ever be sent.
  if (typeof input.verify !== 'function') {
    throw new TypeError(`formatToolResults needs verify, the turn's result verifier: got ${describeArgument(input.verify)}`);
  }
  const failures: FormatFailure[] = [];

  // Calls another adapter parsed: refused once each, here (their results, sealed under the same
  // foreign identity, are not reported a second time below).
  const foreignCalls = new Set<string>();
  for (const call of calls) {
    if (!isOwnIdentity(identity, call)) {
      foreignCalls.add(call.call_id);
      failures.push(refusal(call.call_id, 'foreign_adapter'));
    }
  }

  const results = readResults(input.results, calls.length + limits.maxCalls);
  if (results === null) failures.push(refusal(null, 'verification_failed', ['malformed_package']));

  const named = new Set<string>();
  const verified = new Map<string, CorrelatedResult>();
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
      const call = byId.get(readCallId);
      if (call === undefined) {
        // The package's own string, untrusted (a stored package, a forged one): reported only when
        // it is an id a parser could have returned, never raw (any length, a line feed that forges a
        // log line, a terminal escape, a bidirectional override).
        failures.push(refusal(reportableCallId(readCallId), 'unknown_call'));
        continue;
      }
      // From here on, the id of one of this turn's calls (a key of `byId`): the host's own id.
      callId = readCallId;
      if (readOwnData(context, 'response_id') !== responseId) {
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
        if (!foreignCalls.has(callId)) failures.push(refusal(callId, 'foreign_adapter'));
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

  for (const call of calls) {
    if (!named.has(call.call_id)) failures.push(refusal(call.call_id, 'missing_result'));
  }
  if (failures.length > 0) return { ok: false, failures };

  const ordered: CorrelatedResult[] = [];
  for (const call of calls) {
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

/** The two own keys of a sealed package: the verifier is shown these and nothing else. */
const PACKAGE_KEY_COUNT = 2;

/**
 * Every `VerifyFailureReason`, once: a `Record` over the union, so a reason added to the contract
 * and missing here (or one listed here and not in the contract) fails to compile.
 */
const CATALOGUED_VERIFY_REASONS: Readonly<Record<VerifyFailureReason, true>> = {
  malformed_package: true,
  model_result_schema: true,
  output_contract: true,
  error_catalog: true,
  provenance: true,
  principal_ref: true,
  provider_context: true,
  tool_contract: true,
  downstream: true,
  request_digest: true,
  result_digest: true,
  call_binding: true,
  unregistered_adapter: true,
};
const MAX_VERIFY_REASONS = Object.keys(CATALOGUED_VERIFY_REASONS).length;

/** Whether `reason` is a `VerifyFailureReason` of the contract (own key only: `"toString"` is not one). */
export function isVerifyFailureReason(reason: unknown): reason is VerifyFailureReason {
  return typeof reason === 'string' && Object.hasOwn(CATALOGUED_VERIFY_REASONS, reason);
}

/**
 * The reasons of a verifier's answer: `null` for `{ ok: true }`, a copy of its reasons for
 * `{ ok: false, reasons }` when there are 1 to 13 of them (no more than the catalogue holds) and
 * every one is a catalogued `VerifyFailureReason`, else `['malformed_package']`. A verifier is host
 * code, but its answer ends up in `FormatFailure.verify_reasons`, whose type promises catalogued
 * reasons: anything else (`'evil'`, `42`, `null`) is junk, like an answer that is no outcome.
 */
function verdictReasons(outcome: unknown): VerifyFailureReason[] | null {
  if (typeof outcome !== 'object' || outcome === null) return ['malformed_package'];
  const { ok, reasons } = outcome as { ok?: unknown; reasons?: unknown };
  if (ok === true) return null;
  if (ok !== false || !Array.isArray(reasons)) return ['malformed_package'];
  const given: readonly unknown[] = reasons;
  const count = given.length;
  if (count === 0 || count > MAX_VERIFY_REASONS) return ['malformed_package'];
  const copy: VerifyFailureReason[] = [];
  for (let index = 0; index < count; index++) {
    const reason = given[index];
    if (!isVerifyFailureReason(reason)) return ['malformed_package'];
    copy.push(reason);
  }
  return copy;
}

/**
 * Bounds on a presented `model_result` whose text is not known (a stored or rebuilt copy), checked
 * before it is canonicalized, so that a flood (millions of keys, a 100-million-unit string) is
 * refused in time proportional to the bound, not to the value. Above every result a registry can
 * seal: its output ceilings (16 MiB of `data`, depth 64, 100 000 items, 4 096 keys, 16 Mi units a
 * string, 1 000 000 values) plus the envelope around `data` (a test cross-checks the two).
 */
export const PRESENTED_MODEL_RESULT_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxBytes: 16_777_216 + 65_536,
  maxDepth: 64 + 2,
  maxArrayItems: 100_000,
  maxObjectKeys: 4_096,
  maxStringLength: 16_777_216,
  maxTotalNodes: 1_000_000 + 1_024,
});

/**
 * Copies `model_result` once within `PRESENTED_MODEL_RESULT_LIMITS` (a private plain copy, every
 * value read once), canonicalizes the copy and verifies it, so the bytes that reach the provider
 * are exactly the bytes that were verified (no getter, proxy or later mutation can slip between
 * the check and the write). The text goes to the verifier too (`canonical_model_result`): it
 * hashes these bytes for `result_sha256` instead of canonicalizing the copy again, and validates
 * the copy, whose canonical text they are.
 *
 * Validating the original object and sending its canonical text, without the copy, would not be
 * safe: a getter or proxy can answer the validator's reads and the canonicalizer's read differently.
 * The one exception is a package the verifier itself vouches for (`verify.canonicalTextOf`): the
 * frozen projections the host sealed for this call, whose text it kept when sealing.
 *
 * The verifier is shown `{ model_result, protected_audit }` only, so a package with any other own
 * key (a third one, a symbol) is refused here, as `verifyResult` refuses it, instead of having
 * that key dropped unseen: one `Reflect.ownKeys` of a two-key object, no walk.
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
    // `protected_audit` was read from `sealed` as an own data property: with `model_result` one
    // too, two own keys mean exactly these two.
    if (typeof sealed !== 'object' || sealed === null || Reflect.ownKeys(sealed).length !== PACKAGE_KEY_COUNT) {
      return { ok: false, reasons: ['malformed_package'] };
    }
    const modelResult = readOwnData(sealed, 'model_result');
    if (modelResult === undefined) return { ok: false, reasons: ['malformed_package'] };
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
      // A private copy, read once within the bounds: what is canonicalized and verified is what
      // was checked, even for a value with accessors or a proxy.
      const copied = copyUntrustedValue(modelResult, PRESENTED_MODEL_RESULT_LIMITS);
      if (!copied.ok) return { ok: false, reasons: ['malformed_package'] };
      text = canonicalize(copied.value);
      snapshot = {
        model_result: copied.value as unknown as SealedResult['model_result'],
        protected_audit: protectedAudit as SealedResult['protected_audit'],
      };
    }
  } catch {
    return { ok: false, reasons: ['malformed_package'] };
  }
  let reasons: VerifyFailureReason[] | null;
  try {
    reasons = verdictReasons(verify(snapshot, call, { canonical_model_result: text }));
  } catch {
    // A throwing verifier, or an answer whose `ok`, `reasons` or items throw when read.
    return { ok: false, reasons: ['malformed_package'] };
  }
  if (reasons !== null) return { ok: false, reasons };
  return { ok: true, text, isError: readOwnData(snapshot.model_result, 'status') !== 'succeeded' };
}
