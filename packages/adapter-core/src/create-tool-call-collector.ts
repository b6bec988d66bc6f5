import type { JsonValue, ParseToolCallsOutcome, RawArguments, ToolCall } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';
import { checkUntrustedValue, copyUntrustedValue, deepFreeze, GUARD_RULES, utf8LengthWithin, type JsonLimits } from '@toolseal/guard';
import type { AdapterIdentity } from './create-adapter-identity.js';
import { isJsonDataWithin } from './is-json-data-within.js';
import { copyJsonData } from './json-data-copies.js';
import { mayHoldRoundedInteger } from './may-hold-rounded-integer.js';
import {
  isDisplaySafeIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  MAX_TOOL_NAME_LENGTH,
} from './is-well-formed-identifier.js';
import { rejectMalformedToolCall, type ParseRejection } from './reject-malformed-tool-call.js';
import type { ToolCallLimits } from './resolve-tool-call-limits.js';

// Size rules (the guard's `max_*` rules, one per `JsonLimits` bound) refuse the whole response
// here, and so do a value JSON cannot express and, in parsed arguments, an integer beyond 2^53 - 1
// the SDK may have rounded (`non_json_value`); content rules JSON text can
// produce (`forbidden_key`, `lone_surrogate`, `non_json_value` for Infinity) are left to the
// dispatcher's guard, which reports them for the one call concerned.
const SIZE_RULES: ReadonlySet<string> = new Set(GUARD_RULES.filter((rule) => rule.startsWith('max_')));

function rejectArguments(rule: string): ParseRejection {
  return { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule }] }) };
}

/** A base whose constructor returns the object it is given, so a subclass can add private fields to it. */
class Slot {
  constructor(target: object) {
    return target;
  }
}

/**
 * The private copies of `json_value` arguments kept by collectors created with
 * `keepArgumentCopies`, deeply frozen, in a private field of the `ToolCall` they belong to:
 * invisible to the reflection JavaScript code has (a debugger sees it, as it saw the weak map),
 * alive exactly as long as the call. Only `privateArgumentsOf`
 * reads them (and hands out fresh copies of them, for the payload an adapter builds); the host's
 * objects are never stored here, and nothing outside holds a changeable version of one. (A
 * `WeakMap` did the same, but its entries for calls that die young cost the collector's ephemeron
 * work: Gemini's `parseToolCalls` measured 1.59 µs with it, 1.13 µs with the private field.)
 */
class KeptArguments extends Slot {
  readonly #value: JsonValue;

  private constructor(call: ToolCall, value: JsonValue) {
    super(call);
    this.#value = value;
  }

  static keep(call: ToolCall, value: JsonValue): void {
    new KeptArguments(call, value);
  }

  static of(call: unknown): JsonValue | undefined {
    return typeof call === 'object' && call !== null && #value in call ? (call as KeptArguments).#value : undefined;
  }
}

/** Options of `createToolCallCollector`. */
export interface ToolCallCollectorOptions {
  /**
   * Keep a private copy of every `json_value` argument value that passes the guard, taken by the
   * same walk that checks its size (the guard's `copyUntrustedValue`) and then deeply frozen, for an
   * adapter that sends the arguments back to the provider (a stateless continuation):
   * `privateArgumentsOf` returns fresh copies of it, and the `ToolCall` carries it as its
   * `arguments.value` instead of the host's object. The call, its `arguments` and the copy are
   * frozen: none can be changed or replaced (an assignment throws a `TypeError` in strict mode),
   * before or after dispatch, so the dispatcher runs exactly what the continuation echoes. Costs the copy's allocations (about
   * 130 ns for a one-key object) and one `Object.freeze` per object or array (a quarter to a third
   * more). Default `false`: the call then carries the host's own value, neither copied nor frozen.
   */
  keepArgumentCopies?: boolean;
  /**
   * Longest call id accepted, for a provider whose documented schema allows fewer characters than
   * `MAX_PROVIDER_ID_LENGTH` (256): OpenAI's `function_call_output.call_id` takes at most 64, so a
   * longer call id could run but its result could never be delivered. An integer from 1 to 256;
   * anything else is a bug in the adapter (`TypeError` when the collector is created). Default 256.
   */
  maxCallIdLength?: number;
}

