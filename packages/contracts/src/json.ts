/** A JSON value as it exists after a bounded, duplicate-free parse: no `undefined`, no functions. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

/**
 * A JSON object whose own keys are plain data keys: never `__proto__`, `constructor`, `prototype`
 * or another name of `Object.prototype` (`toString`, `valueOf`, `hasOwnProperty`...), the
 * guard's `FORBIDDEN_KEYS`.
 * @propertyNames {"not":{"enum":["__proto__","constructor","prototype","toString","toLocaleString","valueOf","hasOwnProperty","isPrototypeOf","propertyIsEnumerable","__defineGetter__","__defineSetter__","__lookupGetter__","__lookupSetter__"]}}
 */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * A lowercase hexadecimal SHA-256 digest, 64 characters.
 * @pattern ^[0-9a-f]{64}$
 */
export type Sha256Hex = string;
