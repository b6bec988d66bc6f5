import { resolveAdapterSettings } from '@toolseal/adapter-core';
import {
  OPENAI_PROVIDER,
  OPENAI_RESPONSES_ADAPTER_REVISION,
  OPENAI_RESPONSES_API_FAMILY,
} from './openai-responses-api.js';

/**
 * The settings of an OpenAI Responses adapter created without options: what its parser and
 * converter use when called directly.
 */
export const OPENAI_RESPONSES_DEFAULT_SETTINGS = resolveAdapterSettings(
  OPENAI_PROVIDER,
  OPENAI_RESPONSES_API_FAMILY,
  OPENAI_RESPONSES_ADAPTER_REVISION,
);
