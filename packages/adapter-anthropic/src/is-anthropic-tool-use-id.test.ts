import { describe, expect, it } from 'vitest';
import { ANTHROPIC_TOOL_USE_ID_PATTERN } from './anthropic-messages-api.js';
import { isAnthropicToolUseId } from './is-anthropic-tool-use-id.js';

describe('isAnthropicToolUseId', () => {
  it('agrees with ANTHROPIC_TOOL_USE_ID_PATTERN on every UTF-16 code unit, alone and inside an id', () => {
    const pattern = new RegExp(ANTHROPIC_TOOL_USE_ID_PATTERN);
    let accepted = 0;
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      const expected = pattern.test(character);
      expect(isAnthropicToolUseId(character), `U+${code.toString(16)}`).toBe(expected);
      expect(isAnthropicToolUseId(`toolu_${character}01`), `U+${code.toString(16)} inside`).toBe(expected);
      if (expected) accepted++;
    }
    // 26 + 26 + 10 + `_` + `-`.
    expect(accepted).toBe(64);
  });

  it('refuses the empty string and accepts any length of allowed characters (the length bound is elsewhere)', () => {
    expect(isAnthropicToolUseId('')).toBe(false);
    expect(isAnthropicToolUseId('a'.repeat(10_000))).toBe(true);
    expect(isAnthropicToolUseId(`${'a'.repeat(10_000)}.`)).toBe(false);
  });
});
