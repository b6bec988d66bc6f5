/** Who an adapter is: written into every `ToolCall` it parses and checked on every result. */
export interface AdapterIdentity {
  readonly provider: string;
  readonly apiFamily: string;
  /** The revision written into parsed calls. */
  readonly adapterRevision: string;
  /**
   * Revisions whose calls and results this adapter serializes: its own, plus any the host lists
   * for a rolling upgrade (replicas on the previous revision still parse calls while this one
   * already formats results). List only revisions with the same wire format.
   */
  readonly acceptedAdapterRevisions: ReadonlySet<string>;
}

const REVISION_PATTERN = /^[\x21-\x7e]{1,64}$/;

/**
 * Builds a frozen identity. Throws a `TypeError` for an accepted revision that is not 1 to 64
 * printable ASCII characters: a misconfigured host.
 */
export function createAdapterIdentity(
  provider: string,
  apiFamily: string,
  adapterRevision: string,
  acceptedAdapterRevisions: readonly string[] = [],
): AdapterIdentity {
  const accepted = new Set<string>([adapterRevision]);
  for (const revision of acceptedAdapterRevisions) {
    if (typeof revision !== 'string' || !REVISION_PATTERN.test(revision)) {
      throw new TypeError('acceptedAdapterRevisions must hold 1 to 64 printable ASCII characters each');
    }
    accepted.add(revision);
  }
  return Object.freeze({ provider, apiFamily, adapterRevision, acceptedAdapterRevisions: accepted });
}
