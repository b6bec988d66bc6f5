import { formatOptionsOf, isDisplaySafeIdentifier, isWellFormedIdentifier, MAX_PROVIDER_ID_LENGTH, MAX_TOOL_NAME_LENGTH } from '@toolseal/adapter-core';
import type {
  FormatFailure,
  FormatToolResultsInput,
  FormatToolResultsOutcome,
  ParseToolCallsOutcome,
  ProviderAdapter,
  SealedResult,
  ToolCall,
} from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { adapterConformanceCases, type ConformanceCall } from './adapter-conformance-cases.js';

// A deliberately small provider, "kitref", to test the kit itself: the reference adapter must pass
// every case, and each broken variant must fail the case that guards against its flaw.
interface KitResponse {
  id: string;
  /** `args` is the JSON text of the arguments, `value` the arguments as an SDK would parse them. */
  calls: Array<{ id: string; name: string; args: string; value: unknown }>;
}
interface KitPayload {
  results: Array<{ id: string; text: string; error: boolean }>;
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

/** The JSON text of `value`, or `null` when `JSON.stringify` throws (a BigInt). */
function jsonTextOrNull(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return 'null';
  }
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

function malformed(rule: string): ParseToolCallsOutcome {
  return { ok: false, error: makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule }] }) };
}

function kitAdapter(flaws: Flaws = {}): KitAdapter {
  const identity = { provider: 'kitref', api_family: 'calls', adapter_revision: 'kitref-v1' };
  return {
    provider: identity.provider,
    apiFamily: identity.api_family,
    adapterRevision: identity.adapter_revision,
    parseToolCalls(response) {
      // The reference adapter reads the response naively; only the try keeps a hostile proxy out.
      const wellFormed = (value: string) =>
        flaws.acceptControlCharacters === true ||
        (flaws.checkControlCharactersOnly === true
          ? !CONTROL_CHARACTER.test(value)
          : flaws.acceptInvisibleFormat === true
            ? isWellFormedIdentifier(value, 256)
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
        const seen = new Set<string>();
        const calls: ToolCall[] = [];
        for (const call of response.calls) {
          if (call.id === '') return malformed('missing_call_id');
          if (call.name === '') return malformed('empty_tool_name');
          if (!(wellFormed(call.id) && wellFormed(call.name))) return malformed('malformed_response');
          if (seen.has(call.id) && flaws.acceptDuplicateIds !== true) return malformed('duplicate_call_id');
          if (calls.length >= 64) return malformed('too_many_calls');
          if (measuredSize(call, flaws) > 1_048_576) {
            return { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule: 'max_bytes' }] }) };
          }
          seen.add(call.id);
          const args = flaws.valueArgumentsUnchecked === true ? { format: 'json_value' as const, value: call.value } : { format: 'json_text' as const, text: call.args };
          calls.push({ ...identity, response_id: response.id, call_id: call.id, tool_name: call.name, arguments: args });
        }
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
      const byCall = new Map<string, { text: string; error: boolean; sealed: unknown }>();
      input.results.forEach((sealed, index) => {
        const context = (sealed as unknown as { protected_audit?: { provider_context?: Record<string, unknown> } } | null)?.protected_audit
          ?.provider_context;
        const callId = flaws.correlateByIndex === true ? input.calls[index]?.call_id : context?.['call_id'];
        if (typeof callId !== 'string') {
          failures.push({ call_id: null, reason: 'verification_failed', verify_reasons: ['malformed_package'] });
          return;
        }
        const call = input.calls.find((each) => each.call_id === callId);
        if (call === undefined) return void failures.push({ call_id: callId, reason: 'unknown_call', verify_reasons: [] });
        if (byCall.has(callId)) return void failures.push({ call_id: callId, reason: 'duplicate_result', verify_reasons: [] });
        if (context?.['adapter_revision'] !== identity.adapter_revision || context['provider'] !== identity.provider) {
          return void failures.push({ call_id: callId, reason: 'foreign_adapter', verify_reasons: [] });
        }
        // One snapshot: canonicalize once, verify a copy parsed from that text, send that text.
        // The flawed variant verifies the live package and reads it again afterwards.
        let text: string;
        let snapshot: SealedResult;
        try {
          text = canonicalize(sealed.model_result);
          snapshot = { model_result: JSON.parse(text) as SealedResult['model_result'], protected_audit: sealed.protected_audit };
        } catch {
          return void failures.push({ call_id: callId, reason: 'verification_failed', verify_reasons: ['malformed_package'] });
        }
        const checked = flaws.verifyLiveObject === true ? sealed : snapshot;
        if (flaws.skipVerify !== true) {
          let verdict;
          try {
            verdict = input.verify(checked, call, flaws.verifyLiveObject === true ? undefined : { canonical_model_result: text });
          } catch {
            verdict = { ok: false as const, reasons: ['malformed_package' as const] };
          }
          if (!verdict.ok) return void failures.push({ call_id: callId, reason: 'verification_failed', verify_reasons: verdict.reasons });
        }
        const sent = flaws.verifyLiveObject === true ? sealed.model_result : snapshot.model_result;
        byCall.set(callId, {
          text: flaws.leakAudit === true ? canonicalize({ ...sent, audit: sealed.protected_audit }) : flaws.verifyLiveObject === true ? canonicalize(sent) : text,
          error: flaws.flagOnlyFailed === true ? sent.status === 'failed' : sent.status !== 'succeeded',
          sealed,
        });
      });
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
        return entry === undefined ? [] : [{ id: call.call_id, text: entry.text, error: flaws.noErrorFlag === true ? false : entry.error }];
      });
      return { ok: true, payload: { results } };
    },
  };
}

function kitCases(flaws: Flaws = {}, maxCallIdLength?: number) {
  return adapterConformanceCases({
    adapter: kitAdapter(flaws),
    makeResponse: (calls: readonly ConformanceCall[], responseId: string) => ({
      id: responseId,
      calls: calls.map((call) => ({ id: call.call_id, name: call.tool_name, args: jsonTextOrNull(call.arguments), value: call.arguments })),
    }),
    ...(maxCallIdLength === undefined ? {} : { maxCallIdLength }),
    formatOptions: () => ({}),
    readResults: (payload: KitPayload) => payload.results.map((item) => ({ call_id: item.id, text: item.text, is_error: item.error })),
    errorFlag: true,
  });
}

async function failingCases(flaws: Flaws, maxCallIdLength?: number): Promise<string[]> {
  const failing: string[] = [];
  for (const { name, run } of kitCases(flaws, maxCallIdLength)) {
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
    ['accepting repeated call ids', { acceptDuplicateIds: true }, 'parse: a repeated call id refuses the whole response'],
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
      makeResponse: () => ({ id: 'x', calls: [] }),
      formatOptions: () => ({}),
      readResults: () => [],
      errorFlag: false,
      label: 'stateless',
    });
    expect(labelled.every((each) => each.name.startsWith('stateless: '))).toBe(true);
  });
});
