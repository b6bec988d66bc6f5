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
  type AnthropicMessagesResponse,
  type AnthropicContentBlock,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolResultMessage,
  type AnthropicMessagesFormatOptions,
} from './anthropic-messages-api.js';
export { resolveAdapterSettings, type AdapterOptions, type AdapterSettings } from './resolve-adapter-settings.js';
export type { AdapterIdentity } from './create-adapter-identity.js';
export {
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_MAX_ARGUMENT_BYTES,
  type ToolCallLimitOptions,
  type ToolCallLimits,
} from './resolve-tool-call-limits.js';
