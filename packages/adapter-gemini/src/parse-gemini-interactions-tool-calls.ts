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
import { MAX_INTERACTION_STEPS, type GeminiInteractionsResponse } from './gemini-interactions-api.js';
import { GEMINI_INTERACTIONS_DEFAULT_SETTINGS } from './gemini-interactions-default-settings.js';

/**
 * Parses the pending `function_call` steps of an interaction into `ToolCall`s, in step order, with
 * `arguments` as a deeply frozen copy of the SDK-parsed object (`json_value`; see below), checked
 * against the adapter's size limits; the dispatcher validates it per tool with the guard. A `function_call` step answered by a
 * `function_result` step that comes after it in the same interaction is not pending and is
 * skipped; a `function_result` before its call, or naming no call of the interaction, answers no
 * call here (it answers one of an earlier interaction, whose timeline this one continues); other
 * step types (user input, thoughts, model output, server tools) are ignored.
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
 * id, missing steps or no pending call while the status is `requires_action`, a pending call
 * under another status, a `function_result` step whose `call_id` is not a string, a step id
 * repeated by any two `function_call` steps, answered or pending (`duplicate_call_id`: an answered
 * id repeated by a pending call would otherwise hide that call), a `function_call` step whose id
 * an earlier `function_result` already answered (`duplicate_call_id`: its result could not be told
 * apart from that one), a missing (`missing_call_id`) step id, an empty name (`empty_tool_name`),
 * `arguments` that are not an object, more than `MAX_INTERACTION_STEPS` (100,000) steps (refused
 * before any is read, as the OpenAI adapter refuses more than `MAX_RESPONSE_OUTPUT_ITEMS` output
 * items), or more than `maxCalls` calls (`too_many_calls`); and
 * (`INVALID_ARGUMENTS`) for arguments over the size limits or holding a value JSON cannot express.
 *
 * Every field that decides whether a call is pending (the interaction's `status` and `steps`, a
 * step's `type`, a `function_result`'s `call_id`) is read with `readRefusalField`: one defined as a
 * getter or reachable only through the prototype chain refuses the interaction as malformed
 * instead of reading as absent. The collector keeps a private, deeply frozen copy of each call's
 * arguments, taken while checking them: the call carries it as `arguments.value` (so it cannot be
 * changed through the call) and the stateless continuation echoes fresh copies of it. Arguments
 * the dispatcher will refuse for their content (`1e400` parsed as Infinity, a `__proto__` key)
 * have no copy: that call carries the SDK's object.
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
      // A finished interaction may carry no steps at all (absent, not `null`): no calls.
      if (steps === undefined && !awaitsResults) return null;
      if (!Array.isArray(steps)) return rejectMalformedToolCall('malformed_response');
      // Read once and checked before the loop, which never reads it again: a Proxy cannot claim
      // few steps for the check and many for the walk. A real array's length is always an integer;
      // anything else (only a Proxy answers so) is refused without being converted.
      const list: readonly unknown[] = steps;
      const count: unknown = list.length;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_INTERACTION_STEPS) {
        return rejectMalformedToolCall('malformed_response');
      }

      // First pass, in step order: which calls a later function_result answers, and no call id
      // used twice. A result answers only a call made before it: one placed before its call (or
      // naming no call of this interaction) cannot answer it. A result naming no earlier call
      // answers a call of an earlier interaction: the timeline of an interaction continued with
      // `previous_interaction_id` holds the client's function_result input steps, whose calls are
      // in the previous interaction. It answers nothing here, and its call id stays taken.
      const answered = new Set<string>();
      const callIds = new Set<string>();
      const answeredBefore = new Set<string>();
      // Each step, its type and a call's id are read once, here: the second pass works from what
      // this one checked (a Proxy could answer a second read differently).
      const calls: { readonly step: object; readonly callId: unknown }[] = [];
      for (let index = 0; index < count; index++) {
        const step = readOwnData(list, index);
        if (typeof step !== 'object' || step === null) return rejectMalformedToolCall('malformed_response');
        const type = readRefusalField(step, 'type');
        // A hidden type could make a call vanish, or an answer: refused, never skipped.
        if (type === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
        if (type === 'function_result') {
          const answers = readRefusalField(step, 'call_id');
          if (typeof answers !== 'string') return rejectMalformedToolCall('malformed_response');
          if (callIds.has(answers)) answered.add(answers);
          else answeredBefore.add(answers);
        } else if (type === 'function_call') {
          const callId = readOwnData(step, 'id');
          calls.push({ step, callId });
          if (typeof callId === 'string' && callId !== '') {
            // An id already used by a call, or already answered earlier in this timeline: a result
            // sent for it could not be told apart from the one given before.
            if (callIds.has(callId) || answeredBefore.has(callId)) return rejectMalformedToolCall('duplicate_call_id');
            callIds.add(callId);
          }
        }
      }

      let pending = 0;
      for (const { step, callId } of calls) {
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
        pending++;
      }
      // `requires_action` says the model waits for function results: with no pending call, the
      // interaction contradicts itself (a call hidden from this parser, or answered by a result
      // that should not be there), and answering nothing would stall it.
      if (awaitsResults && pending === 0) return rejectMalformedToolCall('malformed_response');
      return null;
    },
    // The stateless continuation echoes the arguments: copies of this frozen copy, never the SDK's object.
    { keepArgumentCopies: true },
  );
}
