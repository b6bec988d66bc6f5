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
import { MAX_MESSAGE_CONTENT_BLOCKS, type AnthropicMessagesResponse } from './anthropic-messages-api.js';
import { ANTHROPIC_MESSAGES_DEFAULT_SETTINGS } from './anthropic-messages-default-settings.js';
import { isAnthropicToolUseId } from './is-anthropic-tool-use-id.js';

// Which stop reasons accept `tool_use` blocks is an allow-list: a stop reason this adapter does not
// know (added after @anthropic-ai/sdk 1.14.0, misspelt, or forged) refuses them, rather than being
// taken for a finished request for results.
//
// Accepted: `tool_use` ("the model invoked one or more tools") and `end_turn` (a natural stop: the
// model closed every block it began; some models report it with tool_use blocks, which must still
// be answered before the conversation continues).
//
// Accepted except for the last block: `max_tokens` and `model_context_window_exceeded` stop at a
// token budget, which can cut the last block short (Anthropic: "Handle tool calls", an incomplete
// tool_use block after max_tokens must be retried, not executed); a block followed by another was
// closed before the cut.
//
// Refused, with every other string and with none (`null` or absent, an unfinished stream snapshot
// whose input came from partial JSON):
// - `stop_sequence`: one of the host's custom stop sequences was generated. Anthropic does not say
//   where in the output a stop sequence may match; one matched inside a tool_use `input` could end
//   it with values missing, and the message says nothing about whether the model's calls were
//   finished. A model that asks for results stops with `tool_use`.
// - `refusal`: streaming classifiers stopped the output mid-stream, and the refused turn must be
//   removed or rewritten before the conversation continues (Anthropic: "Streaming refusals"), so
//   none of its tool_use blocks may run and be answered.
// - `pause_turn`: the API paused a long-running turn (a server-tool loop reached its iteration
//   limit); the documented continuation sends the assistant content back as it is, with nothing
//   added, for the model to finish the turn (Anthropic: "Handle stop reasons", "Server tools"). A
//   tool_use block in a paused turn is not a finished request for a result: answering it would add
//   the user message the continuation must not have, and the turn may still change it.
//
// Compared with `===` on string literals only: no lookup in an object or a Set a polluted
// prototype or a key such as `__proto__` could answer.

/** Every `tool_use` block of a message stopped this way asks for its result. */
function acceptsEveryToolUse(stopReason: string): boolean {
  return stopReason === 'tool_use' || stopReason === 'end_turn';
}

/** A message stopped this way may end with a block cut short: all but its last block are whole. */
function mayCutLastBlock(stopReason: string): boolean {
  return stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded';
}

/**
 * Parses the `tool_use` content blocks of a Messages API message into `ToolCall`s, in content
 * order, with `arguments` as the SDK-parsed `input` object (`json_value`), checked against the
 * adapter's size limits; the dispatcher validates it per tool with the guard. Other block types
 * (text, thinking, server tool use, ...) are ignored.
 *
 * The message is untrusted and validated by hand: it never throws. The whole message is refused
 * (`MALFORMED_TOOL_CALL`) for a missing message id, a `stop_reason` that is neither a string nor
 * `null`, a repeated or missing block id, a block id outside `ANTHROPIC_TOOL_USE_ID_PATTERN`
 * (`^[a-zA-Z0-9_-]+$`: Anthropic refuses any other `tool_result.tool_use_id`, so the call could run
 * but never be answered) or over 256 characters, an empty name, an `input` that is not an object, a
 * toolset member (`toolset_name`: the registry knows bare names only), a call a server tool made
 * (`caller.type` other than `direct`), any `tool_use` block of a message whose stop reason is not
 * on the allow-list (accepted: `tool_use`, `end_turn`; `max_tokens` and
 * `model_context_window_exceeded` except for a `tool_use` that is the last block, which they can
 * cut off; refused: `stop_sequence`, `refusal`, `pause_turn`, any other string, and `null` or
 * absent, an unfinished stream snapshot whose inputs may have lost trailing values), more than
 * `MAX_MESSAGE_CONTENT_BLOCKS` (100,000) content blocks (refused before any is read, as the OpenAI
 * adapter refuses more than `MAX_RESPONSE_OUTPUT_ITEMS` output items), or more than `maxCalls`
 * calls; and (`INVALID_ARGUMENTS`) for an `input` over the size limits or holding a value JSON
 * cannot express. A message without `tool_use` blocks gives no calls, whatever its stop reason.
 *
 * Every field whose value refuses the message (`stop_reason`; a block's `type`, `toolset_name`, `caller`)
 * is read with `readRefusalField`: one defined as a getter or reachable only through the prototype
 * chain refuses the message as malformed instead of reading as absent, so it cannot hide a cut-off
 * or refused turn or make a `tool_use` block vanish.
 */
