import { describe, expect, it } from 'vitest';
import { chooseStyle } from './render-text.js';

describe('chooseStyle', () => {
  it('colours a terminal unless NO_COLOR is set, and never a pipe unless FORCE_COLOR is', () => {
    expect(chooseStyle({ isTTY: true }, {}).green('x')).toBe('\u001b[32mx\u001b[39m');
    expect(chooseStyle({ isTTY: true }, { NO_COLOR: '1' }).green('x')).toBe('x');
    expect(chooseStyle({ isTTY: false }, {}).green('x')).toBe('x');
    expect(chooseStyle({ isTTY: false }, { FORCE_COLOR: '1' }).green('x')).toBe('\u001b[32mx\u001b[39m');
  });
});
