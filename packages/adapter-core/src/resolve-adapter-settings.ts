import { checkOptionObject } from './check-option-object.js';
import { createAdapterIdentity, type AdapterIdentity } from './create-adapter-identity.js';
import {
  resolveToolCallLimits,
  type ToolCallLimitOptions,
  type ToolCallLimits,
} from './resolve-tool-call-limits.js';

/** What a host may configure on an adapter. */
export interface AdapterOptions extends ToolCallLimitOptions {
  /**
   * Earlier revisions of this adapter whose calls and results it still serializes during a rolling
   * upgrade: an array of revisions (a single revision goes in an array too). Default: none, only the
   * adapter's own revision.
   */
  acceptedAdapterRevisions?: readonly string[];
}

/** Identity and bounds, resolved once when the adapter is created. */
export interface AdapterSettings {
  readonly identity: AdapterIdentity;
  readonly limits: ToolCallLimits;
}

/** Every key of `AdapterOptions`. */
const ADAPTER_OPTIONS: readonly string[] = ['maxCalls', 'maxArgumentBytes', 'argumentLimits', 'acceptedAdapterRevisions'];

/**
 * Resolves `options` once; throws a `TypeError` naming the option on a misconfiguration: `options`
 * that are not a plain object (`null`, a string, an array, a class instance), a key that is no
 * `AdapterOptions` key, `acceptedAdapterRevisions` that is not an array of revisions (a string would
 * otherwise be read character by character, each character an accepted revision), `argumentLimits`
 * that is not a plain object of known limits, or a bound that is not a positive safe integer.
 */
export function resolveAdapterSettings(
  provider: string,
  apiFamily: string,
  adapterRevision: string,
  options: AdapterOptions = {},
): AdapterSettings {
  checkOptionObject('adapter options', options, ADAPTER_OPTIONS);
  const { acceptedAdapterRevisions, ...limitOptions } = options;
  return Object.freeze({
    identity: createAdapterIdentity(provider, apiFamily, adapterRevision, acceptedAdapterRevisions),
    limits: resolveToolCallLimits(limitOptions),
  });
}
