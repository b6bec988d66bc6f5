export {
  createAnthropicMessagesAdapter,
  type AnthropicMessagesAdapter,
  type AnthropicMessagesAdapterOptions,
} from './anthropic-messages-adapter.js';
export { parseAnthropicMessagesToolCalls } from './parse-anthropic-messages-tool-calls.js';
export { convertToAnthropicToolResults } from './convert-to-anthropic-tool-results.js';
export {
  ANTHROPIC_PROVIDER,
  ANTHROPIC_MESSAGES_API_FAMILY,
  ANTHROPIC_MESSAGES_ADAPTER_REVISION,
  ANTHROPIC_TOOL_USE_ID_PATTERN,
  MAX_MESSAGE_CONTENT_BLOCKS,
  type AnthropicMessagesResponse,
  type AnthropicContentBlock,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolResultMessage,
  type AnthropicMessagesFormatOptions,
} from './anthropic-messages-api.js';
// The shared settings API, re-exported by name so hosts configure every adapter from its own package.
export {
  resolveAdapterSettings,
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_MAX_ARGUMENT_BYTES,
  type AdapterOptions,
  type AdapterSettings,
  type AdapterIdentity,
  type ToolCallLimitOptions,
  type ToolCallLimits,
} from '@toolseal/adapter-core';
