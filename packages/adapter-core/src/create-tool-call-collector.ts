import type { ParseToolCallsOutcome, RawArguments, ToolCall } from '@toolseal/contracts';
import { makeError } from '@toolseal/errors';
import { checkUntrustedValue, GUARD_RULES, utf8LengthWithin } from '@toolseal/guard';
import type { AdapterIdentity } from './create-adapter-identity.js';
import {
  isWellFormedIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  MAX_TOOL_NAME_LENGTH,
} from './is-well-formed-identifier.js';
import { rejectMalformedToolCall, type ParseRejection } from './reject-malformed-tool-call.js';
import type { ToolCallLimits } from './resolve-tool-call-limits.js';

// Size rules (the guard's `max_*` rules, one per `JsonLimits` bound) refuse the whole response
// here; content rules (`forbidden_key`, `lone_surrogate`, ...) are left to the dispatcher's guard,
// which reports them for the one call concerned.
const SIZE_RULES: ReadonlySet<string> = new Set(GUARD_RULES.filter((rule) => rule.startsWith('max_')));

function rejectArguments(rule: string): ParseRejection {
  return { ok: false, error: makeError('INVALID_ARGUMENTS', { reasons: [{ field: '', rule }] }) };
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
        // The walk bounds the value's serialized size too (`argumentLimits.maxBytes` is
        // `maxArgumentBytes`), without building its text.
        const checked = checkUntrustedValue(rawArguments.value, limits.argumentLimits);
        if (!checked.ok && SIZE_RULES.has(checked.violation.rule)) return rejectArguments(checked.violation.rule);
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
