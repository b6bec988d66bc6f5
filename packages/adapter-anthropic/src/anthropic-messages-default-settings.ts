import { resolveAdapterSettings } from '@toolseal/adapter-core';
import {
  ANTHROPIC_MESSAGES_ADAPTER_REVISION,
  ANTHROPIC_MESSAGES_API_FAMILY,
  ANTHROPIC_PROVIDER,
} from './anthropic-messages-api.js';

/**
 * The settings of an Anthropic Messages adapter created without options: what its parser and
 * converter use when called directly.
 */
export const ANTHROPIC_MESSAGES_DEFAULT_SETTINGS = resolveAdapterSettings(
  ANTHROPIC_PROVIDER,
  ANTHROPIC_MESSAGES_API_FAMILY,
  ANTHROPIC_MESSAGES_ADAPTER_REVISION,
);
