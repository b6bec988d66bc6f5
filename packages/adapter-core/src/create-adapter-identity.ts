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

// `ProviderContext` (@toolseal/contracts): the patterns of `provider` and `api_family`, and the 1 to 64
// characters of `adapter_revision`, kept to printable ASCII.
const PROVIDER_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
const API_FAMILY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;
const REVISION_PATTERN = /^[\x21-\x7e]{1,64}$/;

function checkPattern(name: string, value: unknown, pattern: RegExp): void {
  if (typeof value !== 'string' || !pattern.test(value)) {
    throw new TypeError(`${name} must be a string matching ${String(pattern)}`);
  }
}

/**
 * Builds a frozen identity. Throws a `TypeError`, naming the argument, for a provider or API family
 * that does not match its `ProviderContext` pattern or a revision that is not 1 to 64 printable
 * ASCII characters (a bug in the adapter), and for `acceptedAdapterRevisions` that is not an array
 * of such revisions (a misconfigured host: a string would otherwise be read character by
 * character, each character an accepted revision).
 */
export function createAdapterIdentity(
  provider: string,
  apiFamily: string,
  adapterRevision: string,
  acceptedAdapterRevisions: readonly string[] = [],
): AdapterIdentity {
  checkPattern('provider', provider, PROVIDER_PATTERN);
  checkPattern('apiFamily', apiFamily, API_FAMILY_PATTERN);
  checkPattern('adapterRevision', adapterRevision, REVISION_PATTERN);
  const revisions: unknown = acceptedAdapterRevisions;
  if (!Array.isArray(revisions)) {
    throw new TypeError('acceptedAdapterRevisions must be an array of revisions (put a single revision in an array)');
  }
  const accepted = new Set<string>([adapterRevision]);
  const count = revisions.length;
  for (let index = 0; index < count; index++) {
    const revision: unknown = revisions[index];
    if (typeof revision !== 'string' || !REVISION_PATTERN.test(revision)) {
      throw new TypeError('acceptedAdapterRevisions must hold 1 to 64 printable ASCII characters each');
    }
    accepted.add(revision);
  }
  return Object.freeze({ provider, apiFamily, adapterRevision, acceptedAdapterRevisions: new RevisionSet(accepted) });
}

/**
 * The accepted revisions, read-only: a `Set` in a frozen identity could still be added to (its
 * entries are internal slots, which freezing does not reach), by `add` or by
 * `Set.prototype.add.call`, and correlation would then take a package sealed under the added
 * revision. This wraps a private set, which nothing outside can reach.
 */
class RevisionSet implements ReadonlySet<string> {
  readonly #revisions: ReadonlySet<string>;

  constructor(revisions: ReadonlySet<string>) {
    this.#revisions = revisions;
    Object.freeze(this);
  }

  get size(): number {
    return this.#revisions.size;
  }

  has(revision: string): boolean {
    return this.#revisions.has(revision);
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const revision of this.#revisions) callback.call(thisArg, revision, revision, this);
  }

  entries(): SetIterator<[string, string]> {
    return this.#revisions.entries();
  }

  keys(): SetIterator<string> {
    return this.#revisions.keys();
  }

  values(): SetIterator<string> {
    return this.#revisions.values();
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.#revisions.values();
  }
}
