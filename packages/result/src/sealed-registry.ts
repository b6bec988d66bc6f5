// Internal to @toolseal/result: which projections this module's own `sealResult` produced.
//
// `sealResult` builds both projections from values it owns (the handler's data is a private copy
// parsed from its canonical text; everything else is assembled here) and deep-freezes them, so
// they can never change afterwards and hold no accessor. For those objects the canonical text
// computed at sealing stays exact, and a verifier may hash that text and validate the object
// itself, instead of canonicalizing it again and parsing a copy back (about 4 µs per call).
// Anything else (a copy, a value read from a store, an object of another copy of this package)
// is simply not found here and takes the full path.

const sealedModelResults = new WeakMap<object, string>();
const sealedAudits = new WeakSet<object>();

/** Freezes a plain JSON value built by this package, every level (iteratively). */
function deepFreeze(root: object): void {
  const pending: object[] = [root];
  while (pending.length > 0) {
    const next = pending.pop() as object;
    Object.freeze(next);
    if (Array.isArray(next)) {
      for (const child of next as unknown[]) if (typeof child === 'object' && child !== null) pending.push(child);
    } else {
      const record = next as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const child = record[key];
        if (typeof child === 'object' && child !== null) pending.push(child);
      }
    }
  }
}

/** Freezes both projections of a package `sealResult` built, and records the model text. */
export function registerSealed(modelResult: object, canonicalModelResult: string, protectedAudit: object): void {
  deepFreeze(modelResult);
  deepFreeze(protectedAudit);
  sealedModelResults.set(modelResult, canonicalModelResult);
  sealedAudits.add(protectedAudit);
}

/** The canonical text of a `model_result` `sealResult` produced (frozen since), else `undefined`. */
export function sealedTextOf(modelResult: unknown): string | undefined {
  return typeof modelResult === 'object' && modelResult !== null ? sealedModelResults.get(modelResult) : undefined;
}

/** True for a `protected_audit` `sealResult` produced (frozen since). */
export function isSealedAudit(protectedAudit: unknown): boolean {
  return typeof protectedAudit === 'object' && protectedAudit !== null && sealedAudits.has(protectedAudit);
}
