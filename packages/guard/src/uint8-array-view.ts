// Internal to @toolseal/guard (not exported by the package).

// The %TypedArray%.prototype getters, taken once at load. A Uint8Array subclass can override
// `byteLength`, `length`, `buffer`, `byteOffset` or `subarray` with members that lie (a 2 MB
// array claiming one byte passed `maxBytes: 16`), and an object that merely inherits from
// Uint8Array.prototype passes `instanceof`. The intrinsic getters read the view's internal slots,
// which no subclass can change.
const TYPED_ARRAY_PROTOTYPE: object = Object.getPrototypeOf(Uint8Array.prototype) as object;

function intrinsicGetter(name: PropertyKey): (this: unknown) => unknown {
  const getter = Object.getOwnPropertyDescriptor(TYPED_ARRAY_PROTOTYPE, name)?.get;
  if (getter === undefined) throw new Error(`%TypedArray%.prototype has no ${String(name)} getter`);
  return getter;
}

// `undefined` for anything without a [[TypedArrayName]] (a Proxy, a DataView, a plain object):
// the only one of these getters that never throws, so it is the brand check.
const typedArrayNameOf = intrinsicGetter(Symbol.toStringTag);
const bufferOf = intrinsicGetter('buffer') as (this: Uint8Array) => ArrayBufferLike;
const byteOffsetOf = intrinsicGetter('byteOffset') as (this: Uint8Array) => number;
const byteLengthOf = intrinsicGetter('byteLength') as (this: Uint8Array) => number;

/**
 * A plain Uint8Array over exactly the memory `value` views, read through the intrinsics, when
 * `value` is a genuine Uint8Array (a subclass such as Node's `Buffer`, or one from another realm,
 * included); `undefined` for anything else (another typed array, a DataView, a Proxy, an object
 * that only inherits from Uint8Array.prototype, a view whose buffer is detached). One small view
 * per call, no copy. Never throws.
 */
export function uint8ArrayView(value: unknown): Uint8Array | undefined {
  if (typedArrayNameOf.call(value) !== 'Uint8Array') return undefined;
  const bytes = value as Uint8Array;
  try {
    return new Uint8Array(bufferOf.call(bytes), byteOffsetOf.call(bytes), byteLengthOf.call(bytes));
  } catch {
    return undefined; // a detached buffer
  }
}
