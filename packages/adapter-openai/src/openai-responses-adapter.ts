import type { ProviderAdapter } from '@toolseal/contracts';
import { convertToOpenAIResponsesFunctionCallOutputs } from './convert-to-openai-responses-function-call-outputs.js';
import {
  OPENAI_PROVIDER,
  OPENAI_RESPONSES_ADAPTER_REVISION,
  OPENAI_RESPONSES_API_FAMILY,
  type OpenAIResponsesFormatOptions,
  type OpenAIResponsesPayload,
  type OpenAIResponsesResponse,
} from './openai-responses-api.js';
import { parseOpenAIResponsesToolCalls } from './parse-openai-responses-tool-calls.js';
import { resolveAdapterSettings, type AdapterOptions } from './resolve-adapter-settings.js';

/** The OpenAI Responses adapter. */
export type OpenAIResponsesAdapter = ProviderAdapter<
  OpenAIResponsesResponse,
  OpenAIResponsesPayload,
  OpenAIResponsesFormatOptions
>;

/** Options of `createOpenAIResponsesAdapter`. */
export type OpenAIResponsesAdapterOptions = AdapterOptions;

/**
 * Creates the OpenAI Responses adapter (`openai` / `responses` / `openai-responses-v1`). Options
 * are resolved once; a bad option throws a `TypeError` here, never later.
 */
export function createOpenAIResponsesAdapter(
  options: OpenAIResponsesAdapterOptions = {},
): OpenAIResponsesAdapter {
  const settings = resolveAdapterSettings(
    OPENAI_PROVIDER,
    OPENAI_RESPONSES_API_FAMILY,
    OPENAI_RESPONSES_ADAPTER_REVISION,
    options,
  );
  return Object.freeze({
    provider: OPENAI_PROVIDER,
    apiFamily: OPENAI_RESPONSES_API_FAMILY,
    adapterRevision: OPENAI_RESPONSES_ADAPTER_REVISION,
    parseToolCalls: (response: OpenAIResponsesResponse) => parseOpenAIResponsesToolCalls(response, settings),
    formatToolResults: (input: Parameters<OpenAIResponsesAdapter['formatToolResults']>[0]) =>
      convertToOpenAIResponsesFunctionCallOutputs(input, settings),
  });
}
