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
import { resolveAdapterSettings, type AdapterOptions } from './resolve-adapter-settings.js';

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
  const settings = resolveAdapterSettings(
    GEMINI_PROVIDER,
    GEMINI_INTERACTIONS_API_FAMILY,
    GEMINI_INTERACTIONS_ADAPTER_REVISION,
    options,
  );
  return Object.freeze({
    provider: GEMINI_PROVIDER,
    apiFamily: GEMINI_INTERACTIONS_API_FAMILY,
    adapterRevision: GEMINI_INTERACTIONS_ADAPTER_REVISION,
    parseToolCalls: (interaction: GeminiInteractionsResponse) => parseGeminiInteractionsToolCalls(interaction, settings),
    formatToolResults: (input: Parameters<GeminiInteractionsAdapter['formatToolResults']>[0]) =>
      convertToGeminiFunctionResults(input, settings),
  });
}
