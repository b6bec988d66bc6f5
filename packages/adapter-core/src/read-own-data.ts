/**
 * The value of `key` when `target` is an object that holds it as an own data property, else
 * `undefined`. Provider responses are untrusted: reading them this way never runs a getter and
 * never falls through to a (possibly polluted) prototype.
 */
export function readOwnData(target: unknown, key: string | number): unknown {
  if (typeof target !== 'object' || target === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && 'value' in descriptor ? descriptor.value : undefined;
}
