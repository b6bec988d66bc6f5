import type {
  FormatToolResultsInput,
  FormatToolResultsOutcome,
  ParseToolCallsOutcome,
  ProviderAdapter,
} from '@toolseal/contracts';
import { resolveAdapterSettings, type AdapterOptions, type AdapterSettings } from './resolve-adapter-settings.js';

/** What a provider package supplies to build its adapter: who it is and its two directions. */
export interface ProviderAdapterDefinition<TResponse, TPayload, TOptions> {
  readonly provider: string;
  readonly apiFamily: string;
  readonly adapterRevision: string;
  /** Parses one response with the resolved settings. Must never throw on bad input. */
  parseToolCalls(response: TResponse, settings: AdapterSettings): ParseToolCallsOutcome;
  /** Serializes one turn's verified results with the resolved settings. Must never throw on bad results. */
  formatToolResults(
    input: FormatToolResultsInput<TOptions>,
    settings: AdapterSettings,
  ): FormatToolResultsOutcome<TPayload>;
}

/**
 * Builds a frozen `ProviderAdapter` from a provider's definition. `options` are resolved once,
 * here: a bad option throws a `TypeError` at start-up, never on a request (see
 * `resolveAdapterSettings`), and so does a definition that is not an object with a well-formed
 * identity (`createAdapterIdentity`) and both directions as functions.
 */
export function createProviderAdapter<TResponse, TPayload, TOptions>(
  definition: ProviderAdapterDefinition<TResponse, TPayload, TOptions>,
  options: AdapterOptions = {},
): ProviderAdapter<TResponse, TPayload, TOptions> {
  const given: unknown = definition;
  if (typeof given !== 'object' || given === null) throw new TypeError('definition must be an object');
  if (typeof definition.parseToolCalls !== 'function' || typeof definition.formatToolResults !== 'function') {
    throw new TypeError('definition.parseToolCalls and definition.formatToolResults must be functions');
  }
  const { provider, apiFamily, adapterRevision } = definition;
  const settings = resolveAdapterSettings(provider, apiFamily, adapterRevision, options);
  return Object.freeze({
    provider,
    apiFamily,
    adapterRevision,
    parseToolCalls: (response: TResponse) => definition.parseToolCalls(response, settings),
    formatToolResults: (input: FormatToolResultsInput<TOptions>) => definition.formatToolResults(input, settings),
  });
}
