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
 * Pending calls are returned only while the interaction waits for the client's function results,
 * `status: 'requires_action'` ("the interaction requires action/input from the user", Interactions
 * API `Interaction.status`). Under any other status (`in_progress`, `queued`,
 * `requires_continuation`, `incomplete`, `failed`, `cancelled`, `budget_exceeded`, `completed`,
 * none or one the adapter does not know) the model is not waiting for them: its steps may be
 * unfinished or cut short, so an interaction with a pending call is refused rather than executed,
 * as the OpenAI adapter refuses an unfinished item and the Anthropic adapter a cut-off `tool_use`.
 * An interaction without pending calls is accepted under any status, with no calls.
 *
 * The interaction is untrusted and validated by hand: it never throws. It is refused
 * (`MALFORMED_TOOL_CALL`, `malformed_response` unless said otherwise) for a missing interaction
 * id, missing steps while the status is `requires_action`, a pending call under another status,
 * a repeated (`duplicate_call_id`) or missing (`missing_call_id`) step id, an empty name
 * (`empty_tool_name`), `arguments` that are not an object, or more than `maxCalls` calls
 * (`too_many_calls`); and (`INVALID_ARGUMENTS`) for arguments over the size limits.
 */
export function parseGeminiInteractionsToolCalls(
  interaction: GeminiInteractionsResponse,
  settings: AdapterSettings = GEMINI_INTERACTIONS_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(interaction, 'id', settings, (checked, collector) => {
    const steps = readOwnData(checked, 'steps');
    const awaitsResults = readOwnData(checked, 'status') === 'requires_action';
    // A finished interaction may carry no steps at all: no calls.
    if (steps === undefined && !awaitsResults) return null;
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
      // A pending call outside `requires_action` is not one the model waits on: possibly unfinished.
      if (!awaitsResults) return rejectMalformedToolCall('malformed_response');
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
