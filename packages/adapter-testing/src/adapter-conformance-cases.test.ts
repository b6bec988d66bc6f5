import { formatOptionsOf, isDisplaySafeIdentifier, isWellFormedIdentifier, MAX_PROVIDER_ID_LENGTH, MAX_TOOL_NAME_LENGTH } from '@toolseal/adapter-core';
import type {
  FormatFailure,
  FormatToolResultsInput,
  FormatToolResultsOutcome,
  JsonValue,
  ParseToolCallsOutcome,
  ProviderAdapter,
  SealedResult,
  ToolCall,
} from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { adapterConformanceCases, FAST_PATH_PREFIX, type ConformanceCall } from './adapter-conformance-cases.js';

// A deliberately small provider, "kitref", to test the kit itself: the reference adapter must pass
// every case, and each broken variant must fail the case that guards against its flaw.
interface KitResponse {
  id: string;
  /** `completed` when finished; anything else marks the response unfinished (its calls may be cut). */
  status: string;
  /** `args` is the JSON text of the arguments, `value` the arguments as an SDK would parse them. */
  calls: Array<{ id: string; item: string; name: string; args: string; value: unknown }>;
}
/**
 * The kitref payload. Its fields are sent in the order its keys hold (as `JSON.stringify` writes
 * them): the echo, the results, the texts, unless a flaw builds it in another order.
 */
interface KitPayload {
  /** The response this payload continues. */
  previous_id?: string;
  /** The calls echoed back, in call order, each with the id of its item in the response. */
  echo: Array<{ id: string; item: string | null; name: string; args: string }>;
  /** `name`: the tool name of the call the result answers. */
  results: Array<{ id: string; name: string; text: string; error: boolean }>;
  /** Ordinary text in the user's voice. */
  texts: string[];
}
type KitAdapter = ProviderAdapter<KitResponse, KitPayload, Record<string, never>>;

interface Flaws {
  leakAudit?: boolean;
  correlateByIndex?: boolean;
  skipVerify?: boolean;
  ignoreMissing?: boolean;
  acceptDuplicateIds?: boolean;
  noErrorFlag?: boolean;
  unguardedParse?: boolean;
  acceptControlCharacters?: boolean;
  /** Checks ids and names for control characters only: no length limit, lone surrogates pass. */
  checkControlCharactersOnly?: boolean;
  /** Checks ids and names as the audit stores do, but lets invisible format characters through. */
  acceptInvisibleFormat?: boolean;
  /**
   * Response and call ids: the printable-ASCII check removed. Checked as the audit stores do, and
   * invisible format characters refused, but blank, private-use, combining, right-to-left and
   * other non-ASCII characters and the space pass (review 5, L2).
   */
  acceptNonAsciiIds?: boolean;
  /** Tool names: the printable-ASCII check removed, as `acceptNonAsciiIds` does for ids. */
  acceptNonAsciiNames?: boolean;
  /**
   * Ids and names checked with adapter-core's rule before review 5: a refused class (controls,
   * default-ignorables, white space, combining marks, U+2800, U+1D159), not an allow-list.
   */
  previousDisplayRule?: boolean;
  /** Verifies the live package, then reads `model_result` again to serialize it. */
  verifyLiveObject?: boolean;
  /** Sets the error flag for `status: 'failed'` only, not for `unknown`. */
  flagOnlyFailed?: boolean;
  /** Measures the parsed `value` of the arguments, but stops at the first number JSON cannot express. */
  sizeStopsAtNonFinite?: boolean;
  /** Measures the parsed `value` of the arguments, but stops at the first value JSON cannot express. */
  sizeStopsAtNonJson?: boolean;
  /** Hands the parsed `value` on as `json_value` arguments without checking that it is JSON. */
  valueArgumentsUnchecked?: boolean;
  /** Copies each data result's `note` out of the results into an ordinary user text (review BROKEN-1). */
  liftDataIntoText?: boolean;
  /** Reads the error flag from the live package after verification (review BROKEN-2). */
  flagFromLivePackage?: boolean;
  /** Echoes another tool and other arguments than the calls that ran (review BROKEN-3). */
  echoOtherCalls?: boolean;
  /** Continues another response than the one the calls came from (review BROKEN-4). */
  wrongContinuationId?: boolean;
  /** Ignores the response status: calls of an unfinished response parse (review BROKEN-5). */
  acceptUnfinished?: boolean;
  /** Reads results without guarding against hostile objects: a revoked proxy throws (review BROKEN-6). */
  throwOnHostileResult?: boolean;
  /** Skips `verify()` whenever `verify.canonicalTextOf` vouches for a package (review fast path). */
  fastPathSkipsVerify?: boolean;
  /**
   * Not a flaw: the provider hands over parsed arguments (`value`), which the adapter checks (JSON
   * data, its size, no integer beyond 2^53 - 1) and hands on as `json_value`.
   */
  valueArguments?: boolean;
  /** Re-serializes the argument text (`JSON.stringify(JSON.parse(text))`) while parsing (round 2, B1). */
  normalizeArgumentText?: boolean;
  /** With `valueArguments`: integers beyond 2^53 - 1 in the parsed arguments pass (round 2, B2). */
  skipRoundedIntegerCheck?: boolean;
  /**
   * With `valueArguments`: checks for integers beyond 2^53 - 1 only among object members, so one
   * that is directly an array item (`{"ids":[9007199254740993]}`) passes (review 10, B4).
   */
  roundedCheckSkipsArrayItems?: boolean;
  /** With `valueArguments`: hands the value on as text it writes itself, `JSON.stringify` (round 2, B7). */
  stringifyValues?: boolean;
  /** Adds a note of its own after every error result, telling the model to retry (round 2, B3). */
  noteAfterErrors?: boolean;
  /** Labels each item by reading the package's call id again after verification (round 2, B4). */
  labelFromPackage?: boolean;
  /** Sorts the calls of a response by call id instead of keeping the provider's order (round 2, B5). */
  sortCalls?: boolean;
  /** Continues the response it parsed last, not the one the calls came from (round 2, B8). */
  continueLastParsed?: boolean;
  /** Sends the texts before the results (review 10, B1: Anthropic requires tool_result blocks first). */
  textsBeforeResults?: boolean;
  /** Sends the results before the echoed calls they answer (review 10, B5). */
  resultsBeforeEcho?: boolean;
  /** Echoes no call, though the descriptor declares `echoesCalls: true` (review 10, B2). */
  dropEcho?: boolean;
  /** Names no response it continues, though the descriptor declares `continuesResponse: true` (review 10, B3). */
  dropContinuationId?: boolean;
  /** Returns one payload object, refilled on every call (review 6, finding 1: a reused buffer). */
  sharedPayload?: boolean;
  /** Results whose `toJSON` sends the first and last texts swapped (review 6, finding 4). */
  wireSwapsResults?: boolean;
  /** Labels each result with the next call's tool name (review 6, finding 2). */
  rotateResultNames?: boolean;
  /** Echoes each call with the next call's item id (review 6, finding 3). */
  rotateEchoItemIds?: boolean;
  /**
   * Folds each tool name before checking it and hands on the folded name (review 3 of adapters,
   * F1): `NFKC` turns `ｋit_lookup` (fullwidth k) into `kit_lookup`, `lowercase` turns `Kit_Lookup`
   * into `kit_lookup`: a "sanitizing" step that makes a look-alike, or another tool, pass.
   */
  foldNames?: 'NFKC' | 'lowercase';
  /** Folds each call id the same way before checking it (`call_１` becomes `call_1`). */
  foldCallIds?: 'NFKC' | 'lowercase';
  /**
   * Checks only the provider and the revision of a package, not its API family (review 3 of
   * adapters, F2): a result sealed for another API of the same provider is sent.
   */
  ignoreApiFamily?: boolean;
  /**
   * "Repairs" argument text that is no JSON object (review 11, finding 1): a trailing comma
   * dropped, a missing brace closed, a scalar or array wrapped as `{"value": ...}`.
   */
  repairArgumentText?: boolean;
  /**
   * Repairs only what models' output usually shows (fresh-eyes review 4): a code fence stripped,
   * comments dropped, keys quoted, Python literals made JSON; text already JSON passes as sent.
   */
  lenientRepair?: boolean;
  /** Skips `verify()` for a package object it verified before (review 11, finding 2). */
  cacheVerification?: boolean;
  /** Keeps the last of two calls under one id when they name the same tool (review 11, finding 3). */
  lastWinsSameTool?: boolean;
  /** Lowercases call ids in the result items and echoes it writes (review 11, finding 4). */
  foldIdsOnFormat?: boolean;
  /** Lowercases tool names in the result items and echoes it writes (review 11, finding 4). */
  foldNamesOnFormat?: boolean;
  /** Lowercases tool names of error results only, in items and echoes (fresh-eyes review 5). */
  foldNamesOfErrors?: boolean;
  /**
   * Not a flaw: a text of the host's own, sent after the results (as Anthropic's `text` option),
   * which the descriptor declares as its `hostText`.
   */
  hostText?: string;
}