export function parseAnthropicMessagesToolCalls(
  message: AnthropicMessagesResponse,
  settings: AdapterSettings = ANTHROPIC_MESSAGES_DEFAULT_SETTINGS,
): ParseToolCallsOutcome {
  return collectToolCalls(message, 'id', settings, (checked, collector) => {
    const content = readOwnData(checked, 'content');
    if (!Array.isArray(content)) return rejectMalformedToolCall('malformed_response');
    // Read once and checked before the loop, which never reads it again: a Proxy cannot claim a
    // short content for the check and a long one for the walk. A real array's length is always an
    // integer; anything else (only a Proxy answers so) is refused without being converted.
    const blocks: readonly unknown[] = content;
    const count: unknown = blocks.length;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_MESSAGE_CONTENT_BLOCKS) {
      return rejectMalformedToolCall('malformed_response');
    }
    const stopReason = readRefusalField(checked, 'stop_reason');
    // Type-exact: a string, or null/absent while the message is unfinished. Anything else (a hidden
    // field, `['max_tokens']`, an object with a `toString`) is malformed, never compared through a
    // conversion that could read it as one stop reason or another.
    if (stopReason !== undefined && stopReason !== null && typeof stopReason !== 'string') {
      return rejectMalformedToolCall('malformed_response');
    }
    // The SDK documents `stop_reason` as always non-null in non-streaming mode and null only in a
    // stream's `message_start`: a message without one is a stream snapshot taken before the end,
    // whose `input` was parsed from partial JSON (a cut `{"order_id":"ORDER-7","amount":1` parses
    // as `{"order_id":"ORDER-7"}`). Its tool_use blocks are refused, as OpenAI and Gemini refuse
    // calls of an unfinished response.
    const acceptsAll = typeof stopReason === 'string' && acceptsEveryToolUse(stopReason);
    const acceptsAllButLast = typeof stopReason === 'string' && mayCutLastBlock(stopReason);
    for (let index = 0; index < count; index++) {
      const block = readOwnData(blocks, index);
      if (typeof block !== 'object' || block === null) return rejectMalformedToolCall('malformed_response');
      const type = readRefusalField(block, 'type');
      // A hidden type could make a tool_use block vanish: refused, never skipped.
      if (type === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
      if (type !== 'tool_use') continue;
      // Allow-list: anything else (unknown, refused, or no stop reason) refuses the message.
      if (!acceptsAll && !(acceptsAllButLast && index !== count - 1)) {
        return rejectMalformedToolCall('malformed_response');
      }
      const toolsetName = readRefusalField(block, 'toolset_name');
      if (toolsetName !== undefined && toolsetName !== null) return rejectMalformedToolCall('malformed_response');
      // A call a server tool made on the model's behalf (`caller.type` such as
      // `code_execution_20250825`) belongs to that tool's run, whose result goes back another way;
      // only the model's own calls (`{ type: "direct" }`, or no caller in older payloads) are
      // accepted, as the OpenAI adapter accepts only `direct` callers. A hidden caller is neither.
      const caller = readRefusalField(block, 'caller');
      if (caller !== undefined && caller !== null && readOwnData(caller, 'type') !== 'direct') {
        return rejectMalformedToolCall('malformed_response');
      }
      const input = readOwnData(block, 'input');
      if (!isPlainObject(input)) return rejectMalformedToolCall('malformed_response');
      // Anthropic answers a tool_result whose tool_use_id is outside ^[a-zA-Z0-9_-]+$ with a 400:
      // such a call could run but never be answered, so the message is refused before it is
      // collected. A missing, empty or non-string id is left to the collector, which reports it.
      const callId = readOwnData(block, 'id');
      if (typeof callId === 'string' && callId !== '' && !isAnthropicToolUseId(callId)) {
        return rejectMalformedToolCall('malformed_response');
      }
      const rejection = collector.add(callId, readOwnData(block, 'name'), {
        format: 'json_value',
        value: input,
      });
      if (rejection !== null) return rejection;
    }
    return null;
  });
}
