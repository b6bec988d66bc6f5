/**
 * Each own enumerable member of `value` whose key `known` does not list, serialized as
 * `{"key":value}`: for a descriptor's `readModelText`, which must return every text the model could
 * read besides the result items and the echoed calls, fields it does not know included.
 */
export function otherFieldsAsText(value: object, known: readonly string[]): string[] {
  return Object.entries(value)
    .filter(([key]) => !known.includes(key))
    .map(([key, field]) => JSON.stringify({ [key]: field }));
}