/** Accumulates the calls of one response, refusing it at the first broken rule. */
export interface ToolCallCollector {
  /**
   * Adds one call. Returns the rejection of the whole response when the call breaks a rule, else
   * `null`. Arguments must already have the provider's documented type (text or object).
   */
  add(callId: unknown, toolName: unknown, rawArguments: RawArguments): ParseRejection | null;
  /** The calls, in provider order. */
  finish(): ParseToolCallsOutcome;
}

/**
 * The `maxCallIdLength` of collector `options` (256 when unset). Throws a `TypeError` for anything
 * but an integer from 1 to 256: the options are the adapter's own code, so a bad one is a bug.
 */
export function resolveMaxCallIdLength(options: ToolCallCollectorOptions = {}): number {
  const maxCallIdLength = options.maxCallIdLength ?? MAX_PROVIDER_ID_LENGTH;
  if (!Number.isSafeInteger(maxCallIdLength) || maxCallIdLength < 1 || maxCallIdLength > MAX_PROVIDER_ID_LENGTH) {
    throw new TypeError(`maxCallIdLength must be an integer from 1 to ${MAX_PROVIDER_ID_LENGTH}`);
  }
  return maxCallIdLength;
}

/**
 * Starts collecting the calls of response `responseId` (already checked with
 * `isDisplaySafeIdentifier`). Checks, per call: id present and display-safe (at most
 * `maxCallIdLength` characters), name present and well formed, id unique within the response,
 * call count, argument size; for parsed arguments (`json_value`), also that they are JSON data at
 * all: a value JSON cannot express (`undefined`, a function, a BigInt, a symbol key, a `Date` or
 * other class instance, an accessor, a hole) refuses the response (`INVALID_ARGUMENTS`,
 * `non_json_value`), wherever it sits. The guard stops at such a value, so the size of what
 * follows it is never measured; refusing it keeps oversized arguments from passing behind it.
 * So does an integer beyond `Number.MAX_SAFE_INTEGER` in magnitude, which the SDK's `JSON.parse`
 * may have rounded from the number the model wrote (`mayHoldRoundedInteger`: the code and rule
 * the guard's exact-number check gives the same wire text as `json_text`, where the dispatcher
 * refuses that one call); a rounded fraction cannot be seen in a parsed value.
 */
