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

/**
 * The pattern Anthropic requires of `tool_use.id` and `tool_result.tool_use_id`, as its 400 error
 * states it ("String should match pattern '^[a-zA-Z0-9_-]+$'"): ASCII letters, digits, `_` and
 * `-`. A string, not a `RegExp`, so no host can change it; test an id with
 * `new RegExp(ANTHROPIC_TOOL_USE_ID_PATTERN).test(id)`. `parseToolCalls` refuses a message with a
 * `tool_use` id outside it (or over 256 characters): the call could run, but its result could
 * never be sent back.
 */
export const ANTHROPIC_TOOL_USE_ID_PATTERN = '^[a-zA-Z0-9_-]+$';

/**
 * Most content blocks one message's `content` may hold, and most entries of
 * `AnthropicMessagesFormatOptions.text`: far above anything a message can carry (every block costs
 * output tokens, and `max_tokens` is bounded by the model's output limit), low enough that a proxied
 * or host-made array claiming billions of blocks is refused before any loop. The bound the OpenAI
 * adapter keeps on a response's output items (`MAX_RESPONSE_OUTPUT_ITEMS`), with the same refusal:
 * a longer `content` refuses the message (`MALFORMED_TOOL_CALL`, `malformed_response`), and longer
 * extra text is host misuse (`TypeError`).
 */
export const MAX_MESSAGE_CONTENT_BLOCKS = 100_000;

/** Any content block of a `Message`: only `type` is read before narrowing. */
export interface AnthropicContentBlock {
  readonly type: string;
}

/** The part of a Messages API `Message` the adapter reads. The SDK's `Message` is assignable. */
export interface AnthropicMessagesResponse {
  /** The message id (`msg_...`): the `response_id` of every call. */
  readonly id: string;
  /**
   * The content blocks; `tool_use` blocks are the tool calls, everything else is ignored. More than
   * `MAX_MESSAGE_CONTENT_BLOCKS` refuse the message before any is read.
   */
  readonly content: readonly AnthropicContentBlock[];
  /**
   * Why generation stopped. `tool_use` blocks are accepted under `tool_use` and `end_turn`, and
   * under `max_tokens` or `model_context_window_exceeded` unless one is the last block (it may be
   * cut off); under any other stop reason (`stop_sequence`, `refusal`, `pause_turn`, one this
   * adapter does not know) or none (`null` or absent: an unfinished stream snapshot) every
   * `tool_use` block refuses the message.
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
  /**
   * Ordinary user text to send in the same message, after every tool result. Each entry must be a
   * string with something besides whitespace (the Messages API refuses whitespace-only text); a
   * hole or any other entry, or more than `MAX_MESSAGE_CONTENT_BLOCKS` entries, throws a `TypeError`.
   */
  text?: readonly string[];
}
