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
   * upgrade. Default: none, only the adapter's own revision.
   */
  acceptedAdapterRevisions?: readonly string[];
}

/** Identity and bounds, resolved once when the adapter is created. */
export interface AdapterSettings {
  readonly identity: AdapterIdentity;
  readonly limits: ToolCallLimits;
}

/** Resolves `options` once; throws a `TypeError` on a misconfiguration. */
export function resolveAdapterSettings(
  provider: string,
  apiFamily: string,
  adapterRevision: string,
  options: AdapterOptions = {},
): AdapterSettings {
  return Object.freeze({
    identity: createAdapterIdentity(provider, apiFamily, adapterRevision, options.acceptedAdapterRevisions),
    limits: resolveToolCallLimits(options),
  });
}
