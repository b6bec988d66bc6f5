// Internal to @toolseal/result.

/**
 * Freezes a plain value this package built or copied, at every level (iteratively), and returns
 * it. An object that is already frozen is taken as frozen all the way down, as everything this
 * package freezes is. `sealResult` makes both projections immutable with it, so a verifier handed
 * those very objects back knows they are exactly what was validated and hashed; the registry
 * freezes its specs.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const next = pending.pop() as object;
    if (Object.isFrozen(next)) continue;
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
  return value;
}
