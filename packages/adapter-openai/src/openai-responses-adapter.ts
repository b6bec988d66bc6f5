import { createProviderAdapter, type AdapterOptions } from '@toolseal/adapter-core';
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
  return createProviderAdapter(
    {
      provider: OPENAI_PROVIDER,
      apiFamily: OPENAI_RESPONSES_API_FAMILY,
      adapterRevision: OPENAI_RESPONSES_ADAPTER_REVISION,
      parseToolCalls: parseOpenAIResponsesToolCalls,
      formatToolResults: convertToOpenAIResponsesFunctionCallOutputs,
    },
    options,
  );
}
