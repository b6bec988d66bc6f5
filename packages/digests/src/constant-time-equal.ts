/**
 * Compares two digest strings (or any strings) without an early exit on the first differing
 * character, so the time taken does not reveal how long a matching prefix an attacker guessed.
 * Strings of different length are unequal immediately: digest lengths are public.
 * Best effort: a JavaScript engine gives no hard timing guarantee.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
