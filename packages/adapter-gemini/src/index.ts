export {
  createGeminiInteractionsAdapter,
  type GeminiInteractionsAdapter,
  type GeminiInteractionsAdapterOptions,
} from './gemini-interactions-adapter.js';
export { parseGeminiInteractionsToolCalls } from './parse-gemini-interactions-tool-calls.js';
export { convertToGeminiFunctionResults } from './convert-to-gemini-function-results.js';
export {
  GEMINI_PROVIDER,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
  MAX_INTERACTION_STEPS,
  type GeminiInteractionsResponse,
  type GeminiStep,
  type GeminiTextContent,
  type GeminiFunctionResultStep,
  type GeminiFunctionCallStep,
  type GeminiPreviousInteractionPayload,
  type GeminiStatelessPayload,
  type GeminiInteractionsPayload,
  type GeminiInteractionsFormatOptions,
} from './gemini-interactions-api.js';
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
