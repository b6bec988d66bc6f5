import { createProviderAdapter, type AdapterOptions } from '@toolseal/adapter-core';
import type { ProviderAdapter } from '@toolseal/contracts';
import {
  ANTHROPIC_MESSAGES_ADAPTER_REVISION,
  ANTHROPIC_MESSAGES_API_FAMILY,
  ANTHROPIC_PROVIDER,
  type AnthropicMessagesFormatOptions,
  type AnthropicMessagesResponse,
  type AnthropicToolResultMessage,
} from './anthropic-messages-api.js';
import { convertToAnthropicToolResults } from './convert-to-anthropic-tool-results.js';
import { parseAnthropicMessagesToolCalls } from './parse-anthropic-messages-tool-calls.js';

/** The Anthropic Messages adapter. */
export type AnthropicMessagesAdapter = ProviderAdapter<
  AnthropicMessagesResponse,
  AnthropicToolResultMessage,
  AnthropicMessagesFormatOptions
>;

/** Options of `createAnthropicMessagesAdapter`. */
export type AnthropicMessagesAdapterOptions = AdapterOptions;

/**
 * Creates the Anthropic Messages adapter (`anthropic` / `messages` / `anthropic-messages-v1`).
 * Options are resolved once; a bad option throws a `TypeError` here, never later.
 */
export function createAnthropicMessagesAdapter(
  options: AnthropicMessagesAdapterOptions = {},
): AnthropicMessagesAdapter {
  return createProviderAdapter(
    {
      provider: ANTHROPIC_PROVIDER,
      apiFamily: ANTHROPIC_MESSAGES_API_FAMILY,
      adapterRevision: ANTHROPIC_MESSAGES_ADAPTER_REVISION,
      parseToolCalls: parseAnthropicMessagesToolCalls,
      formatToolResults: convertToAnthropicToolResults,
    },
    options,
  );
}