export function createToolCallCollector(
  identity: AdapterIdentity,
  responseId: string,
  limits: ToolCallLimits,
  options: ToolCallCollectorOptions = {},
): ToolCallCollector {
  const keepCopies = options.keepArgumentCopies === true;
  const maxCallIdLength = resolveMaxCallIdLength(options);
  const calls: ToolCall[] = [];
  const seen = new Set<string>();
  return {
    add(callId, toolName, rawArguments) {
      if (callId === undefined || callId === null || callId === '') {
        return rejectMalformedToolCall('missing_call_id');
      }
      if (!isDisplaySafeIdentifier(callId, maxCallIdLength)) {
        return rejectMalformedToolCall('malformed_response');
      }
      if (toolName === undefined || toolName === null || toolName === '') {
        return rejectMalformedToolCall('empty_tool_name');
      }
      if (!isDisplaySafeIdentifier(toolName, MAX_TOOL_NAME_LENGTH)) {
        return rejectMalformedToolCall('malformed_response');
      }
      if (seen.has(callId)) return rejectMalformedToolCall('duplicate_call_id');
      if (calls.length >= limits.maxCalls) return rejectMalformedToolCall('too_many_calls');
      if (rawArguments.format === 'json_text') {
        // Bytes before anything else: the text is not parsed here at all.
        if (!utf8LengthWithin(rawArguments.text, limits.maxArgumentBytes)) {
          return rejectArguments('max_bytes');
        }
      }
      let copy: JsonValue | undefined;
      if (rawArguments.format === 'json_value') {
        // The walk bounds the value's serialized size too (`argumentLimits.maxBytes` is
        // `maxArgumentBytes`), without building its text; when asked, the same walk copies it.
        const checked = keepCopies
          ? copyUntrustedValue(rawArguments.value, limits.argumentLimits)
          : checkUntrustedValue(rawArguments.value, limits.argumentLimits);
        if (!checked.ok) {
          if (SIZE_RULES.has(checked.violation.rule)) return rejectArguments(checked.violation.rule);
          // The guard measures the size past a content violation, but stops at a value JSON cannot
          // express: unless the value is JSON data throughout, its size is unknown and it is no
          // JSON anyway, so the response is refused rather than handed to the dispatcher.
          if (!isJsonDataWithin(rawArguments.value, limits.argumentLimits)) return rejectArguments('non_json_value');
        }
        // Parsed by the SDK: an integer beyond 2^53 may be another number rounded (9007199254740993
        // arrives as 9007199254740992), which the guard cannot see in a value. Refused as the guard
        // refuses it in text (`non_json_value`); the walk reads the private copy when there is one
        // (what the call will carry, plain data read directly), else the SDK's value through
        // descriptors, and stays within the limits the guard walk just applied.
        const ownCopy = keepCopies && checked.ok;
        if (mayHoldRoundedInteger(ownCopy ? checked.value : rawArguments.value, limits.argumentLimits, ownCopy)) {
          return rejectArguments('non_json_value');
        }
        // Frozen before anything else sees it: the call hands it to the host.
        if (keepCopies && checked.ok) copy = deepFreeze(checked.value);
      }
      seen.add(callId);
      const call: ToolCall = {
        provider: identity.provider,
        api_family: identity.apiFamily,
        adapter_revision: identity.adapterRevision,
        response_id: responseId,
        call_id: callId,
        tool_name: toolName,
        // With a kept copy, the call carries it (frozen) instead of the host's object: what the
        // dispatcher runs is then what a stateless continuation echoes, whatever happens to the SDK
        // response.
        arguments: copy === undefined ? rawArguments : Object.freeze({ format: 'json_value', value: copy }),
      };
      if (copy !== undefined) {
        // The call too, so that neither `call.arguments` nor its `value` can be replaced: the
        // dispatcher reads them, the continuation echoes the kept copy, and the two stay one value.
        // Kept before the call is frozen: a private field is added to an object that can still
        // be extended (engines may refuse it on a frozen one).
        KeptArguments.keep(call, copy);
        Object.freeze(call);
      }
      calls.push(call);
      return null;
    },
    finish() {
      return { ok: true, response_id: responseId, calls };
    },
  };
}

/**
 * A private copy of the `json_value` arguments of `call`, for an adapter that sends them back to
 * the provider (a stateless continuation) and must never send the host's object itself: an SDK
 * response mutated after parsing, or a value too deep to serialize, would reach the payload.
 *
 * Every call returns a fresh, unfrozen copy that belongs to the caller alone, to place in one
 * payload: changing it changes neither `call` nor any other payload. When `call` is the very
 * object a collector created with `keepArgumentCopies` returned, it is a plain copy (no checks: a
 * quarter to a third of the guard's walk) of the frozen copy the collector kept while checking the
 * arguments, i.e. of the arguments as parsed (that call is frozen: nothing can replace them); else
 * (calls the host rebuilt, e.g. from storage, or a collector that kept no copy) a copy taken now by
 * the guard's `copyUntrustedValue` under `limits`. `undefined` for arguments that are not JSON
 * data the guard accepts (`Infinity`, a `__proto__` key: the dispatcher refuses such a call; an
 * accessor in a call the host rebuilt, which a collector would have refused) or not `json_value`
 * at all.
 */
export function privateArgumentsOf(call: ToolCall, limits: Readonly<JsonLimits>): JsonValue | undefined {
  const kept = KeptArguments.of(call);
  if (kept !== undefined) return copyJsonData(kept);
  if (call.arguments.format !== 'json_value') return undefined;
  const copied = copyUntrustedValue(call.arguments.value, limits);
  return copied.ok ? copied.value : undefined;
}
