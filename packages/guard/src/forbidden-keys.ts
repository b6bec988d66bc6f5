/**
 * Keys rejected anywhere in untrusted JSON, compared after escapes are decoded (`"\u005f_proto__"`
 * is `__proto__`): `__proto__`, `constructor`, `prototype`, and every other name `Object.prototype`
 * has in ECMAScript (`toString`, `valueOf`, `hasOwnProperty`, `isPrototypeOf`,
 * `propertyIsEnumerable`, `toLocaleString` and the four legacy accessor methods). No contract needs
 * them, and each one is a trap:
 * - `__proto__`, `constructor` and `prototype` reach prototype pollution in code that later merges
 *   or assigns the value;
 * - the others shadow the method every object inherits, so host code reading an accepted value
 *   with it throws (`args.hasOwnProperty('x')`, `String(args)` on `{"toString": {}}`), and Ajv 8
 *   keeps the properties `unevaluatedProperties` has seen evaluated at run time in a plain object,
 *   reading `props[key]`: such a key counts as evaluated there, so `unevaluatedProperties: false`
 *   would let it through with any value below it, unchecked.
 * A fixed list, not read from `Object.prototype` when the module loads: what is refused must not
 * depend on what else the process has loaded.
 */
export const FORBIDDEN_KEYS: readonly string[] = Object.freeze([
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

const FORBIDDEN = new Set(FORBIDDEN_KEYS);

/** True when `key` is one of `FORBIDDEN_KEYS`. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN.has(key);
}
