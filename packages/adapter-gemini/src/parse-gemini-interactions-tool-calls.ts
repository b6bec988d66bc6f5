import {
  collectToolCalls,
  isPlainObject,
  readOwnData,
  rejectMalformedToolCall,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import type { GeminiInteractionsResponse } from './gemini-interactions-api.js';
import { GEMINI_INTERACTIONS_DEFAULT_SETTINGS } from './gemini-interactions-default-settings.js';

/**
 * Parses the pending `function_call` steps of an interaction into `ToolCall`s, in step order, with
 * `arguments` as the SDK-parsed object (`json_value`), checked against the adapter's size limits;
 * the dispatcher validates it per tool with the guard. A `function_call` step already answered by
 * a `function_result` step in the same interaction is not pending and is skipped; other step
 * types (user input, thoughts, model output, server tools) are ignored.
 *
 * The interaction is untrusted and validated by hand: it never throws. It is refused
 * (`MALFORMED_TOOL_CALL`) for a missing interaction id, missing steps while the status is
 * `requires_action`, a repeated or missing step id, an empty name, `arguments` that are not an
 * object, or more than `maxCalls` calls; and (`INVALID_ARGUMENTS`) for arguments over the size
 * limits.
 */
export function parseGeminiInteractionsToolCalls(
  interaction: GeminiInteractionsResponse,
  settings: AdapterSettings = GEMINI_INTERACTIONS_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(interaction, 'id', settings, (checked, collector) => {
    const steps = readOwnData(checked, 'steps');
    // A finished interaction may carry no steps at all: no calls.
    if (steps === undefined && readOwnData(checked, 'status') !== 'requires_action') return null;
    if (!Array.isArray(steps)) return rejectMalformedToolCall('malformed_response');

    const answered = new Set<unknown>();
    for (let index = 0; index < steps.length; index++) {
      const step = readOwnData(steps, index);
      if (typeof step !== 'object' || step === null) return rejectMalformedToolCall('malformed_response');
      if (readOwnData(step, 'type') === 'function_result') answered.add(readOwnData(step, 'call_id'));
    }

    for (let index = 0; index < steps.length; index++) {
      const step = readOwnData(steps, index);
      if (readOwnData(step, 'type') !== 'function_call') continue;
      const callId = readOwnData(step, 'id');
      if (typeof callId === 'string' && callId !== '' && answered.has(callId)) continue;
      const callArguments = readOwnData(step, 'arguments');
      if (!isPlainObject(callArguments)) return rejectMalformedToolCall('malformed_response');
      const rejection = collector.add(callId, readOwnData(step, 'name'), {
        format: 'json_value',
        value: callArguments,
      });
      if (rejection !== null) return rejection;
    }
    return null;
  });
}
