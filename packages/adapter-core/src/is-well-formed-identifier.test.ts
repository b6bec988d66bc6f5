import { checkIdentifier, MAX_IDENTIFIER_LENGTH } from '@toolseal/audit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isDisplaySafeIdentifier,
  isWellFormedIdentifier,
  MAX_PROVIDER_ID_LENGTH,
  MAX_STORABLE_IDENTIFIER_LENGTH,
  MAX_TOOL_NAME_LENGTH,
} from './is-well-formed-identifier.js';

/** Whether the audit stores accept `value` as an identifier (call id, operation id, key). */
function storable(value: unknown): boolean {
  try {
    checkIdentifier('call_id', value);
    return true;
  } catch {
    return false;
  }
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// Controls, half surrogates, NUL and a few ordinary characters, so that every kind of refusal and
// acceptance comes up often.
const unit = fc.oneof(
  fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\u009f', '\ud800', '\udbff', '\udc00', '\udfff', 'a', '_', '😀'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

describe('isWellFormedIdentifier', () => {
  it('allows ids and names of up to 256 code units', () => {
    expect(MAX_PROVIDER_ID_LENGTH).toBe(256);
    expect(MAX_TOOL_NAME_LENGTH).toBe(256);
    expect(isWellFormedIdentifier('c', 256)).toBe(true);
    expect(isWellFormedIdentifier('c'.repeat(256), 256)).toBe(true);
    expect(isWellFormedIdentifier('c'.repeat(257), 256)).toBe(false);
  });

  it('never accepts more than the stores hold, whatever maxLength says', () => {
    expect(MAX_STORABLE_IDENTIFIER_LENGTH).toBe(MAX_IDENTIFIER_LENGTH);
    expect(isWellFormedIdentifier('c'.repeat(257), 10_000)).toBe(false);
    expect(isWellFormedIdentifier('c'.repeat(256), 10_000)).toBe(true);
  });

  it.each([
    ['an empty string', ''],
    ['a number', 7],
    ['null', null],
    ['undefined', undefined],
    ['an array', ['call_1']],
    ['a lone high surrogate', 'call_\ud800'],
    ['a lone low surrogate', '\udc00call'],
    ['NUL', 'call_\u0000x'],
    ['only NUL', '\u0000'],
    ['a C0 control (ESC)', 'call_\u001b[31m'],
    ['a line feed', 'call\n1'],
    ['a tab', 'call\t1'],
    ['DEL', 'call_\u007f'],
    ['a C1 control (NEL)', 'call_\u0085'],
    ['the last C1 control', 'call_\u009f'],
  ])('refuses %s', (_label, value) => {
    expect(isWellFormedIdentifier(value, 256)).toBe(false);
  });

  it('accepts astral characters as well-formed surrogate pairs, and printable text beyond Latin-1', () => {
    expect(isWellFormedIdentifier('call_😀', 256)).toBe(true);
    expect(isWellFormedIdentifier('call_\u00a0é', 256)).toBe(true);
  });

  it('property: true exactly for 1 to maxLength code units without controls that encode to UTF-8 losslessly', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), fc.integer({ min: 1, max: 10 }), (text, maxLength) => {
        const lossless = new TextDecoder().decode(new TextEncoder().encode(text)) === text;
        expect(isWellFormedIdentifier(text, maxLength)).toBe(
          text.length >= 1 && text.length <= maxLength && lossless && !CONTROL.test(text),
        );
      }),
    );
  });

  it('property: at least as strict as the stores, so every accepted id can be audited', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit, maxLength: 12 }),
          fc.string({ unit, minLength: 250, maxLength: 300 }),
          fc.anything(),
        ),
        (value) => {
          if (isWellFormedIdentifier(value, MAX_PROVIDER_ID_LENGTH)) expect(storable(value)).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses everything the stores refuse (cross-check on the known refusals)', () => {
    for (const value of ['', '\u0000', 'a\u0000b', 'x\ud800', '\udfffx', 'c'.repeat(257), 7, null]) {
      expect(storable(value)).toBe(false);
      expect(isWellFormedIdentifier(value, 10_000)).toBe(false);
    }
  });
});