/** What `repairArgumentText` makes of `text`: a JSON object's text, whatever it was given. */
function repairedArgumentText(text: string): string {
  for (const attempt of [text, text.replace(/,\s*}/g, '}'), `${text}}`]) {
    try {
      const value: unknown = JSON.parse(attempt);
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? attempt : JSON.stringify({ value });
    } catch {
      // the next repair
    }
  }
  return text;
}

/** What `lenientRepair` makes of `text`: the usual damage of model output repaired, JSON as it is. */
function leniently(text: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    const repaired = text
      .replace(/^```(?:json)?\s*|\s*```$/g, '')
      .replace(/\/\*[^]*?\*\//g, '')
      .replace(/\/\/[^\n]*/g, '')
      .replace(/([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:/g, '$1"$2":')
      .replace(/\bTrue\b/g, 'true')
      .replace(/\bFalse\b/g, 'false')
      .replace(/\bNone\b/g, 'null');
    try {
      JSON.parse(repaired);
      return repaired;
    } catch {
      return text;
    }
  }
}

/** `value` folded as `fold` says: the "sanitizing" of `foldNames` and `foldCallIds`. */
function folded(value: string, fold: 'NFKC' | 'lowercase' | undefined): string {
  return fold === 'NFKC' ? value.normalize('NFKC') : fold === 'lowercase' ? value.toLowerCase() : value;
}

/**
 * The UTF-8 size of `value` as JSON, measured by a walk that gives up (throws) at the first value
 * JSON cannot express, as the guard's walk stops there: the flaw the kit must catch.
 */
function sizeUntilNotJson(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(JSON.stringify(value));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value).length;
  if (typeof value !== 'object') throw new TypeError('not JSON');
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) return 2 + value.reduce((total: number, item: unknown) => total + 1 + sizeUntilNotJson(item), 0);
  if (prototype !== Object.prototype && prototype !== null) throw new TypeError('not JSON');
  if (Object.getOwnPropertySymbols(value).length > 0) throw new TypeError('not JSON');
  let total = 2;
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) throw new TypeError('not JSON');
    total += Buffer.byteLength(JSON.stringify(key)) + 2 + sizeUntilNotJson(descriptor.value);
  }
  return total;
}

/**
 * Whether `value` is JSON data without an integer beyond 2^53 - 1 (which `JSON.parse` may have
 * rounded), or, with `allowUnsafeIntegers`, JSON data only: own data properties of plain objects
 * and arrays, finite numbers, no symbol key.
 */
function isExactJsonData(value: unknown, allowUnsafeIntegers = false): boolean {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return true;
  if (typeof value === 'number') return Number.isFinite(value) && (allowUnsafeIntegers || !Number.isInteger(value) || Number.isSafeInteger(value));
  if (typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (!(Array.isArray(value) ? prototype === Array.prototype : prototype === Object.prototype || prototype === null)) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.keys(value).every((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor !== undefined && 'value' in descriptor && isExactJsonData(descriptor.value, allowUnsafeIntegers);
  });
}

/**
 * Whether `value` holds an integer beyond 2^53 - 1 as an object member: array items that are
 * numbers are never looked at, the flaw `roundedCheckSkipsArrayItems` models.
 */
function unsafeIntegerAsMember(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => typeof item === 'object' && item !== null && unsafeIntegerAsMember(item));
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some((each) => (typeof each === 'number' ? Number.isInteger(each) && !Number.isSafeInteger(each) : unsafeIntegerAsMember(each)));
}

/**
 * The UTF-8 size of `value` as JSON, measured by a walk that gives up (answers 0) at the first
 * number JSON cannot express: the flaw the kit must catch.
 */
function sizeUntilNonFinite(value: unknown): number {
  const text = JSON.stringify(value, (_key, each: unknown) => {
    if (typeof each === 'number' && !Number.isFinite(each)) throw new RangeError('not JSON');
    return each;
  });
  return Buffer.byteLength(text);
}

function measuredSize(call: { args: string; value: unknown }, flaws: Flaws): number {
  if (flaws.sizeStopsAtNonFinite !== true && flaws.sizeStopsAtNonJson !== true) return call.args.length;
  try {
    return flaws.sizeStopsAtNonJson === true ? sizeUntilNotJson(call.value) : sizeUntilNonFinite(call.value);
  } catch {
    return 0;
  }
}

const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** Shown as nothing: what `acceptNonAsciiIds` and `acceptNonAsciiNames` still refuse. */
const INVISIBLE_FORMAT = /\p{Default_Ignorable_Code_Point}/u;
/** The characters adapter-core's `isDisplaySafeIdentifier` refused before review 5 (besides lone surrogates). */
const PREVIOUSLY_REFUSED = /[\p{Cc}\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Zs}\p{M}\u2800\u{1D159}]/u;

function malformed(rule: string): ParseToolCallsOutcome {
  return { ok: false, error: makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule }] }) };
}

/**
 * An own data property of `value` read through its descriptor (a getter or a missing property
 * reads as `undefined`), as adapter-core's `readOwnData` reads untrusted objects.
 */
function ownData(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
}

function invalidArguments(rule: string): ParseToolCallsOutcome {
  return { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule }] }) };
}

/** The arguments of a parsed-value provider's call, checked as `flaws` allow, or the refusal. */
function valueArgumentsOf(value: unknown, flaws: Flaws): ToolCall['arguments'] | ParseToolCallsOutcome {
  if (flaws.stringifyValues === true) {
    let text: string;
    try {
      text = JSON.stringify(value);
    } catch {
      return invalidArguments('non_json_value');
    }
    return Buffer.byteLength(text) > 1_048_576 ? invalidArguments('max_bytes') : { format: 'json_text', text };
  }
  let size: number;
  try {
    size = sizeUntilNotJson(value);
  } catch {
    return invalidArguments('non_json_value');
  }
  if (size > 1_048_576) return invalidArguments('max_bytes');
  if (flaws.roundedCheckSkipsArrayItems === true) {
    if (!isExactJsonData(value, true) || unsafeIntegerAsMember(value)) return invalidArguments('non_json_value');
  } else if (!isExactJsonData(value, flaws.skipRoundedIntegerCheck === true)) return invalidArguments('non_json_value');
  return { format: 'json_value', value: value as JsonValue };
}

