import {
  collectToolCalls,
  HIDDEN_FIELD,
  isPlainObject,
  readOwnData,
  readRefusalField,
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
 * as the OpenAI adapter refuses a function call in an unfinished response or item and the
 * Anthropic adapter a cut-off `tool_use`. An interaction without pending calls is accepted under
 * any status, with no calls (so is an OpenAI response without function calls).
 *
 * The interaction is untrusted and validated by hand: it never throws. It is refused
 * (`MALFORMED_TOOL_CALL`, `malformed_response` unless said otherwise) for a missing interaction
 * id, missing steps while the status is `requires_action`, a pending call under another status,
 * a `function_result` step whose `call_id` is not a string, a step id repeated by any two
 * `function_call` steps, answered or pending (`duplicate_call_id`: an answered id repeated by a
 * pending call would otherwise hide that call), a missing (`missing_call_id`) step id, an empty
 * name (`empty_tool_name`), `arguments` that are not an object, or more than `maxCalls` calls
 * (`too_many_calls`); and (`INVALID_ARGUMENTS`) for arguments over the size limits.
 *
 * Every field that decides whether a call is pending (the interaction's `status` and `steps`, a
 * step's `type`, a `function_result`'s `call_id`) is read with `readRefusalField`: one defined as a
 * getter or reachable only through the prototype chain refuses the interaction as malformed
 * instead of reading as absent. The collector keeps a private copy of each call's arguments, taken
 * while checking them, for the stateless continuation to echo.
 */
export function parseGeminiInteractionsToolCalls(
  interaction: GeminiInteractionsResponse,
  settings: AdapterSettings = GEMINI_INTERACTIONS_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(
    interaction,
    'id',
    settings,
    (checked, collector) => {
      const status = readRefusalField(checked, 'status');
      const steps = readRefusalField(checked, 'steps');
      if (status === HIDDEN_FIELD || steps === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
      const awaitsResults = status === 'requires_action';
      // A finished interaction may carry no steps at all: no calls.
      if (steps === undefined && !awaitsResults) return null;
      if (!Array.isArray(steps)) return rejectMalformedToolCall('malformed_response');
      const list: readonly unknown[] = steps;
      const count = list.length;

      // First pass: which calls are answered, and no call id used twice.
      const answered = new Set<string>();
      const callIds = new Set<string>();
      for (let index = 0; index < count; index++) {
        const step = readOwnData(list, index);
        if (typeof step !== 'object' || step === null) return rejectMalformedToolCall('malformed_response');
        const type = readRefusalField(step, 'type');
        // A hidden type could make a call vanish, or an answer: refused, never skipped.
        if (type === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
        if (type === 'function_result') {
          const answers = readRefusalField(step, 'call_id');
          if (typeof answers !== 'string') return rejectMalformedToolCall('malformed_response');
          answered.add(answers);
        } else if (type === 'function_call') {
          const callId = readOwnData(step, 'id');
          if (typeof callId === 'string' && callId !== '') {
            if (callIds.has(callId)) return rejectMalformedToolCall('duplicate_call_id');
            callIds.add(callId);
          }
        }
      }

      for (let index = 0; index < count; index++) {
        const step = readOwnData(list, index);
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
    },
    // The stateless continuation echoes the arguments: from this copy, never the SDK's object.
    { keepArgumentCopies: true },
  );
}
