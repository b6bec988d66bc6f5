// Internal to @toolseal/result.

/**
 * Freezes a plain JSON value this package built, at every level (iteratively): `sealResult` makes
 * both projections immutable, so a verifier that is handed those very objects back knows they are
 * exactly what was validated and hashed.
 */
export function deepFreeze(root: object): void {
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