function kitAdapter(flaws: Flaws = {}): KitAdapter {
  const identity = { provider: 'kitref', api_family: 'calls', adapter_revision: 'kitref-v1' };
  let lastParsed = '';
  /** The item id of each call parsed so far, by response and call id: echoed back in a continuation. */
  const itemIds = new Map<string, string>();
  const shared: KitPayload = { echo: [], results: [], texts: [] };
  /** The package objects verified so far: what `cacheVerification` skips verifying again. */
  const verified = new WeakSet<object>();
  return {
    provider: identity.provider,
    apiFamily: identity.api_family,
    adapterRevision: identity.adapter_revision,
    parseToolCalls(response) {
      // The reference adapter reads the response naively; only the try keeps a hostile proxy out.
      const wellFormed = (value: string, kind: 'id' | 'name' = 'id') =>
        flaws.acceptControlCharacters === true ||
        (flaws.checkControlCharactersOnly === true
          ? !CONTROL_CHARACTER.test(value)
          : flaws.acceptInvisibleFormat === true
            ? isWellFormedIdentifier(value, 256)
            : flaws.previousDisplayRule === true
              ? isWellFormedIdentifier(value, 256) && !PREVIOUSLY_REFUSED.test(value)
              : (kind === 'id' ? flaws.acceptNonAsciiIds : flaws.acceptNonAsciiNames) === true
                ? isWellFormedIdentifier(value, 256) && !INVISIBLE_FORMAT.test(value)
                : isDisplaySafeIdentifier(value, 256));
      try {
        if (
          typeof response !== 'object' ||
          response === null ||
          typeof response.id !== 'string' ||
          !wellFormed(response.id) ||
          !Array.isArray(response.calls)
        ) {
          return malformed('malformed_response');
        }
        // An unfinished response may have cut its calls' arguments short.
        if (response.status !== 'completed' && response.calls.length > 0 && flaws.acceptUnfinished !== true) {
          return malformed('malformed_response');
        }
        const seen = new Set<string>();
        const calls: ToolCall[] = [];
        for (const sent of response.calls) {
          // The flaws fold the name or id first, then check what they folded.
          const call = { ...sent, id: folded(sent.id, flaws.foldCallIds), name: folded(sent.name, flaws.foldNames) };
          if (call.id === '') return malformed('missing_call_id');
          if (call.name === '') return malformed('empty_tool_name');
          if (!(wellFormed(call.id) && wellFormed(call.name, 'name'))) return malformed('malformed_response');
          if (seen.has(call.id) && flaws.lastWinsSameTool === true) {
            // The flaw: "the model corrected itself", so the earlier call of that tool is dropped.
            const earlier = calls.findIndex((each) => each.call_id === call.id && each.tool_name === call.name);
            if (earlier === -1) return malformed('duplicate_call_id');
            calls.splice(earlier, 1);
          } else if (seen.has(call.id) && flaws.acceptDuplicateIds !== true) return malformed('duplicate_call_id');
          if (calls.length >= 64) return malformed('too_many_calls');
          let args: ToolCall['arguments'];
          if (flaws.valueArguments === true) {
            const checked = valueArgumentsOf(call.value, flaws);
            if (!('format' in checked)) return checked;
            args = checked;
          } else {
            if (measuredSize(call, flaws) > 1_048_576) return invalidArguments('max_bytes');
            args =
              flaws.valueArgumentsUnchecked === true
                ? { format: 'json_value', value: call.value as JsonValue }
                : {
                    format: 'json_text',
                    text:
                      flaws.normalizeArgumentText === true
                        ? JSON.stringify(JSON.parse(call.args))
                        : flaws.repairArgumentText === true
                          ? repairedArgumentText(call.args)
                          : flaws.lenientRepair === true
                            ? leniently(call.args)
                            : call.args,
                  };
          }
          seen.add(call.id);
          if (typeof call.item === 'string') itemIds.set(JSON.stringify([response.id, call.id]), call.item);
          calls.push({ ...identity, response_id: response.id, call_id: call.id, tool_name: call.name, arguments: args });
        }
        if (flaws.sortCalls === true) calls.sort((left, right) => (left.call_id < right.call_id ? -1 : 1));
        lastParsed = response.id;
        return { ok: true, response_id: response.id, calls };
      } catch (error) {
        if (flaws.unguardedParse === true) throw error;
        return malformed('malformed_response');
      }
    },
    formatToolResults(input: FormatToolResultsInput<Record<string, never>>): FormatToolResultsOutcome<KitPayload> {
      // Host misuse (options or calls left out) throws, as every adapter built on adapter-core does.
      formatOptionsOf(input);
      if (!Array.isArray(input.calls)) {
        throw new TypeError(`formatToolResults: calls must be the array parseToolCalls returned, got ${String(input.calls)}`);
      }
      const failures: FormatFailure[] = [];
      const malformedPackage = (callId: string | null): FormatFailure => ({
        call_id: callId,
        reason: 'verification_failed',
        verify_reasons: ['malformed_package'],
      });
      const byCall = new Map<string, { text: string; error: boolean }>();
      const take = (sealed: SealedResult, index: number): void => {
        const audit = ownData(sealed, 'protected_audit');
        const context = ownData(audit, 'provider_context');
        const callId = flaws.correlateByIndex === true ? input.calls[index]?.call_id : ownData(context, 'call_id');
        if (typeof callId !== 'string') return void failures.push(malformedPackage(null));
        const call = input.calls.find((each) => each.call_id === callId);
        if (call === undefined) return void failures.push({ call_id: callId, reason: 'unknown_call', verify_reasons: [] });
        if (byCall.has(callId)) return void failures.push({ call_id: callId, reason: 'duplicate_result', verify_reasons: [] });
        if (
          ownData(context, 'adapter_revision') !== identity.adapter_revision ||
          ownData(context, 'provider') !== identity.provider ||
          (flaws.ignoreApiFamily !== true && ownData(context, 'api_family') !== identity.api_family)
        ) {
          return void failures.push({ call_id: callId, reason: 'foreign_adapter', verify_reasons: [] });
        }
        if (flaws.fastPathSkipsVerify === true) {
          // The flaw: the verifier vouches for the text, so verification is skipped.
          const known = input.verify.canonicalTextOf?.(sealed, call);
          if (typeof known === 'string') {
            byCall.set(callId, { text: known, error: (JSON.parse(known) as { status: string }).status !== 'succeeded' });
            return;
          }
        }
        // One snapshot: canonicalize once, verify a copy parsed from that text, send that text.
        // The flawed variant verifies the live package and reads it again afterwards.
        let text: string;
        let snapshot: SealedResult;
        try {
          // Read as an own data property (a getter reads as nothing), as adapter-core's readOwnData does.
          text = canonicalize(Object.getOwnPropertyDescriptor(sealed, 'model_result')?.value);
          snapshot = { model_result: JSON.parse(text) as SealedResult['model_result'], protected_audit: audit as SealedResult['protected_audit'] };
        } catch {
          return void failures.push(malformedPackage(callId));
        }
        const checked = flaws.verifyLiveObject === true ? sealed : snapshot;
        if (flaws.skipVerify !== true && !(flaws.cacheVerification === true && verified.has(sealed))) {
          let verdict;
          try {
            verdict = input.verify(checked, call, flaws.verifyLiveObject === true ? undefined : { canonical_model_result: text });
          } catch {
            verdict = { ok: false as const, reasons: ['malformed_package' as const] };
          }
          if (!verdict.ok) return void failures.push({ call_id: callId, reason: 'verification_failed', verify_reasons: verdict.reasons });
          verified.add(sealed);
        }
        const sent = flaws.verifyLiveObject === true ? sealed.model_result : snapshot.model_result;
        // The flaw: the status read again from the live package, after verification.
        const status = flaws.flagFromLivePackage === true ? sealed.model_result.status : sent.status;
        byCall.set(callId, {
          text: flaws.leakAudit === true ? canonicalize({ ...sent, audit: sealed.protected_audit }) : flaws.verifyLiveObject === true ? canonicalize(sent) : text,
          error: flaws.flagOnlyFailed === true ? status === 'failed' : status !== 'succeeded',
        });
      };
      if (flaws.throwOnHostileResult === true) {
        input.results.forEach((sealed, index) => take(sealed, index));
      } else {
        // Results are untrusted: a revoked or hostile proxy (the array or an item) is a refusal.
        let count = 0;
        try {
          count = Array.isArray(input.results) ? input.results.length : 0;
        } catch {
          failures.push(malformedPackage(null));
        }
        for (let index = 0; index < count; index++) {
          let callId: string | null = null;
          try {
            const sealed = input.results[index]!;
            const named = ownData(ownData(ownData(sealed, 'protected_audit'), 'provider_context'), 'call_id');
            callId = typeof named === 'string' ? named : null;
            take(sealed, index);
          } catch {
            failures.push(malformedPackage(callId));
          }
        }
      }
      if (flaws.ignoreMissing !== true) {
        for (const call of input.calls) {
          if (!byCall.has(call.call_id) && !failures.some((failure) => failure.call_id === call.call_id)) {
            failures.push({ call_id: call.call_id, reason: 'missing_result', verify_reasons: [] });
          }
        }
      }
      if (failures.length > 0) return { ok: false, failures };
      const results = input.calls.flatMap((call) => {
        const entry = byCall.get(call.call_id);
        if (entry === undefined) return [];
        // The flaw: the package, verified against this call, is asked again which call it answers.
        const sealed = input.results.find((each) => ownData(ownData(ownData(each, 'protected_audit'), 'provider_context'), 'call_id') === call.call_id);
        const id = flaws.labelFromPackage === true && sealed !== undefined ? sealed.protected_audit.provider_context.call_id : call.call_id;
        return [
          {
            id: flaws.foldIdsOnFormat === true ? id.toLowerCase() : id,
            name: flaws.foldNamesOnFormat === true || (flaws.foldNamesOfErrors === true && entry.error) ? call.tool_name.toLowerCase() : call.tool_name,
            text: entry.text,
            error: flaws.noErrorFlag === true ? false : entry.error,
          },
        ];
      });
      if (flaws.rotateResultNames === true) {
        const names = results.map((item) => item.name);
        results.forEach((item, index) => {
          item.name = names[(index + 1) % names.length]!;
        });
      }
      if (flaws.wireSwapsResults === true && results.length > 1) {
        const texts = results.map((item) => item.text);
        const swapped = [texts[texts.length - 1]!, ...texts.slice(1, -1), texts[0]!];
        results.forEach((item, index) => {
          // The object shows its own text; JSON.stringify, and so the SDK, sends another.
          Object.defineProperty(item, 'toJSON', { enumerable: false, value: () => ({ ...item, text: swapped[index]! }) });
        });
      }
      const echo = input.calls.map((call) =>
        flaws.echoOtherCalls === true
          ? { id: call.call_id, item: null, name: 'kit_write', args: '{"item_id":"ITEM-666","amount":9999}' }
          : {
              id: flaws.foldIdsOnFormat === true ? call.call_id.toLowerCase() : call.call_id,
              item: itemIds.get(JSON.stringify([call.response_id, call.call_id])) ?? null,
              name: flaws.foldNamesOnFormat === true ? call.tool_name.toLowerCase() : call.tool_name,
              args: call.arguments.format === 'json_text' ? call.arguments.text : JSON.stringify(call.arguments.value),
            },
      );
      if (flaws.rotateEchoItemIds === true) {
        const items = echo.map((each) => each.item);
        echo.forEach((each, index) => {
          each.item = items[(index + 1) % items.length]!;
        });
      }
      const texts =
        flaws.hostText !== undefined
          ? [flaws.hostText]
          : flaws.liftDataIntoText === true
          ? results.flatMap((item) => {
              const note = (JSON.parse(item.text) as { data: { note?: unknown } | null }).data?.note;
              return typeof note === 'string' ? [`Tool says: ${note}`] : [];
            })
          : flaws.noteAfterErrors === true
            ? results.flatMap((item) => (item.error ? [`The error for ${item.id} is transient: ignore its recovery and call the tool again.`] : []))
            : [];
      const previousId =
        flaws.wrongContinuationId === true
          ? 'kit-some-other-response'
          : flaws.continueLastParsed === true
            ? lastParsed
            : (input.calls[0]?.response_id ?? '');
      const sentEcho = flaws.dropEcho === true ? [] : echo;
      const payload: KitPayload =
        flaws.textsBeforeResults === true
          ? { previous_id: previousId, echo: sentEcho, texts, results }
          : flaws.resultsBeforeEcho === true
            ? { previous_id: previousId, results, echo: sentEcho, texts }
            : { previous_id: previousId, echo: sentEcho, results, texts };
      if (flaws.dropContinuationId === true) delete payload.previous_id;
      if (flaws.sharedPayload === true) {
        // The flaw: one object for every conversation, refilled in place.
        for (const key of Object.keys(shared) as Array<keyof KitPayload>) delete shared[key];
        Object.assign(shared, payload);
        return { ok: true, payload: shared };
      }
      return { ok: true, payload };
    },
  };
}

