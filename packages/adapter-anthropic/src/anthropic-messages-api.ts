// Wire types of the Anthropic Messages API, as far as this adapter reads or writes them.
// Source: @anthropic-ai/sdk 1.14.0 `resources/messages/messages.d.ts` (`Message`, `ToolUseBlock`,
// `ToolResultBlockParam`, `TextBlockParam`, `UserMessageParam`). The SDK's `Message` is assignable
// to the input type and the output types satisfy the SDK's parameter types (see `*.test-d.ts`).

/** The provider name this adapter writes into every `ToolCall`. */
export const ANTHROPIC_PROVIDER = 'anthropic';
/** The API family this adapter writes into every `ToolCall`. */
export const ANTHROPIC_MESSAGES_API_FAMILY = 'messages';
/** This adapter's revision: bound into every call digest it serializes results for. */
export const ANTHROPIC_MESSAGES_ADAPTER_REVISION = 'anthropic-messages-v1';

/** Any content block of a `Message`: only `type` is read before narrowing. */
export interface AnthropicContentBlock {
  readonly type: string;
}

/** The part of a Messages API `Message` the adapter reads. The SDK's `Message` is assignable. */
export interface AnthropicMessagesResponse {
  /** The message id (`msg_...`): the `response_id` of every call. */
  readonly id: string;
  /** The content blocks; `tool_use` blocks are the tool calls, everything else is ignored. */
  readonly content: readonly AnthropicContentBlock[];
  /**
   * Why generation stopped; a last `tool_use` block cut off by `max_tokens` or
   * `model_context_window_exceeded` is refused, and so is every `tool_use` block of a message
   * stopped with `refusal` or `pause_turn`, or without a stop reason (`null` or absent: the SDK sets
   * one on every finished message, so this is an unfinished stream snapshot).
   */
  readonly stop_reason?: string | null;
}

/** One text block (`TextBlockParam`). */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

/** One `tool_result` block (`ToolResultBlockParam`). */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  /** The `tool_use` block id this result answers. */
  tool_use_id: string;
  /** Exactly one text block: the RFC 8785 canonical JSON text of the verified `model_result`. */
  content: [AnthropicTextBlock];
  /** `true` when `model_result.status` is not `succeeded`. */
  is_error: boolean;
}

/**
 * The next user message (`MessageParam` with role `user`): one `tool_result` block per `tool_use`,
 * in call order, before any ordinary text. Append it after the assistant message that held the calls.
 */
export interface AnthropicToolResultMessage {
  role: 'user';
  content: Array<AnthropicToolResultBlock | AnthropicTextBlock>;
}

/** Options of the outbound turn. */
export interface AnthropicMessagesFormatOptions {
  /** Ordinary user text to send in the same message, after every tool result. Each must be non-empty. */
  text?: readonly string[];
}
