/**
 * True for an object literal (prototype `Object.prototype` or `null`): not an array, a class
 * instance (`Date`, `Map`, ...) or a primitive. Providers whose SDK hands over tool arguments as an
 * already-parsed object (Anthropic `input`, Gemini `arguments`) must hand over exactly this.
 *
 * May throw on a hostile proxy (its `getPrototypeOf` trap); callers parsing a provider response
 * run inside a `try` that refuses the response.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
