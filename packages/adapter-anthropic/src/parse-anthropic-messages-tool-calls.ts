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
import type { AnthropicMessagesResponse } from './anthropic-messages-api.js';
import { ANTHROPIC_MESSAGES_DEFAULT_SETTINGS } from './anthropic-messages-default-settings.js';

// Stop reasons after which the last block may be cut short (Anthropic: "Handle tool calls",
// max_tokens with an incomplete tool_use block must be retried, not executed).
const TRUNCATING_STOP_REASONS = new Set(['max_tokens', 'model_context_window_exceeded']);
// `refusal`: streaming classifiers stopped the output mid-stream, and the refused turn must be
// removed or rewritten before the conversation continues (Anthropic: "Streaming refusals";
// @anthropic-ai/sdk `StopReason`), so none of its tool_use blocks may run and be answered.
const REFUSED_STOP_REASON = 'refusal';
// `pause_turn`: the API paused a long-running turn (a server-tool loop reached its iteration limit);
// the documented continuation sends the assistant content back as it is, with nothing added, for the
// model to finish the turn (@anthropic-ai/sdk `Message.stop_reason`; Anthropic: "Handle stop
// reasons", "Server tools"). A tool_use block in a paused turn is not a finished request for a result:
// answering it would add the user message the continuation must not have, and the turn may still
// change it. The model's finished calls come with `tool_use`.
const PAUSED_STOP_REASON = 'pause_turn';

/**
 * Parses the `tool_use` content blocks of a Messages API message into `ToolCall`s, in content
 * order, with `arguments` as the SDK-parsed `input` object (`json_value`), checked against the
 * adapter's size limits; the dispatcher validates it per tool with the guard. Other block types
 * (text, thinking, server tool use, ...) are ignored.
 *
 * The message is untrusted and validated by hand: it never throws. The whole message is refused
 * (`MALFORMED_TOOL_CALL`) for a missing message id, a `stop_reason` that is neither a string nor
 * `null`, a repeated or missing block id, an empty name, an `input` that is not an object, a
 * toolset member (`toolset_name`: the registry knows bare names only), a call a server tool made
 * (`caller.type` other than `direct`), a last `tool_use` block cut off by `max_tokens` or
 * `model_context_window_exceeded`, any `tool_use` block of an unfinished message (`stop_reason`
 * `null` or absent: a stream snapshot, whose inputs may have lost trailing values), of a message
 * stopped with `refusal`, or of a turn paused with `pause_turn` (continued by sending it back
 * unchanged, never answered), or more than `maxCalls` calls; and (`INVALID_ARGUMENTS`) for an
 * `input` over the size limits or holding a value JSON cannot express. A message without
 * `tool_use` blocks gives no calls, whatever its stop reason.
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
    const unfinished = stopReason === undefined || stopReason === null;
    const truncated = typeof stopReason === 'string' && TRUNCATING_STOP_REASONS.has(stopReason);
    const refusedOrPaused = stopReason === REFUSED_STOP_REASON || stopReason === PAUSED_STOP_REASON;
    const blocks: readonly unknown[] = content;
    const count = blocks.length;
    for (let index = 0; index < count; index++) {
      const block = readOwnData(blocks, index);
      if (typeof block !== 'object' || block === null) return rejectMalformedToolCall('malformed_response');
      const type = readRefusalField(block, 'type');
      // A hidden type could make a tool_use block vanish: refused, never skipped.
      if (type === HIDDEN_FIELD) return rejectMalformedToolCall('malformed_response');
      if (type !== 'tool_use') continue;
      if (unfinished || refusedOrPaused) return rejectMalformedToolCall('malformed_response');
      if (truncated && index === count - 1) return rejectMalformedToolCall('malformed_response');
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
      const rejection = collector.add(readOwnData(block, 'id'), readOwnData(block, 'name'), {
        format: 'json_value',
        value: input,
      });
      if (rejection !== null) return rejection;
    }
    return null;
  });
}
