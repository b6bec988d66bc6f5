import {
  correlateToolResults,
  formatOptionsOf,
  isWellFormedIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  type AdapterSettings,
} from '@toolseal/adapter-core';
import type { FormatToolResultsInput, FormatToolResultsOutcome } from '@toolseal/contracts';
import {
  ANTHROPIC_TOOL_USE_ID_PATTERN,
  MAX_MESSAGE_CONTENT_BLOCKS,
  type AnthropicMessagesFormatOptions,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolResultMessage,
} from './anthropic-messages-api.js';
import { ANTHROPIC_MESSAGES_DEFAULT_SETTINGS } from './anthropic-messages-default-settings.js';
import { isAnthropicToolUseId } from './is-anthropic-tool-use-id.js';

function textBlocks(options: AnthropicMessagesFormatOptions): AnthropicTextBlock[] {
  const text: unknown = options.text ?? [];
  if (!Array.isArray(text)) throw new TypeError('options.text must be an array of non-empty strings');
  // Read once and bounded before the loop, as the OpenAI adapter bounds a `responseOutput`: a
  // Proxy cannot grow the array during the walk, nor make it walk billions of entries. A real
  // array's length is always an integer; anything else is refused without being converted.
  const entries: readonly unknown[] = text;
  const count: unknown = entries.length;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    throw new TypeError('options.text must be an array of non-empty strings');
  }
  if (count > MAX_MESSAGE_CONTENT_BLOCKS) {
    throw new TypeError(`options.text must hold at most ${MAX_MESSAGE_CONTENT_BLOCKS} entries`);
  }
  const blocks: AnthropicTextBlock[] = [];
  // An index loop: a hole is refused like any other entry that is no text (`some` skips holes).
  // The Messages API refuses text blocks of whitespace only, so they are refused here too.
  for (let index = 0; index < count; index++) {
    const entry: unknown = entries[index];
    if (typeof entry !== 'string' || entry.trim() === '') {
      throw new TypeError('options.text must be an array of non-empty strings, not whitespace only');
    }
    blocks.push({ type: 'text', text: entry });
  }
  return blocks;
}

/**
 * Serializes one turn's verified results as the next Anthropic user message: one `tool_result`
 * block per `tool_use`, in call order, each holding one text block with the RFC 8785 canonical JSON
 * text of `model_result` and nothing else, `is_error` always present, `true` when the status is not `succeeded`; then
 * `options.text`, if any, as ordinary text blocks after every tool result (the API requires tool
 * results first).
 *
 * Every result is correlated by `protected_audit.provider_context.call_id`, checked against this
 * adapter's provider, API family and accepted revisions, and verified with `verify`; any refusal
 * refuses the whole turn. A `tool_use` without a result is an error (`missing_result`), never a
 * silently shorter message.
 *
 * Never throws on bad results. Throws a `TypeError` on host misuse: `options` or `calls` missing or
 * not what they must be (`options` is an object, `{}` without extra text), no calls, calls from
 * several messages, empty extra text, extra text of more than `MAX_MESSAGE_CONTENT_BLOCKS` entries
 * (checked, with its length read once, before anything is verified), or a call id Anthropic does
 * not take back as a `tool_use_id` (outside `ANTHROPIC_TOOL_USE_ID_PATTERN` or over 256 characters:
 * `parseToolCalls` never returns such a call, and the API would answer the message with a 400).
 */
export function convertToAnthropicToolResults(
  input: FormatToolResultsInput<AnthropicMessagesFormatOptions>,
  settings: AdapterSettings = ANTHROPIC_MESSAGES_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<AnthropicToolResultMessage> {
  const text = textBlocks(formatOptionsOf(input));
  const correlated = correlateToolResults(settings.identity, input, settings.limits);
  if (!correlated.ok) return correlated;
  // Anthropic answers such a tool_use_id with a 400: a call parseToolCalls refused, built by the host.
  for (const { call } of correlated.results) {
    const callId: unknown = call.call_id;
    if (!isWellFormedIdentifier(callId, MAX_PROVIDER_ID_LENGTH) || !isAnthropicToolUseId(callId)) {
      throw new TypeError(
        `formatToolResults: call id ${JSON.stringify(String(callId).slice(0, 80))} is not one Anthropic takes back ` +
          `(${ANTHROPIC_TOOL_USE_ID_PATTERN}, at most ${MAX_PROVIDER_ID_LENGTH} characters): calls must come from parseToolCalls`,
      );
    }
  }
  const results = correlated.results.map(
    (result): AnthropicToolResultBlock => ({
      type: 'tool_result',
      tool_use_id: result.call.call_id,
      content: [{ type: 'text', text: result.modelResultText }],
      is_error: result.isError,
    }),
  );
  return { ok: true, payload: { role: 'user', content: [...results, ...text] } };
}
