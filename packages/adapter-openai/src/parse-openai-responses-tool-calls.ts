import {
  collectToolCalls,
  HIDDEN_FIELD,
  isDisplaySafeIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  readOwnData,
  readRefusalField,
  rejectMalformedToolCall,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { ParseToolCallsOutcome } from '@toolseal/contracts';
import {
  MAX_OPENAI_CALL_ID_LENGTH,
  MAX_RESPONSE_OUTPUT_ITEMS,
  type OpenAIResponsesResponse,
} from './openai-responses-api.js';
import { OPENAI_RESPONSES_DEFAULT_SETTINGS } from './openai-responses-default-settings.js';

/**
 * Whether a `function_call` item is one `parseToolCalls` takes: finished (its own `status` absent
 * or `completed`: an unfinished item may have cut its arguments short), not namespaced (the
 * registry could not tell it from a plain function of the same name), made directly by the model
 * (no `caller`, or `{ type: "direct" }`: a call a program the model wrote made belongs to that
 * program's item, which a stateless continuation would have to echo with it), and with an item id
 * as well formed as a call id, or none (it goes back to OpenAI in a stateless continuation).
 * A hidden field (`readRefusalField`) is none of these. Returns the item id as read once and
 * checked (`undefined` or `null` when absent), or `false` for an item `parseToolCalls` refuses:
 * callers use that value, never a second read. Also what a stateless continuation checks the
 * items it echoes against.
 */
export function acceptedFunctionCallItemId(item: object): string | null | undefined | false {
  if (!isFinished(readRefusalField(item, 'status'))) return false;
  const namespace = readRefusalField(item, 'namespace');
  if (namespace !== undefined && namespace !== null) return false;
  const caller = readRefusalField(item, 'caller');
  if (caller !== undefined && caller !== null && readOwnData(caller, 'type') !== 'direct') return false;
  const itemId = readRefusalField(item, 'id');
  if (itemId === undefined || itemId === null) return itemId;
  return isDisplaySafeIdentifier(itemId, MAX_PROVIDER_ID_LENGTH) ? (itemId as string) : false;
}

/** A `status` (of the response or of an item) under which its function calls are finished. */
function isFinished(status: unknown): boolean {
  // Absent means finished (older payloads omit it); a hidden status (HIDDEN_FIELD) is not.
  return status === undefined || status === 'completed';
}

/**
 * Parses the `function_call` output items of a Responses API response into `ToolCall`s, in output
 * order, with `arguments` as the untouched JSON text (`json_text`): the dispatcher parses it per
 * tool with the guard. Other item types are ignored.
 *
 * The response is untrusted and validated by hand: it never throws. The whole response is refused
 * (`MALFORMED_TOOL_CALL`) for a missing response id, more than 100,000 output items
 * (`MAX_RESPONSE_OUTPUT_ITEMS`, checked with `output.length` read once before any item is read; a
 * length that is not a non-negative integer, which only a Proxy answers, is refused unconverted),
 * a repeated or missing call id, a call id over 64 characters (`MAX_OPENAI_CALL_ID_LENGTH`: OpenAI takes no
 * longer one back in a `function_call_output`, so the call could run but never be answered), a
 * malformed item id (it is echoed in a stateless continuation), an empty
 * name, a function call in an unfinished response (`status` present and other than `completed`:
 * `incomplete` after `max_output_tokens`, `in_progress`, `queued`, `failed`, `cancelled`) or an
 * unfinished item (its own `status` other than `completed`): either may have its arguments cut
 * short; a namespaced function (the registry knows bare names only), a call made by a program
 * rather than directly by the model (`caller.type` other than `direct`) or more than `maxCalls`
 * calls; and (`INVALID_ARGUMENTS`, `max_bytes`) for arguments over `maxArgumentBytes`, checked
 * before anything reads the text. A response without function calls gives no calls, whatever its
 * status.
 *
 * Every field whose presence or value refuses the response (the response `status`; an item's
 * `type`, `status`, `namespace`, `caller`, `id`) is read with `readRefusalField`: one defined as a
 * getter or reachable only through the prototype chain refuses the response as malformed instead
 * of reading as absent, so it cannot hide an unfinished call or make one vanish.
 */
export function parseOpenAIResponsesToolCalls(
  response: OpenAIResponsesResponse,
  settings: AdapterSettings = OPENAI_RESPONSES_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(response, 'id', settings, (checked, collector) => {
    const output = readOwnData(checked, 'output');
    if (!Array.isArray(output)) return rejectMalformedToolCall('malformed_response');
    // Read once and checked before the loop, which never reads it again: a Proxy cannot claim a
    // short output for the check and a long one for the walk. A real array's length is always an
    // integer; anything else (only a Proxy answers so) is refused without being converted.
    const items: readonly unknown[] = output;
    const count: unknown = items.length;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_RESPONSE_OUTPUT_ITEMS) {
      return rejectMalformedToolCall('malformed_response');
    }
    const responseStatus = readRefusalField(checked, 'status');
    if (responseStatus === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
    const responseFinished = isFinished(responseStatus);
    // Item ids of the calls: a stateless continuation echoes them, and OpenAI takes no two alike.
    // A list, not a set: at most `maxCalls` (64) calls, and a turn usually has one.
    const itemIds: string[] = [];
    for (let index = 0; index < count; index++) {
      const item = readOwnData(items, index);
      if (typeof item !== 'object' || item === null) return rejectMalformedToolCall('malformed_response');
      const type = readRefusalField(item, 'type');
      // A hidden type could make a call vanish: refused, never skipped.
      if (type === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
      if (type !== 'function_call') continue;
      // An unfinished response may have cut this call's arguments short.
      const itemId = responseFinished ? acceptedFunctionCallItemId(item) : false;
      if (itemId === false) return rejectMalformedToolCall('malformed_response');
      const text = readOwnData(item, 'arguments');
      if (typeof text !== 'string') return rejectMalformedToolCall('malformed_response');
      const rejection = collector.add(readOwnData(item, 'call_id'), readOwnData(item, 'name'), {
        format: 'json_text',
        text,
      });
      if (rejection !== null) return rejection;
      // After the call id's own checks: a repeated call id is reported as such.
      if (typeof itemId === 'string') {
        if (itemIds.includes(itemId)) return rejectMalformedToolCall('malformed_response');
        itemIds.push(itemId);
      }
    }
    return null;
  }, { maxCallIdLength: MAX_OPENAI_CALL_ID_LENGTH });
}
