/**
 * Throws a `TypeError` for an own enumerable member of `given` (the names `Object.keys` lists)
 * whose name is not in `known`, naming it and the known ones: `where: unknown option "extraKey"
 * (known options: extraKeys, allowKeys)`. A misspelt option or limit is otherwise simply never
 * read, and the call goes on with the default while its author believes it configured: a
 * sensitive-key scan without the extra names meant for it, a copy under the strict default, a
 * 1 MiB limit instead of 10 bytes. Every options object and limits object of the package is
 * checked with it: `resolveJsonLimits` (and every function that takes limits),
 * `createSensitiveKeyScanner` and `scanSensitiveKeys`, `copyUntrustedValue`, `createPinnedAjv`.
 *
 * The object must be plain (prototype `Object.prototype` or `null`): the options are read with
 * ordinary property reads, so an option inherited from a prototype, a class's getter included,
 * would take effect while a misspelt one there went unchecked.
 *
 * The names are listed with `for...in`, which builds no array (the members a `for...in` finds on
 * the prototype chain are skipped, as `Object.keys` skips them): a check of a small options
 * object passed on every call (`copyUntrustedValue`'s) costs a few comparisons, no allocation.
 * A name in `known` is taken without looking further, so valid options cost no `Object.hasOwn`.
 */
export function refuseUnknownNames(given: object, known: readonly string[], where: string, noun = 'option'): void {
  const prototype: unknown = Object.getPrototypeOf(given);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`${where}: the ${noun}s must be a plain object (an object literal or parsed JSON), not a class instance or an object that inherits them`);
  }
  for (const name in given) {
    if (!known.includes(name) && Object.hasOwn(given, name)) {
      throw new TypeError(`${where}: unknown ${noun} ${JSON.stringify(name)} (known ${noun}s: ${known.join(', ')})`);
    }
  }
}
