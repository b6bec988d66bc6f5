/**
 * What went wrong, on one line for stderr: the error's message (its name when it has none) with
 * every run of whitespace, line breaks included, made one space. Never the stack: the failures the
 * demo reports this way (a store that cannot be opened or fails) are expected, not bugs.
 */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.replace(/\s+/g, ' ').trim() || 'no message';
}
