import { createProviderAdapter, type AdapterOptions } from '@toolseal/adapter-core';
import type { ProviderAdapter } from '@toolseal/contracts';
import { convertToGeminiFunctionResults } from './convert-to-gemini-function-results.js';
import {
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_PROVIDER,
  type GeminiInteractionsFormatOptions,
  type GeminiInteractionsPayload,
  type GeminiInteractionsResponse,
} from './gemini-interactions-api.js';
import { parseGeminiInteractionsToolCalls } from './parse-gemini-interactions-tool-calls.js';

/** The Gemini Interactions adapter. */
export type GeminiInteractionsAdapter = ProviderAdapter<
  GeminiInteractionsResponse,
  GeminiInteractionsPayload,
  GeminiInteractionsFormatOptions
>;

/** Options of `createGeminiInteractionsAdapter`. */
export type GeminiInteractionsAdapterOptions = AdapterOptions;

/**
 * Creates the Gemini Interactions adapter (`gemini` / `interactions` / `gemini-interactions-v1`).
 * Options are resolved once; a bad option throws a `TypeError` here, never later.
 */
export function createGeminiInteractionsAdapter(
  options: GeminiInteractionsAdapterOptions = {},
): GeminiInteractionsAdapter {
  return createProviderAdapter(
    {
      provider: GEMINI_PROVIDER,
      apiFamily: GEMINI_INTERACTIONS_API_FAMILY,
      adapterRevision: GEMINI_INTERACTIONS_ADAPTER_REVISION,
      parseToolCalls: parseGeminiInteractionsToolCalls,
      formatToolResults: convertToGeminiFunctionResults,
    },
    options,
  );
}
