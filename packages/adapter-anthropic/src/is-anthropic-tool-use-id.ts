/**
 * True when `value` matches `ANTHROPIC_TOOL_USE_ID_PATTERN` (`^[a-zA-Z0-9_-]+$`): at least one
 * character, every one an ASCII letter, digit, `_` or `-`. Compares char codes rather than running
 * a `RegExp`, so nothing a host can reach (the exported pattern, `RegExp.prototype`) changes what
 * it accepts. The length bound (256) is the collector's, and `isWellFormedIdentifier`'s.
 */
export function isAnthropicToolUseId(value: string): boolean {
  const length = value.length;
  if (length === 0) return false;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    const allowed =
      (code >= 0x61 && code <= 0x7a) || // a-z
      (code >= 0x41 && code <= 0x5a) || // A-Z
      (code >= 0x30 && code <= 0x39) || // 0-9
      code === 0x5f || // _
      code === 0x2d; // -
    if (!allowed) return false;
  }
  return true;
}
