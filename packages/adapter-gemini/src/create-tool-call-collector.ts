import type { ParseToolCallsOutcome, RawArguments, ToolCall } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';
import { checkUntrustedValue, isWellFormedText, utf8LengthWithin } from '@toolseal/guard';
import type { AdapterIdentity } from './create-adapter-identity.js';
import { jsonByteLength } from './json-byte-length.js';
import type { ToolCallLimits } from './resolve-tool-call-limits.js';

/** A refused response. */
export type ParseRejection = Extract<ParseToolCallsOutcome, { ok: false }>;

/** Longest provider id (response or call) accepted, as `ProviderContext` allows. */
export const MAX_PROVIDER_ID_LENGTH = 256;
/** Longest tool name accepted before the registry lookup; no provider allows more than 128. */
export const MAX_TOOL_NAME_LENGTH = 256;

// Size rules refuse the whole response here; content rules (`forbidden_key`, `lone_surrogate`,
// ...) are left to the dispatcher's guard, which reports them for the one call concerned.
const SIZE_RULES = new Set([
  'max_bytes',
  'max_depth',
  'max_array_items',
  'max_object_keys',
  'max_string_length',
  'max_total_nodes',
]);

/** `MALFORMED_TOOL_CALL` for the whole response, with one reason. */
export function rejectMalformedToolCall(
  rule:
    | 'duplicate_call_id'
    | 'missing_call_id'
    | 'empty_tool_name'
    | 'too_many_calls'
    | 'malformed_response',
): ParseRejection {
  return { ok: false, error: makeError('MALFORMED_TOOL_CALL', { reasons: [{ field: '', rule }] }) };
}

function rejectArguments(rule: string): ParseRejection {
  return { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule }] }) };
}

/**
 * True for a string of 1 to `maxLength` UTF-16 code units with no lone surrogate (which RFC 8785
 * cannot canonicalize, so such an id could never be bound into a digest).
 */
export function isWellFormedIdentifier(value: unknown, maxLength: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    isWellFormedText(value)
  );
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
 * Starts collecting the calls of response `responseId` (already checked with
 * `isWellFormedIdentifier`). Checks, per call: id present and well formed, name present and well
 * formed, id unique within the response, call count, argument size.
 */
export function createToolCallCollector(
  identity: AdapterIdentity,
  responseId: string,
  limits: ToolCallLimits,
): ToolCallCollector {
  const calls: ToolCall[] = [];
  const seen = new Set<string>();
  return {
    add(callId, toolName, rawArguments) {
      if (callId === undefined || callId === null || callId === '') {
        return rejectMalformedToolCall('missing_call_id');
      }
      if (!isWellFormedIdentifier(callId, MAX_PROVIDER_ID_LENGTH)) {
        return rejectMalformedToolCall('malformed_response');
      }
      if (toolName === undefined || toolName === null || toolName === '') {
        return rejectMalformedToolCall('empty_tool_name');
      }
      if (!isWellFormedIdentifier(toolName, MAX_TOOL_NAME_LENGTH)) {
        return rejectMalformedToolCall('malformed_response');
      }
      if (seen.has(callId)) return rejectMalformedToolCall('duplicate_call_id');
      if (calls.length >= limits.maxCalls) return rejectMalformedToolCall('too_many_calls');
      if (rawArguments.format === 'json_text') {
        // Bytes before anything else: the text is not parsed here at all.
        if (!utf8LengthWithin(rawArguments.text, limits.maxArgumentBytes)) {
          return rejectArguments('max_bytes');
        }
      } else {
        const checked = checkUntrustedValue(rawArguments.value, limits.argumentLimits);
        if (!checked.ok) {
          if (SIZE_RULES.has(checked.violation.rule)) return rejectArguments(checked.violation.rule);
        } else if (jsonByteLength(checked.value, limits.maxArgumentBytes) > limits.maxArgumentBytes) {
          return rejectArguments('max_bytes');
        }
      }
      seen.add(callId);
      calls.push({
        provider: identity.provider,
        api_family: identity.apiFamily,
        adapter_revision: identity.adapterRevision,
        response_id: responseId,
        call_id: callId,
        tool_name: toolName,
        arguments: rawArguments,
      });
      return null;
    },
    finish() {
      return { ok: true, response_id: responseId, calls };
    },
  };
}
