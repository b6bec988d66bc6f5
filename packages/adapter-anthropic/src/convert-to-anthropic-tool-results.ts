import { correlateToolResults, formatOptionsOf, type AdapterSettings } from '@toolseal/adapter-core';
import type { FormatToolResultsInput, FormatToolResultsOutcome } from '@toolseal/contracts';
import type {
  AnthropicMessagesFormatOptions,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolResultMessage,
} from './anthropic-messages-api.js';
import { ANTHROPIC_MESSAGES_DEFAULT_SETTINGS } from './anthropic-messages-default-settings.js';

function textBlocks(options: AnthropicMessagesFormatOptions): AnthropicTextBlock[] {
  const text = options.text ?? [];
  if (!Array.isArray(text) || text.some((entry) => typeof entry !== 'string' || entry.length === 0)) {
    throw new TypeError('options.text must be an array of non-empty strings');
  }
  return text.map((entry) => ({ type: 'text', text: entry }));
}

/**
 * Serializes one turn's verified results as the next Anthropic user message: one `tool_result`
 * block per `tool_use`, in call order, each holding one text block with the RFC 8785 canonical JSON
 * text of `model_result` and nothing else, `is_error` set when the status is not `succeeded`; then
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
 * several messages, or empty extra text.
 */
export function convertToAnthropicToolResults(
  input: FormatToolResultsInput<AnthropicMessagesFormatOptions>,
  settings: AdapterSettings = ANTHROPIC_MESSAGES_DEFAULT_SETTINGS,
): FormatToolResultsOutcome<AnthropicToolResultMessage> {
  const text = textBlocks(formatOptionsOf(input));
  const correlated = correlateToolResults(settings.identity, input, settings.limits);
  if (!correlated.ok) return correlated;
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
