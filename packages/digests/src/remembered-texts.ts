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

  /** False, and nothing changes, when a text is remembered for `target` already. */
  static remember(target: object, text: string, depth: number): boolean {
    if (#text in target || fallback?.has(target) === true) return false;
    if (!privateFieldsRefused) {
      try {
        new RememberedText(target, text, depth);
        return true;
      } catch (error) {
        // An engine that refuses new private fields on a frozen object (a proposal to the language
        // would make it do so) throws a TypeError: from then on the weak map, slower but the same.
        // Anything else (the stack running out here) takes the weak map this once.
        if (error instanceof TypeError) privateFieldsRefused = true;
      }
    }
    (fallback ??= new WeakMap()).set(target, { text, depth });
    return true;
  }

  static textOf(target: object): string | undefined {
    if (#text in target) return (target as RememberedText).#text;
    return fallback === undefined ? undefined : fallback.get(target)?.text;
  }

  static depthOf(target: object): number {
    if (#depth in target) return (target as RememberedText).#depth;
    return fallback?.get(target)?.depth ?? 0;
  }
}

/**
 * Texts that could not be kept in private fields: made on the first such failure (an engine that
 * refuses private fields on frozen objects, or the stack running out while adding them), and read
 * only once it exists.
 */
let fallback: WeakMap<object, { readonly text: string; readonly depth: number }> | undefined;
/** Whether the engine refused a private field on a frozen object: every text then goes to `fallback`. */
let privateFieldsRefused = false;

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
 * remembered for already (a text, once remembered, is never replaced).
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
