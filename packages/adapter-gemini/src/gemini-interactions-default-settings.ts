import { resolveAdapterSettings } from '@toolseal/adapter-core';
import {
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_PROVIDER,
} from './gemini-interactions-api.js';

/**
 * The settings of a Gemini Interactions adapter created without options: what its parser and
 * converter use when called directly.
 */
export const GEMINI_INTERACTIONS_DEFAULT_SETTINGS = resolveAdapterSettings(
  GEMINI_PROVIDER,
  GEMINI_INTERACTIONS_API_FAMILY,
  GEMINI_INTERACTIONS_ADAPTER_REVISION,
);
