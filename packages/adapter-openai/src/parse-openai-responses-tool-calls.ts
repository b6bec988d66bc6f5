import { collectToolCalls, readOwnData, rejectMalformedToolCall, type AdapterSettings } from '@toolseal/adapter-core';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import type { OpenAIResponsesResponse } from './openai-responses-api.js';
import { OPENAI_RESPONSES_DEFAULT_SETTINGS } from './openai-responses-default-settings.js';

/**
 * Parses the `function_call` output items of a Responses API response into `ToolCall`s, in output
 * order, with `arguments` as the untouched JSON text (`json_text`): the dispatcher parses it per
 * tool with the guard. Other item types are ignored.
 *
 * The response is untrusted and validated by hand: it never throws. The whole response is refused
 * (`MALFORMED_TOOL_CALL`) for a missing response id, a repeated or missing call id, an empty name,
 * an item that is not finished (`status` other than `completed`: its arguments may be cut short),
 * a namespaced function (the registry knows bare names only), a call made by a program rather than
 * directly by the model (`caller.type` other than `direct`) or more than `maxCalls` calls, and
 * (`INVALID_ARGUMENTS`, `max_bytes`) for arguments over
 * `maxArgumentBytes`, checked before anything reads the text.
 */
export function parseOpenAIResponsesToolCalls(
  response: OpenAIResponsesResponse,
  settings: AdapterSettings = OPENAI_RESPONSES_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(response, 'id', settings, (checked, collector) => {
    const output = readOwnData(checked, 'output');
    if (!Array.isArray(output)) return rejectMalformedToolCall('malformed_response');
    for (let index = 0; index < output.length; index++) {
      const item = readOwnData(output, index);
      if (typeof item !== 'object' || item === null) return rejectMalformedToolCall('malformed_response');
      if (readOwnData(item, 'type') !== 'function_call') continue;
      const status = readOwnData(item, 'status');
      if (status !== undefined && status !== 'completed') {
        return rejectMalformedToolCall('malformed_response');
      }
      // A namespaced function cannot be told apart from a plain one of the same name by the
      // registry, so it is refused rather than routed by its bare name.
      const namespace = readOwnData(item, 'namespace');
      if (namespace !== undefined && namespace !== null) {
        return rejectMalformedToolCall('malformed_response');
      }
      // A call made by a program the model wrote (`caller.type: "program"`) belongs to that
      // program's item, which a stateless continuation would have to echo with it; only direct
      // calls (no caller, or `{ type: "direct" }`) are accepted.
      const caller = readOwnData(item, 'caller');
      if (caller !== undefined && caller !== null && readOwnData(caller, 'type') !== 'direct') {
        return rejectMalformedToolCall('malformed_response');
      }
      const text = readOwnData(item, 'arguments');
      if (typeof text !== 'string') return rejectMalformedToolCall('malformed_response');
      const rejection = collector.add(readOwnData(item, 'call_id'), readOwnData(item, 'name'), {
        format: 'json_text',
        text,
      });
      if (rejection !== null) return rejection;
    }
    return null;
  });
}
