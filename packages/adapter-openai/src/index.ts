export {
  createOpenAIResponsesAdapter,
  type OpenAIResponsesAdapter,
  type OpenAIResponsesAdapterOptions,
} from './openai-responses-adapter.js';
export { parseOpenAIResponsesToolCalls } from './parse-openai-responses-tool-calls.js';
export { convertToOpenAIResponsesFunctionCallOutputs } from './convert-to-openai-responses-function-call-outputs.js';
export {
  OPENAI_PROVIDER,
  OPENAI_RESPONSES_API_FAMILY,
  OPENAI_RESPONSES_ADAPTER_REVISION,
  type OpenAIResponsesResponse,
  type OpenAIResponsesOutputItem,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesPreviousResponsePayload,
  type OpenAIResponsesStatelessPayload,
  type OpenAIResponsesPayload,
  type OpenAIResponsesFormatOptions,
} from './openai-responses-api.js';
export { resolveAdapterSettings, type AdapterOptions, type AdapterSettings } from './resolve-adapter-settings.js';
export type { AdapterIdentity } from './create-adapter-identity.js';
export {
  DEFAULT_MAX_TOOL_CALLS,
  DEFAULT_MAX_ARGUMENT_BYTES,
  type ToolCallLimitOptions,
  type ToolCallLimits,
} from './resolve-tool-call-limits.js';