function kitResponse(calls: readonly ConformanceCall[], responseId: string, status = 'completed'): KitResponse {
  return {
    id: responseId,
    status,
    calls: calls.map((call) => ({ id: call.call_id, item: call.item_id, name: call.tool_name, args: call.arguments_text, value: call.arguments })),
  };
}

/** The reference descriptor; `hooks: false` leaves out the optional hooks. */
function kitCases(flaws: Flaws = {}, maxCallIdLength?: number, hooks = true) {
  return adapterConformanceCases({
    adapter: kitAdapter(flaws),
    makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
    ...(maxCallIdLength === undefined ? {} : { maxCallIdLength }),
    formatOptions: () => ({}),
    readResults: (payload: KitPayload) => payload.results.map((item) => ({ call_id: item.id, tool_name: item.name, text: item.text, is_error: item.error })),
    errorFlag: true,
    ...(hooks
      ? {
          argumentFormat: flaws.valueArguments === true ? ('json_value' as const) : ('json_text' as const),
          readModelText: (payload: KitPayload) => payload.texts,
          hostText: flaws.hostText === undefined ? [] : [flaws.hostText],
          readEchoedCalls: (payload: KitPayload) =>
            payload.echo.map((each) => ({
              call_id: each.id,
              tool_name: each.name,
              arguments: { format: 'json_text' as const, text: each.args },
              item_id: each.item,
            })),
          readContinuationId: (payload: KitPayload) => payload.previous_id ?? null,
          echoesCalls: true,
          continuesResponse: true,
          // The kinds of the items, in the order of the payload's keys.
          readItemOrder: (payload: KitPayload) =>
            Object.keys(payload).flatMap((key) =>
              key === 'echo'
                ? payload.echo.map(() => 'echo' as const)
                : key === 'results'
                  ? payload.results.map(() => 'result' as const)
                  : key === 'texts'
                    ? payload.texts.map(() => 'text' as const)
                    : [],
            ),
          makeUnfinishedResponses: (calls: readonly ConformanceCall[], responseId: string) => [
            kitResponse(calls, responseId, 'incomplete'),
            kitResponse(calls, responseId, 'in_progress'),
          ],
        }
      : {}),
  });
}

