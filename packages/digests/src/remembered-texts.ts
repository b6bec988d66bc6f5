/** A base whose constructor returns the object it is given, so a subclass can add private fields to it. */
class Slot {
  constructor(target: object) {
    return target;
  }
}

/**
 * The remembered text and depth, as private fields added to the (frozen) object itself: invisible to
 * the reflection JavaScript code has (`Reflect.ownKeys`, spreads, `JSON.stringify`,
 * `structuredClone`; a debugger sees them), and alive
 * exactly as long as the object. A WeakMap would do the same at a much higher price: an entry for an
 * object that dies young measured about 1.9 µs here (the collector's ephemeron work), this 20 ns.
 */
class RememberedText extends Slot {
  #text: string;
  #depth: number;

  private constructor(target: object, text: string, depth: number) {
    super(target);
    this.#text = text;
    this.#depth = depth;
  }

  /**
   * False, and nothing changes, when a text is remembered for `target` already. An engine that
   * refused new private fields on a frozen object (a proposal to the language would make it do so)
   * would throw a TypeError here, as the stack running out throws a RangeError: nothing is
   * remembered then, and `canonicalize` walks the object as it always can.
   */
  static remember(target: object, text: string, depth: number): boolean {
    if (#text in target) return false;
    new RememberedText(target, text, depth);
    return true;
  }

  static textOf(target: object): string | undefined {
    return #text in target ? (target as RememberedText).#text : undefined;
  }

  static depthOf(target: object): number {
    return #depth in target ? (target as RememberedText).#depth : 0;
  }
}

/**
 * Remembers `text` as the RFC 8785 text of `value`, so that `canonicalize(outer, { reuseRemembered:
 * true })` writes `text` wherever it meets this very object instead of walking it again.
 *
 * For code that builds a value of a known structure and can write its canonical text directly,
 * much faster than the generic walk (the protected audit projection of `@toolseal/result`, which the
 * audit log canonicalizes inside every entry body). The caller vouches for three things, none of
 * which is checked (checking would cost the walk it saves): `text` is exactly `canonicalize(value)`;
 * `value` is deeply frozen, so it can never read differently; `depth` is its nesting depth. A
 * remembered object is not walked at all, so nothing in it is checked either (its members'
 * enumerability, for one). Like holding a digester, this is a capability of trusted code: code
 * holding the object could make an audit log store a text that is not the object's. Data never
 * reaches it: only code holding the object can remember a text for it, and only once.
 *
 * Throws `TypeError` for a value that is not a frozen object (arrays are not remembered), a text
 * that is not a string, a depth that is not a positive safe integer, or an object a text is
 * remembered for already (a text, once remembered, is never replaced). Whatever it throws, nothing
 * is remembered, and `canonicalize` walks the object as usual: a caller that only wants the speed
 * can ignore the error.
 */
export function rememberCanonicalText(value: object, text: string, depth: number): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.isFrozen(value)) {
    throw new TypeError('rememberCanonicalText: value must be a frozen object (not an array)');
  }
  if (typeof text !== 'string') throw new TypeError('rememberCanonicalText: text must be a string');
  if (!Number.isSafeInteger(depth) || depth < 1) throw new TypeError('rememberCanonicalText: depth must be a positive safe integer');
  if (!RememberedText.remember(value, text, depth)) {
    throw new TypeError('rememberCanonicalText: a text is remembered for this object already');
  }
}

/** The text remembered for `value`, if any (internal to canonicalize). */
export function rememberedTextOf(value: object): string | undefined {
  return RememberedText.textOf(value);
}

/** The nesting depth remembered with that text (internal to canonicalize). */
export function rememberedDepthOf(value: object): number {
  return RememberedText.depthOf(value);
}
