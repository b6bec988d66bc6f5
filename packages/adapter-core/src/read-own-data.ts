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

/**
 * What `readRefusalField` answers for a field that exists but is no own data property: an own
 * accessor, or a name reachable only through the prototype chain. Equal to no value a response can
 * hold, so a check that accepts only absence or named values refuses it.
 */
export const HIDDEN_FIELD: unique symbol = Symbol('toolseal.hidden-field');

/**
 * `readOwnData` for a field whose presence or value can refuse the response (a status other than
 * finished, a namespace, a caller, a stop reason, the type that says an item is a call): its value
 * when it is an own data property, `undefined` only when the field is absent altogether, and
 * `HIDDEN_FIELD` when it exists as an own accessor or only through the prototype chain.
 *
 * `readOwnData` reads such a field as absent, which is right for a required field (absent refuses)
 * but fails open here: a getter or a non-plain prototype would hide exactly what must refuse the
 * response. Callers refuse `HIDDEN_FIELD` as malformed. Never runs a getter; costs one `in` lookup
 * more than `readOwnData`, and only when the field is not an own property.
 */
export function readRefusalField(target: unknown, key: string): unknown {
  if (typeof target !== 'object' || target === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  if (descriptor !== undefined) return 'value' in descriptor ? descriptor.value : HIDDEN_FIELD;
  return key in target ? HIDDEN_FIELD : undefined;
}