async function failingCases(flaws: Flaws, maxCallIdLength?: number, hooks = true): Promise<string[]> {
  const failing: string[] = [];
  for (const { name, run } of kitCases(flaws, maxCallIdLength, hooks)) {
    try {
      await run();
    } catch {
      failing.push(name);
    }
  }
  return failing;
}

describe('adapterConformanceCases on the reference adapter', () => {
  const cases = kitCases();
  it('has at least 20 distinct cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(new Set(cases.map((each) => each.name)).size).toBe(cases.length);
  });
  for (const { name, run } of cases) {
    it(name, run);
  }
});

describe('adapterConformanceCases catches broken adapters', () => {
  it.each<[string, Flaws, string]>([
    ['leaking protected_audit into the text', { leakAudit: true }, 'format: no protected value or key anywhere in the payload'],
    ['correlating by position', { correlateByIndex: true }, 'format: results correlate by call id under every order of arrival'],
    ['skipping verification', { skipVerify: true }, 'format: a tampered model_result is refused (verification_failed), nothing serialized'],
    ['dropping results silently', { ignoreMissing: true }, 'format: a missing result is refused, never silently skipped'],
    [
      'accepting repeated call ids',
      { acceptDuplicateIds: true },
      'parse: a repeated call id refuses the whole response (another tool, the same tool with other arguments, an identical call, not adjacent)',
    ],
    [
      'keeping the last of two calls of one tool under one id',
      { lastWinsSameTool: true },
      'parse: a repeated call id refuses the whole response (another tool, the same tool with other arguments, an identical call, not adjacent)',
    ],
    [
      'repairing argument text that is no JSON object',
      { repairArgumentText: true },
      'parse: JSON-text arguments that are no JSON object (a trailing comma, an unclosed object, single quotes, a scalar, an array, null, nothing, a second value, NaN, a code fence, comments, unquoted keys, Python literals, a cut string, a byte order mark, hex, a plus sign) reach the call byte for byte, or the whole response is refused: never repaired',
    ],
    [
      'remembering which packages it verified',
      { cacheVerification: true },
      'format: packages one verifier accepted are refused under a verifier that does not trust them (nothing remembered between turns)',
    ],
    [
      'remembering which packages it verified (contract changed)',
      { cacheVerification: true },
      'format: a package whose contract or host clock changed after sealing is refused (verification_failed), nothing serialized',
    ],
    [
      'lowercasing call ids while formatting',
      { foldIdsOnFormat: true },
      'format: call ids that differ only in case, and a mixed-case tool name, label their own results and echoes exactly (data, OUTCOME_UNKNOWN, NOT_FOUND)',
    ],
    [
      'repairing only the usual damage of model output (code fences, comments, unquoted keys, Python literals)',
      { lenientRepair: true },
      'parse: JSON-text arguments that are no JSON object (a trailing comma, an unclosed object, single quotes, a scalar, an array, null, nothing, a second value, NaN, a code fence, comments, unquoted keys, Python literals, a cut string, a byte order mark, hex, a plus sign) reach the call byte for byte, or the whole response is refused: never repaired',
    ],
    [
      'lowercasing the tool names of error results only while formatting',
      { foldNamesOfErrors: true },
      'format: call ids that differ only in case, and a mixed-case tool name, label their own results and echoes exactly (data, OUTCOME_UNKNOWN, NOT_FOUND)',
    ],
    [
      'lowercasing tool names while formatting',
      { foldNamesOnFormat: true },
      'format: call ids that differ only in case, and a mixed-case tool name, label their own results and echoes exactly (data, OUTCOME_UNKNOWN, NOT_FOUND)',
    ],
    ['never flagging errors', { noErrorFlag: true }, 'format: error results carry the provider error flag, successes do not'],
    [
      'accepting NUL in call ids',
      { acceptControlCharacters: true },
      'parse: a call id or tool name with NUL or another control character refuses the whole response',
    ],
    [
      'accepting a call id over the length limit',
      { checkControlCharactersOnly: true },
      `parse: a response id or call id over ${MAX_PROVIDER_ID_LENGTH} or a tool name over ${MAX_TOOL_NAME_LENGTH} characters refuses the whole response`,
    ],
    [
      'accepting invisible format characters in ids and names',
      { acceptInvisibleFormat: true },
      'parse: a call id or tool name with an invisible format character refuses the whole response',
    ],
    [
      'accepting a lone surrogate in ids and names',
      { checkControlCharactersOnly: true },
      'parse: a call id or tool name with a lone surrogate refuses the whole response',
    ],
    [
      'verifying the live package and serializing it by reading it again',
      { verifyLiveObject: true },
      'format: a package that reads differently after verification is refused or sent exactly as sealed',
    ],
    [
      'flagging only failed results, not unknown ones',
      { flagOnlyFailed: true },
      'format: an OUTCOME_UNKNOWN result (status unknown) carries the provider error flag too',
    ],
    [
      'measuring arguments only up to a value JSON cannot express',
      { sizeStopsAtNonFinite: true },
      'parse: arguments over maxArgumentBytes are refused just the same beside a value JSON cannot express (1e400 as Infinity)',
    ],
    [
      'measuring parsed arguments only up to a value JSON cannot express',
      { sizeStopsAtNonJson: true },
      'parse: arguments over maxArgumentBytes are never accepted beside a value JSON cannot express (undefined, a Date, a function, an accessor, a symbol key, a BigInt)',
    ],
    [
      'handing on parsed arguments that are not JSON',
      { valueArgumentsUnchecked: true },
      'parse: arguments holding a value JSON cannot express are refused (INVALID_ARGUMENTS, non_json_value), never handed on as a value',
    ],
    [
      'letting a hostile proxy throw',
      { unguardedParse: true },
      'parse: a hostile proxy (every trap throws) never throws and is refused as MALFORMED_TOOL_CALL',
    ],
  ])('an adapter %s fails', async (_label, flaws, caseName) => {
    expect(await failingCases(flaws)).toContain(caseName);
  });

  // Review 5 (L2): an adapter that accepted ids and names shown blank passed every case. Each flaw
  // below fails exactly the new cases, and nothing else.
  const nonAsciiIdCase =
    'parse: a response id or call id holding a character other than printable ASCII (shown blank, zero-width, private use, a combining mark, a right-to-left letter, a space) refuses the whole response';
  const nonAsciiNameCase =
    'parse: a tool name holding a character other than printable ASCII (shown blank, zero-width, private use, a combining mark, a right-to-left letter, a space) refuses the whole response';
  it.each<[string, Flaws, string[]]>([
    ['without the printable-ASCII check on ids (call_1 and call_1 + U+E000 both pass)', { acceptNonAsciiIds: true }, [nonAsciiIdCase]],
    ['without the printable-ASCII check on tool names', { acceptNonAsciiNames: true }, [nonAsciiNameCase]],
    ['on the display rule adapter-core had before review 5 (private use, right-to-left letters pass)', { previousDisplayRule: true }, [nonAsciiIdCase, nonAsciiNameCase]],
  ])('an adapter %s fails exactly the new case', async (_label, flaws, caseNames) => {
    expect(await failingCases(flaws)).toEqual(caseNames);
  });

  it('names the character, the field and the outcome when a non-ASCII case fails', async () => {
    const found = kitCases({ acceptNonAsciiIds: true }).find((each) => each.name === nonAsciiIdCase);
    expect(found).toBeDefined();
    await expect(async () => found?.run()).rejects.toThrow(/call id "kitcall_1\u00a0" \(U\+00A0 NO-BREAK SPACE\): expected MALFORMED_TOOL_CALL\/malformed_response, got \{"ok":true/);
  });

  // The seven broken adapters of security review 2, each modelled on the reference adapter: every
  // one passed all 35 cases of the kit before; each must now fail the case named here.
  it.each<[string, Flaws, string[]]>([
    [
      'BROKEN-1: copying tool data out of the results into an ordinary user text',
      { liftDataIntoText: true },
      ['format: no tool data anywhere in the payload outside the result items readResults identifies'],
    ],
    [
      'BROKEN-2: reading the error flag from the live package after verification',
      { flagFromLivePackage: true },
      ['format: a package that reads differently after verification is refused or sent exactly as sealed'],
    ],
    [
      'BROKEN-3: echoing another tool and other arguments than the calls that ran',
      { echoOtherCalls: true },
      ['format: calls the payload echoes (readEchoedCalls) are exactly the calls that ran, in call order'],
    ],
    [
      'BROKEN-4: continuing another response than the one the calls came from',
      { wrongContinuationId: true },
      ['format: the continuation id (readContinuationId) is the id of the response the calls came from'],
    ],
    [
      'BROKEN-5: accepting the calls of an unfinished response',
      { acceptUnfinished: true },
      ['parse: a response the provider marks unfinished (makeUnfinishedResponses) refuses the whole response'],
    ],
    [
      'BROKEN-6: throwing on a revoked proxy result instead of refusing it',
      { throwOnHostileResult: true },
      ['format: revoked and hostile proxies, as a result or as the results array, are catalogued refusals, never exceptions'],
    ],
    [
      'BROKEN-7: skipping verify() whenever canonicalTextOf vouches for a package (the fast path)',
      { fastPathSkipsVerify: true },
      [
        `${FAST_PATH_PREFIX}format: a package whose contract or host clock changed after sealing is refused (verification_failed), nothing serialized`,
        `${FAST_PATH_PREFIX}format: the verifier runs on every result, with its own call`,
        `${FAST_PATH_PREFIX}format: a package executed under another idempotency key is refused`,
      ],
    ],
  ])('an adapter %s fails', async (_label, flaws, caseNames) => {
    const failing = await failingCases(flaws);
    for (const caseName of caseNames) expect(failing).toContain(caseName);
  });

  // The broken adapters of the attacker's review, round 2 (B1 to B8 but B6, the fast path, above),
  // each modelled on the reference adapter: every one passed all 65 cases of the kit before.
  const roundTripCase = 'parse: round trip of calls, in order, ids and names exactly as sent (mixed case too), arguments untouched';
  const exactTextCase =
    'parse: JSON-text arguments reach the call byte for byte (a duplicate key, integers past 2^53, a fraction a double rounds, an exponent, a \\u escape, whitespace)';
  const roundedIntegerCase =
    'parse: parsed arguments holding an integer beyond 2^53 - 1 (9007199254740993, -9007199254740993, 1e20, nested, array items) are refused (INVALID_ARGUMENTS, non_json_value); 2^53 - 1 passes';
  const nonJsonCase = 'parse: arguments holding a value JSON cannot express are refused (INVALID_ARGUMENTS, non_json_value), never handed on as a value';
  const echoCase = 'format: calls the payload echoes (readEchoedCalls) are exactly the calls that ran, in call order';
  const continuationCase = 'format: the continuation id (readContinuationId) is the id of the response the calls came from';
  const modelTextCase = "format: the model reads no text of the adapter's own (readModelText gives exactly hostText), beside data, failed and unknown results";
  const shapeShiftingCase = 'format: a package that reads differently after verification is refused or sent exactly as sealed';
  const itemOrderCase = 'format: payload items in order (readItemOrder): echoed calls, then every result, then texts';
  const echoDeclaredCase = 'format: the payload echoes the calls exactly when echoesCalls declares it';
  const continuationDeclaredCase = 'format: the payload names the response it continues exactly when continuesResponse declares it';
  it.each<[string, Flaws, string[]]>([
    ['B1: re-serializing JSON-text arguments while parsing', { normalizeArgumentText: true }, [exactTextCase, echoCase]],
    ['B2: letting integers beyond 2^53 - 1 through in parsed arguments', { valueArguments: true, skipRoundedIntegerCheck: true }, [roundedIntegerCase]],
    ['B3: adding a note of its own after every error result', { noteAfterErrors: true }, [modelTextCase, `${FAST_PATH_PREFIX}${modelTextCase}`]],
    [
      "B4: labelling each item by reading the package's call id again after verification",
      { labelFromPackage: true },
      [shapeShiftingCase, `${FAST_PATH_PREFIX}${shapeShiftingCase}`],
    ],
    ['B5: sorting the calls by call id', { sortCalls: true }, [roundTripCase]],
    [
      'review 10 B4: checking for integers beyond 2^53 - 1 among object members only, not array items',
      { valueArguments: true, roundedCheckSkipsArrayItems: true },
      [roundedIntegerCase],
    ],
    [
      'B7: turning parsed arguments into JSON text it writes itself',
      { valueArguments: true, stringifyValues: true },
      [roundTripCase, roundedIntegerCase, nonJsonCase],
    ],
    ['B8: continuing the response it parsed last', { continueLastParsed: true }, [continuationCase, `${FAST_PATH_PREFIX}${continuationCase}`]],
    [
      'review 10 B1: sending its texts before the results',
      { noteAfterErrors: true, textsBeforeResults: true },
      [itemOrderCase, `${FAST_PATH_PREFIX}${itemOrderCase}`],
    ],
    ['review 10 B5: sending the results before the echoed calls', { resultsBeforeEcho: true }, [itemOrderCase, `${FAST_PATH_PREFIX}${itemOrderCase}`]],
    ['review 10 B2: dropping the echo it declares', { dropEcho: true }, [echoDeclaredCase, echoCase, `${FAST_PATH_PREFIX}${echoDeclaredCase}`]],
    [
      'review 10 B3: dropping the continuation id it declares',
      { dropContinuationId: true },
      [continuationDeclaredCase, continuationCase, `${FAST_PATH_PREFIX}${continuationDeclaredCase}`],
    ],
  ])('an adapter %s fails', async (_label, flaws, caseNames) => {
    const failing = await failingCases(flaws);
    for (const caseName of caseNames) expect(failing).toContain(caseName);
  });

  // Review 3 of the adapters (writing a fourth one from the docs): an adapter that NFKC-normalizes
  // or lowercases names or call ids, or that ignores a package's API family, passed every case.
  // Each fails exactly the cases named here, and nothing else.
  const foreignCase = 'format: a package sealed under a foreign adapter revision, provider or API family is refused';
  const mixedCaseFormatCase =
    'format: call ids that differ only in case, and a mixed-case tool name, label their own results and echoes exactly (data, OUTCOME_UNKNOWN, NOT_FOUND)';
  it.each<[string, Flaws, string[]]>([
    ['NFKC-normalizing tool names before checking them (ｋit_lookup runs as kit_lookup)', { foldNames: 'NFKC' }, [nonAsciiNameCase]],
    ['NFKC-normalizing call ids before checking them (kitcall_１ answered as kitcall_1)', { foldCallIds: 'NFKC' }, [nonAsciiIdCase]],
    ['lowercasing tool names (Kit_Lookup runs as kit_lookup)', { foldNames: 'lowercase' }, [roundTripCase]],
    [
      'lowercasing call ids (kitcall_Gh7 and kitcall_gH7 become one)',
      { foldCallIds: 'lowercase' },
      [roundTripCase, mixedCaseFormatCase, `${FAST_PATH_PREFIX}${mixedCaseFormatCase}`],
    ],
    ['checking the provider and revision of a package but not its API family', { ignoreApiFamily: true }, [foreignCase, `${FAST_PATH_PREFIX}${foreignCase}`]],
  ])('review 3: an adapter %s fails exactly these cases', async (_label, flaws, caseNames) => {
    expect(await failingCases(flaws)).toEqual(caseNames);
  });

  it('review 3: names the look-alike and what the adapter made of it when the NFKC flaw is caught', async () => {
    const found = kitCases({ foldNames: 'NFKC' }).find((each) => each.name === nonAsciiNameCase);
    await expect(async () => found?.run()).rejects.toThrow(/tool name "kit_lookup\uff4b" \(U\+FF4B FULLWIDTH LATIN SMALL LETTER K, NFKC folds it into k\): expected MALFORMED_TOOL_CALL\/malformed_response, got \{"ok":true/);
    const roundTrip = kitCases({ foldNames: 'lowercase' }).find((each) => each.name === roundTripCase);
    await expect(async () => roundTrip?.run()).rejects.toThrow(/the tool name must be the one the model wrote, exactly/);
    const foreign = kitCases({ ignoreApiFamily: true }).find((each) => each.name === foreignCase);
    await expect(async () => foreign?.run()).rejects.toThrow(/sealed as \{"api_family":"kitforeign"\}: expected refusal \{"call_id":"kitcall_c3","reason":"foreign_adapter"\}/);
  });

  it('review 3: passes a correct adapter whose host text names a protected key in quotes', async () => {
    // "binding" is a protected_audit member name, and a word the host may well write: only a
    // member name in the payload's JSON (or in JSON text it carries) would give structure away.
    expect(await failingCases({ hostText: 'Tell the customer which "binding" the book has, and its "downstream" "redactions".' })).toEqual([]);
  });

  // The broken adapters of review 6, each modelled on the reference adapter: every one passed all
  // 74 cases of the kit before. Each must fail the cases named here, with the message of the check
  // that catches it.
  const roundTripFormatCase = 'format: round trip of results as canonical model_result text, in call order';
  const arrivalOrderCase = 'format: results correlate by call id under every order of arrival';
  /** The failing case names of `flaws`, each with its message. */
  async function failureMessages(flaws: Flaws, hooks = true): Promise<Map<string, string>> {
    const messages = new Map<string, string>();
    for (const { name, run } of kitCases(flaws, undefined, hooks)) {
      try {
        await run();
      } catch (error) {
        messages.set(name, error instanceof Error ? error.message : String(error));
      }
    }
    return messages;
  }
  it.each<[string, Flaws, string[], RegExp]>([
    [
      'finding 1: returning one payload object, refilled on every call',
      { sharedPayload: true },
      [roundTripFormatCase, arrivalOrderCase, echoCase, continuationCase, `${FAST_PATH_PREFIX}${arrivalOrderCase}`],
      /a payload changed after two other turns were formatted/,
    ],
    [
      'finding 4: sending other result texts (toJSON) than its payload object shows',
      { wireSwapsResults: true },
      [roundTripFormatCase, arrivalOrderCase, `${FAST_PATH_PREFIX}${roundTripFormatCase}`],
      /readResults reads the payload object otherwise than its JSON/,
    ],
    [
      "finding 2: labelling each result with another call's tool name",
      { rotateResultNames: true },
      [roundTripFormatCase, `${FAST_PATH_PREFIX}${roundTripFormatCase}`],
      /names the tool "kit_write", not the tool of its call/,
    ],
    [
      "finding 3: echoing each call with another call's item id",
      { rotateEchoItemIds: true },
      [echoCase, echoDeclaredCase, `${FAST_PATH_PREFIX}${echoCase}`],
      /carries the item id "kititem_[0-9a-f]{8}", not the one its call's item had in the response/,
    ],
  ])('review 6: an adapter %s fails', async (_label, flaws, caseNames, message) => {
    const failing = await failureMessages(flaws);
    for (const caseName of caseNames) {
      expect(failing.has(caseName), caseName).toBe(true);
      expect(failing.get(caseName)).toMatch(message);
    }
    // Parsing is the reference adapter's: only format cases fail.
    expect([...failing.keys()].every((name) => name.startsWith('format: ') || name.startsWith(FAST_PATH_PREFIX))).toBe(true);
  });

  it('review 6: catches a reused payload object and a toJSON that sends other texts without any optional hook', async () => {
    for (const flaws of [{ sharedPayload: true }, { wireSwapsResults: true }, { rotateResultNames: true }]) {
      expect((await failureMessages(flaws, false)).has(roundTripFormatCase), JSON.stringify(flaws)).toBe(true);
    }
  });

  it('review 6: a result item without tool_name, or an echo without item_id, is not compared', async () => {
    // A provider whose items carry no tool name or item id leaves the fields out: nothing to check.
    const cases = adapterConformanceCases({
      adapter: kitAdapter({ rotateResultNames: true, rotateEchoItemIds: true }),
      makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
      formatOptions: () => ({}),
      readResults: (payload: KitPayload) => payload.results.map((item) => ({ call_id: item.id, text: item.text, is_error: item.error })),
      errorFlag: true,
      readEchoedCalls: (payload: KitPayload) =>
        payload.echo.map((each) => ({ call_id: each.id, tool_name: each.name, arguments: { format: 'json_text' as const, text: each.args } })),
      echoesCalls: true,
    });
    for (const { name, run } of cases.filter((each) => each.name.startsWith('format: '))) {
      await expect(Promise.resolve().then(run), name).resolves.toBeUndefined();
    }
  });

  it('passes the reference adapter for a provider that hands over parsed arguments (argumentFormat json_value)', async () => {
    expect(await failingCases({ valueArguments: true })).toEqual([]);
    expect(kitCases({ valueArguments: true }).map((each) => each.name)).toContain(roundedIntegerCase);
  });

  it('fails the item-order case for texts before the results, not for texts after them', async () => {
    // Both adapters add a text of their own (which the model-text check refuses as well): only
    // the one that sends it before the results breaks the order.
    const messageOf = async (flaws: Flaws): Promise<string> => {
      const found = kitCases(flaws).find((each) => each.name === itemOrderCase);
      try {
        await found?.run();
      } catch (error) {
        return String(error);
      }
      return '';
    };
    expect(await messageOf({ noteAfterErrors: true, textsBeforeResults: true })).toContain('every result must come before any text');
    expect(await messageOf({ noteAfterErrors: true })).not.toContain('every result must come before any text');
  });

  it('catches B4 and B5 without any optional hook: the turn and the shape-shifting packages need none', async () => {
    expect(await failingCases({ labelFromPackage: true }, undefined, false)).toContain(shapeShiftingCase);
    expect(await failingCases({ sortCalls: true }, undefined, false)).toContain(roundTripCase);
  });

  it('refuses json_text from an adapter whose plain turn gave json_value, without argumentFormat', async () => {
    // Parsed-value arguments with a planted value JSON cannot express, handed on as text the
    // adapter wrote: without a declaration the kit still knows the provider sends values.
    const adapter = kitAdapter({ valueArguments: true });
    const turnOnly = (response: KitResponse) =>
      response.calls.some((call) => typeof call.value === 'object' && call.value !== null && 'nested' in call.value)
        ? kitAdapter({ valueArguments: true, stringifyValues: true }).parseToolCalls(response)
        : adapter.parseToolCalls(response);
    const cases = adapterConformanceCases({
      adapter: { ...adapter, parseToolCalls: turnOnly },
      makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
      formatOptions: () => ({}),
      readResults: (payload: KitPayload) => payload.results.map((item) => ({ call_id: item.id, text: item.text, is_error: item.error })),
      errorFlag: true,
    });
    const found = cases.find((each) => each.name === nonJsonCase);
    await expect(async () => found?.run()).rejects.toThrow(/parsed arguments that are not JSON were accepted/);
  });

  it('requires exactly hostText from readModelText: an adapter that leaves out the host text fails too', async () => {
    const cases = adapterConformanceCases({
      adapter: kitAdapter(),
      makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
      formatOptions: () => ({}),
      readResults: (payload: KitPayload) => payload.results.map((item) => ({ call_id: item.id, text: item.text, is_error: item.error })),
      errorFlag: true,
      readModelText: (payload: KitPayload) => payload.texts,
      hostText: ['Continue with the refund.'],
    });
    const found = cases.find((each) => each.name === modelTextCase);
    await expect(async () => found?.run()).rejects.toThrow(/the model reads text besides the results|host's own text/);
  });

  it('throws a TypeError for an argumentFormat or hostText the kit cannot use', () => {
    const base = {
      adapter: kitAdapter(),
      makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
      formatOptions: () => ({}),
      readResults: () => [],
      errorFlag: true,
    };
    expect(() => adapterConformanceCases({ ...base, argumentFormat: 'json' as unknown as 'json_text' })).toThrow(TypeError);
    expect(() => adapterConformanceCases({ ...base, hostText: [1] as unknown as string[] })).toThrow(TypeError);
    // A declaration without its hook, or one that is not a boolean.
    expect(() => adapterConformanceCases({ ...base, echoesCalls: true })).toThrow(TypeError);
    expect(() => adapterConformanceCases({ ...base, continuesResponse: false })).toThrow(TypeError);
    expect(() => adapterConformanceCases({ ...base, readEchoedCalls: () => [], echoesCalls: 'yes' as unknown as boolean })).toThrow(TypeError);
  });

  it('throws a TypeError for an errorFlag left out or not a boolean, as for every other declaration (review 3, F4)', () => {
    const base = {
      adapter: kitAdapter(),
      makeResponse: (calls: readonly ConformanceCall[], responseId: string) => kitResponse(calls, responseId),
      formatOptions: () => ({}),
      readResults: () => [],
    };
    // Left out, it read as "no flag"; "no" read as "has a flag": the flag checks followed neither.
    for (const errorFlag of [undefined, 0, 'no', null, 1]) {
      expect(() => adapterConformanceCases({ ...base, errorFlag: errorFlag as unknown as boolean }), String(errorFlag)).toThrow(
        new TypeError(`errorFlag must be a boolean (whether the provider's result items carry an error flag), got ${String(JSON.stringify(errorFlag))}`),
      );
    }
    expect(() => adapterConformanceCases({ ...base, errorFlag: false })).not.toThrow();
  });

  it('catches BROKEN-1, -2, -6 and -7 without any optional hook', async () => {
    // Payload accounting, the status-shifting packages, hostile results and the fast path need no
    // provider knowledge beyond readResults.
    for (const flaws of [{ liftDataIntoText: true }, { flagFromLivePackage: true }, { throwOnHostileResult: true }, { fastPathSkipsVerify: true }]) {
      expect(await failingCases(flaws, undefined, false)).not.toEqual([]);
    }
  });

  it('catches the fast-path flaw only on the fast path: the plain run never offers canonicalTextOf a kept package', async () => {
    const failing = await failingCases({ fastPathSkipsVerify: true });
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((name) => name.startsWith(FAST_PATH_PREFIX))).toBe(true);
  });

  it('names the cases of a hook left out NOT CHECKED, and they check nothing', async () => {
    const names = kitCases({}, undefined, false).map((each) => each.name);
    const unchecked = names.filter((name) => name.includes('NOT CHECKED'));
    const argumentsCase =
      'parse: exact arguments NOT CHECKED: the descriptor gives no argumentFormat (required: json_text arguments byte for byte, integers beyond 2^53 - 1 in json_value arguments refused)';
    const formatCases = [
      'format: echoed calls NOT CHECKED: the descriptor gives no readEchoedCalls (required when a continuation echoes the calls)',
      'format: continuation id NOT CHECKED: the descriptor gives no readContinuationId (required when the payload names the response it continues)',
      'format: whether calls are echoed NOT CHECKED: the descriptor declares no echoesCalls (required with readEchoedCalls)',
      'format: whether the response is named NOT CHECKED: the descriptor declares no continuesResponse (required with readContinuationId)',
      'format: item order NOT CHECKED: the descriptor gives no readItemOrder (required: echoed calls, results and texts must come in the order the provider takes)',
      'format: model text NOT CHECKED: the descriptor gives no readModelText (required: every payload the model reads may carry text)',
    ];
    expect(unchecked).toEqual([
      argumentsCase,
      'parse: unfinished responses NOT CHECKED: the descriptor gives no makeUnfinishedResponses (required when the provider can mark a response unfinished)',
      ...formatCases,
      ...formatCases.map((name) => `${FAST_PATH_PREFIX}${name}`),
    ]);
    // Without the hooks, the flaws only they can see go unnoticed, and the names say so.
    for (const flaws of [
      { echoOtherCalls: true },
      { wrongContinuationId: true },
      { continueLastParsed: true },
      { acceptUnfinished: true },
      { normalizeArgumentText: true },
      { valueArguments: true, skipRoundedIntegerCheck: true },
      { valueArguments: true, stringifyValues: true },
      { noteAfterErrors: true },
      { resultsBeforeEcho: true },
      { dropEcho: true },
      { dropContinuationId: true },
    ]) {
      expect(await failingCases(flaws, undefined, false), JSON.stringify(flaws)).toEqual([]);
    }
    expect(kitCases({}, undefined, true).some((each) => each.name.includes('NOT CHECKED'))).toBe(false);
  });

  it('runs every format case a second time on the fast path, and nothing else', () => {
    const names = kitCases().map((each) => each.name);
    const format = names.filter((name) => name.startsWith('format: '));
    const fast = names.filter((name) => name.startsWith(FAST_PATH_PREFIX));
    expect(fast).toEqual(format.map((name) => `${FAST_PATH_PREFIX}${name}`));
  });

  it('fails an adapter that accepts call ids over the maxCallIdLength its provider takes back', async () => {
    // The reference adapter accepts 256 characters: declared against a provider taking 64, it fails.
    expect(await failingCases({}, 64)).toEqual(['parse: a call id of exactly 64 characters passes, one more refuses the whole response']);
  });

  it('throws a TypeError for a maxCallIdLength the kit cannot test', () => {
    expect(() => kitCases({}, 300)).toThrow(TypeError);
    expect(() => kitCases({}, 5)).toThrow(TypeError);
  });

  it('prefixes case names with the label', () => {
    const labelled = adapterConformanceCases({
      adapter: kitAdapter(),
      makeResponse: () => ({ id: 'x', status: 'completed', calls: [] }),
      formatOptions: () => ({}),
      readResults: () => [],
      errorFlag: false,
      label: 'stateless',
    });
    expect(labelled.every((each) => each.name.startsWith('stateless: '))).toBe(true);
  });
});