describe('isDisplaySafeIdentifier (review: provider ids and names that read as others in the audit log)', () => {
  const hidden = [
    '\u061c', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202d', '\u202e', '\u2060', '\u2064', '\u2066', '\u2069', '\ufeff',
    // A review of the first list: tag characters ("ASCII smuggling"), deprecated format characters,
    // the soft hyphen, the combining grapheme joiner, the Mongolian vowel separator, variation
    // selectors and Hangul fillers.
    '\u{E0031}', '\u{E007F}', '\u206a', '\u206f', '\u00ad', '\u034f', '\u180e', '\ufe0f', '\u{E0100}', '\u115f', '\u3164', '\uffa0',
  ];
  it('refuses every character that changes how the text around it is shown, anywhere in the id', () => {
    for (const character of hidden) {
      for (const value of [`${character}call_1`, `call${character}_1`, `call_1${character}`]) {
        expect(isWellFormedIdentifier(value, 64), JSON.stringify(value)).toBe(true);
        expect(isDisplaySafeIdentifier(value, 64), JSON.stringify(value)).toBe(false);
      }
    }
  });

  it('accepts printable ASCII ids; refuses what isWellFormedIdentifier refuses', () => {
    for (const value of ['call_1', 'toolu_01AbC', 'get-order', 'fc_68a1b2', '!', '~', '!"#$%&\'()*+,-./0123456789:;<=>?@[\\]^_`{|}~']) expect(isDisplaySafeIdentifier(value, 64), value).toBe(true);
    for (const value of ['', 'nul\u0000', 'lone\ud800', 'x'.repeat(65), 7]) expect(isDisplaySafeIdentifier(value, 64), String(value)).toBe(false);
  });

  // Review 5 (L1): what the refused class still let through. Ids that print like others (`call_1`
  // and `call_1` followed by U+E000 printed identically), that are reordered (`א_12_34` displays
  // like `34_12_א`), or that are letters of another script: every provider grammar is ASCII.
  it.each([
    ['private use U+E000 (printed as call_1)', 'call_1\ue000'],
    ['private use U+F8FF', 'call_1\uf8ff'],
    ['supplementary private use U+F0000', 'call_1\u{F0000}'],
    ['unassigned U+0378', 'call_1\u0378'],
    ['noncharacter U+FFFF', 'call_1\uffff'],
    ['noncharacter U+FDD0', 'call_1\ufdd0'],
    ['U+FFFC OBJECT REPLACEMENT CHARACTER', 'call_1\ufffc'],
    ['U+FFFD REPLACEMENT CHARACTER', 'call_1\ufffd'],
    ['interlinear annotation U+FFF9..U+FFFB', 'call_1\ufff9x\ufffay\ufffb'],
    ['U+0600 ARABIC NUMBER SIGN', 'call_\u0600123'],
    ['U+06DD ARABIC END OF AYAH', 'call_\u06dd12'],
    ['U+070F SYRIAC ABBREVIATION MARK', 'call_1\u070f'],
    ['U+13430 EGYPTIAN HIEROGLYPH VERTICAL JOINER', 'call_1\u{13430}'],
    ['a Hebrew letter (right to left: reorders the digit runs)', '\u05d0_12_34'],
    ['an Arabic letter', 'call_\u0628'],
    ['a Cyrillic look-alike a', 'c\u0430ll_1'],
    ['fullwidth digits', 'call_\uff11'],
    ['a precomposed letter', 'caf\u00e9'],
    ['CJK', '\u6ce8\u6587'],
    ['an emoji', 'call_\u{1F600}'],
    ['the ASCII space', 'call 1'],
  ])('refuses an id holding %s, which isWellFormedIdentifier accepts', (_label, value) => {
    expect(isWellFormedIdentifier(value, 64)).toBe(true);
    expect(isDisplaySafeIdentifier(value, 64)).toBe(false);
  });

  // Review 2 (08_blank_lookalike_ids): characters that are shown blank. One OpenAI response parsed
  // into calls shown as `call_1` and `call_1` followed by a braille blank, with different amounts.
  const blank = [
    // Spaces (\p{Zs}, all \p{White_Space}): ASCII, no-break, Ogham, en quad to hair space, narrow
    // no-break, medium mathematical, ideographic.
    ' ', '\u00a0', '\u1680', '\u2000', '\u2007', '\u200a', '\u202f', '\u205f', '\u3000',
    // Not spaces, shown blank: braille pattern blank, musical null notehead, the Hangul fillers.
    '\u2800', '\u{1D159}', '\u115f', '\u1160', '\u3164', '\uffa0',
    // Combining marks (\p{M}): acute, overlay tilde, enclosing circle, a spacing mark, an astral one.
    '\u0301', '\u0334', '\u20dd', '\u0903', '\u{1D167}',
  ];
  it('refuses every character shown blank, and every combining mark, anywhere in the id', () => {
    for (const character of blank) {
      for (const value of [`${character}call_1`, `call${character}_1`, `call_1${character}`]) {
        expect(isWellFormedIdentifier(value, 64), JSON.stringify(value)).toBe(true);
        expect(isDisplaySafeIdentifier(value, 64), JSON.stringify(value)).toBe(false);
      }
    }
  });

  it('accepts exactly U+0021 to U+007E among all code points, alone and anywhere in an id (exhaustive)', () => {
    let accepted = 0;
    let refused = 0;
    for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
      // Lone surrogates included: a code unit of U+D800 to U+DFFF alone is one.
      const character = String.fromCharCode(...(codePoint > 0xffff ? [0xd800 + ((codePoint - 0x10000) >> 10), 0xdc00 + ((codePoint - 0x10000) & 0x3ff)] : [codePoint]));
      const printable = codePoint >= 0x21 && codePoint <= 0x7e;
      if (isDisplaySafeIdentifier(character, 64) !== printable) expect.fail(`U+${codePoint.toString(16)} alone: ${printable ? 'refused' : 'accepted'}`);
      if (isDisplaySafeIdentifier(`call_1${character}`, 64) !== printable) expect.fail(`U+${codePoint.toString(16)} at the end: ${printable ? 'refused' : 'accepted'}`);
      if (isDisplaySafeIdentifier(`${character}call_1`, 64) !== printable) expect.fail(`U+${codePoint.toString(16)} at the start: ${printable ? 'refused' : 'accepted'}`);
      if (printable) accepted++;
      else refused++;
    }
    expect(accepted).toBe(94);
    expect(refused).toBe(0x110000 - 94);
  });

  it('accepts the ids and tool names providers send (OpenAI, Anthropic, Gemini)', () => {
    const providerIds = [
      // OpenAI Responses: call ids, item ids, response ids; tool names of ^[a-zA-Z0-9_-]{1,64}$.
      'call_aBcD1234efGH5678ijKL', 'fc_68a1b2c3d4e5f60718293a4b5c6d7e8f0011223344556677',
      'resp_68a1b2c3d4e5f60718293a4b5c6d7e8f0011223344556677', 'get_order', 'create-refund-draft',
      // Anthropic Messages: tool_use ids, message ids, server tool ids.
      'toolu_01A09q90qw90lq917835lq9', 'msg_01XFDUDYJgAACzvnptvVoYEL', 'srvtoolu_014hJH82Qum7Td6UV8gDXThB',
      // Gemini Interactions: interaction and step ids; names may hold dots and colons.
      'v1_ChdpbnRlcmFjdGlvbl9pZF9leGFtcGxlEhZ4eXo', 'fvz8pq2k', 'mcp.orders:lookup_order', 'default_api.get_weather',
    ];
    for (const value of providerIds) expect(isDisplaySafeIdentifier(value, 256), value).toBe(true);
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,256}$/), (value) => {
        expect(isDisplaySafeIdentifier(value, 256)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('is true exactly for 1 to maxLength (at most 256) printable ASCII characters but the space, for any code unit (property)', () => {
    const printable = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.oneof(printable, unit, fc.constantFrom(...blank, ' ', '\u200b', '\ue000', '\u05d0', '\u0600', '\ufffc', '\uffff', '\u007e', '\u0021', '\u0020', '\u0080')), maxLength: 12 }),
        fc.integer({ min: 1, max: 300 }),
        (text, maxLength) => {
          let expected = text.length >= 1 && text.length <= Math.min(maxLength, 256);
          for (let index = 0; index < text.length; index++) {
            const code = text.charCodeAt(index);
            if (code < 0x21 || code > 0x7e) expected = false;
          }
          expect(isDisplaySafeIdentifier(text, maxLength)).toBe(expected);
          // Every id it accepts is one isWellFormedIdentifier accepts (the stores can hold it).
          if (expected) expect(isWellFormedIdentifier(text, maxLength)).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('never accepts more than the stores hold, whatever maxLength says', () => {
    expect(isDisplaySafeIdentifier('c'.repeat(256), 10_000)).toBe(true);
    expect(isDisplaySafeIdentifier('c'.repeat(257), 10_000)).toBe(false);
    expect(isDisplaySafeIdentifier('c'.repeat(9), 8)).toBe(false);
    expect(isDisplaySafeIdentifier('c', Number.NaN)).toBe(false);
  });
});

