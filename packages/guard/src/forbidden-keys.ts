/**
 * Keys rejected anywhere in untrusted JSON, compared after escapes are decoded (`"\u005f_proto__"`
 * is `__proto__`). They can reach prototype pollution in code that later merges or assigns the
 * value, and no contract needs them.
 */
export const FORBIDDEN_KEYS: readonly string[] = Object.freeze(['__proto__', 'constructor', 'prototype']);

const FORBIDDEN = new Set(FORBIDDEN_KEYS);

/** True when `key` is one of `FORBIDDEN_KEYS`. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key);
}
