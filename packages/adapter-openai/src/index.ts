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
  MAX_RESPONSE_OUTPUT_ITEMS,
  MAX_OPENAI_CALL_ID_LENGTH,
  MAX_FUNCTION_CALL_OUTPUT_LENGTH,
  type OpenAIResponsesResponse,
  type OpenAIResponsesOutputItem,
  type OpenAIResponsesFunctionCall,
  type OpenAIResponsesFunctionCallOutput,
  type OpenAIResponsesPreviousResponsePayload,
  type OpenAIResponsesStatelessPayload,
  type OpenAIResponsesPayload,
  type OpenAIResponsesFormatOptions,
} from './openai-responses-api.js';
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
