import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PATTERN_NFA_STATES } from './build-pattern-nfa.js';
import {
  compilePattern,
  MAX_CACHED_WIDE_TRANSITIONS,
  MAX_PATTERN_LENGTH,
  PATTERN_BUDGET_BASE,
  PATTERN_BUDGET_PER_CHARACTER,
  PatternBudgetExceeded,
  patternCacheStats,
} from './compile-pattern.js';
import { deepFreeze } from './deep-freeze.js';
import { compileSchema } from './pinned-ajv.js';

/** The characters test strings are made of: ASCII classes, line terminators, astral, lone surrogates. */
const ALPHABET = ['a', 'b', 'c', 'A', 'Z', '0', '7', '_', '-', '.', ' ', '\t', '\n', '\r', '\u2028', '\u00a0', '\ufeff', '\u3000', 'é', '\u{1F600}', '\u{1F601}', '\ud83d', '\ude00', '$', '^', '\\'];

const native = (pattern: string, text: string): boolean => new RegExp(pattern, 'u').test(text);

describe('compilePattern: each construct, against ECMAScript semantics', () => {
  // [pattern, text, expected]: expected from the ECMAScript specification, checked against the
  // native engine below as well.
  const cases: [string, string, boolean][] = [
    // Search, not a whole match: JSON Schema `pattern` is unanchored.
    ['abc', 'xxabcxx', true],
    ['abc', 'ab', false],
    ['', 'anything', true],
    ['', '', true],
    ['^abc$', 'abc', true],
    ['^abc$', 'abcd', false],
    ['^abc$', 'xabc', false],
    ['^abc', 'abcd', true],
    ['abc$', 'xabc', true],
    ['abc$', 'abc\n', false], // no `m` flag: `$` is the end of the input only
    ['^b', 'a\nb', false],
    ['a|^b', 'cb', false],
    ['a|^b', 'bc', true],
    ['$^', '', true],
    ['$^', 'a', false],
    ['a^', 'a', false],
    ['(?:^|x)y', 'zy', false],
    ['(?:^|x)y', 'xy', true],
    ['(?:^|x)y', 'y', true],
    // `.` excludes the four line terminators only.
    ['^.$', '\n', false],
    ['^.$', '\r', false],
    ['^.$', '\u2028', false],
    ['^.$', '\u2029', false],
    ['^.$', '\u0085', true],
    ['^.$', '\t', true],
    // Unicode mode: an astral character is one character, a lone surrogate is one too.
    ['^.$', '\u{1F600}', true],
    ['^..$', '\u{1F600}', false],
    ['^.$', '\ud83d', true],
    ['^[\u{1F600}]$', '\u{1F600}', true],
    ['^[\u{1F600}]$', '\ud83d', false],
    ['\ud83d', '\u{1F600}', false],
    ['\\ude00', '\u{1F600}', false],
    ['^\\ud83d\\ude00$', '\u{1F600}', true],
    ['^[\\ud83d\\ude00]$', '\u{1F600}', true],
    ['^[\\ud83d\\ude00]$', '\ud83d', false],
    ['^\\u{1F600}$', '\u{1F600}', true],
    ['^[\u{1F600}-\u{1F64F}]+$', '\u{1F600}\u{1F601}', true],
    ['^[^a]$', '\u{1F600}', true],
    ['^\\S$', '\u{1F600}', true],
    ['^\\W$', '\u{1F600}', true],
    // Classes.
    ['^[a-c]+$', 'abcab', true],
    ['^[a-c]+$', 'abd', false],
    ['^[^a-c]+$', 'xyz', true],
    ['^[^a-c]+$', 'xaz', false],
    ['^[]$', 'a', false],
    ['[]', '', false],
    ['^[^]$', '\n', true],
    ['^[a-]$', '-', true],
    ['^[-a]$', '-', true],
    ['^[a-c-e]$', '-', true],
    ['^[a-c-e]$', 'd', false],
    ['^[\\-]$', '-', true],
    ['^[\\b]$', '\b', true],
    ['^[\\d_]+$', '12_3', true],
    ['^[\\D]$', '1', false],
    ['^[\\w-]+$', 'a-b_c', true],
    ['^[\\s]$', '\u3000', true],
    ['^[\\S\\s]$', '\n', true],
    ['^[[]$', '[', true],
    ['^[\\]]$', ']', true],
    ['^[.]$', 'a', false],
    ['^[\\x41-\\x43]+$', 'ABC', true],
    ['^[\\u0041-\\u{43}]+$', 'ABCD', false],
    // Class escapes: exact ECMAScript sets.
    ['^\\d+$', '0123456789', true],
    ['^\\d$', '\u0661', false], // Arabic-Indic digit: \d is ASCII only
    ['^\\w+$', 'aZ_09', true],
    ['^\\w$', 'é', false],
    ['^\\W$', 'é', true],
    ['^\\s+$', ' \t\n\v\f\r\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff', true],
    ['^\\s$', '\u180e', false], // Mongolian vowel separator left Zs in Unicode 6.3
    ['^\\s$', '\u200b', false], // zero width space is not Zs
    ['^\\S$', '\ufeff', false],
    ['^\\D$', 'a', true],
    // Character escapes.
    ['^\\n\\r\\t\\f\\v$', '\n\r\t\f\v', true],
    ['^\\0$', '\0', true],
    ['^\\x41\\u0042\\u{43}$', 'ABC', true],
    ['^\\cJ$', '\n', true],
    ['^\\^\\$\\\\\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$', '^$\\.*+?()[]{}|/', true],
    // Groups and alternation.
    ['^(ab)+$', 'ababab', true],
    ['^(ab)+$', 'ababa', false],
    ['^(?:ab|cd)+$', 'abcdab', true],
    ['^(?<word>ab|cd)$', 'cd', true],
    ['^(?<first>a)(?<second>b)$', 'ab', true],
    ['^(|a)b$', 'b', true],
    ['^()$', '', true],
    ['^a|b$', 'ax', true],
    ['^a|b$', 'xb', true],
    ['^a|b$', 'xa', false],
    // Quantifiers, greedy and lazy.
    ['^a*$', '', true],
    ['^a+$', '', false],
    ['^a?b$', 'b', true],
    ['^a{3}$', 'aaa', true],
    ['^a{3}$', 'aaaa', false],
    ['^a{2,}$', 'a', false],
    ['^a{2,}$', 'aaaaaaa', true],
    ['^a{2,4}$', 'aaaaa', false],
    ['^a{2,4}$', 'aaaa', true],
    ['^a{0}$', '', true],
    ['^a{0}b$', 'ab', false],
    ['^a{0,0}$', '', true],
    ['^(?:a{2}){2}$', 'aaaa', true],
    ['^a*?$', 'aaa', true],
    ['^a+?b$', 'aab', true],
    ['^a??b$', 'ab', true],
    ['^a{2,3}?$', 'aaa', true],
    ['^a{2,}?$', 'a', false],
    ['^(?:a*)*$', 'aaa', true],
    ['^(?:a*)+b$', 'b', true],
    ['^(?:)*$', '', true],
    ['^(?:){5}x$', 'x', true],
    ['^(?:^a)+$', 'a', true],
    ['^(?:^a)+$', 'aa', false],
    ['^(?:a$)*', 'b', true],
    ['^(?:a|$)+$', 'aa', true],
    // The fixtures' contract patterns.
    ['^ORDER-[A-Z0-9]{1,32}$', 'ORDER-7F3K', true],
    ['^ORDER-[A-Z0-9]{1,32}$', 'ORDER-', false],
    ['^ORDER-[A-Z0-9]{1,32}$', `ORDER-${'A'.repeat(33)}`, false],
    ['^ORDER-[A-Z0-9]{1,32}$', 'ORDER-7f3k', false],
    ['^[A-Z0-9-]{1,64}$', 'AB-12', true],
    ['^order-[a-z0-9]{1,32}-r[0-9]{1,9}$', 'order-7-r3', true],
    ['^order-[a-z0-9]{1,32}-r[0-9]{1,9}$', 'order-7-r', false],
    // The draft 2020-12 meta-schema's own patterns (Ajv compiles them with this engine too).
    ['^[^#]*#?$', 'https://x#', true],
    ['^[^#]*#?$', 'a#b', false],
    ['^[A-Za-z_][-A-Za-z0-9._]*$', 'a-b.c_d', true],
    ['^[A-Za-z_][-A-Za-z0-9._]*$', '1a', false],
  ];

  it.each(cases)('%j on %j is %s', (pattern, text, expected) => {
    expect(compilePattern(pattern).test(text)).toBe(expected);
    // The expectation is ECMAScript's: the native engine agrees (none of these backtracks long).
    expect(native(pattern, text)).toBe(expected);
  });

  it('answers the same on repeated calls (the DFA cache is shared across calls)', () => {
    const pattern = compilePattern('^[a-c]+x$');
    for (let round = 0; round < 3; round += 1) {
      expect(pattern.test('abcx')).toBe(true);
      expect(pattern.test('abcd')).toBe(false);
      expect(pattern.test('\u{1F600}')).toBe(false);
      expect(pattern.test('')).toBe(false);
    }
  });

  it('says which pattern it is in toString (Ajv keys compiled patterns by it)', () => {
    expect(String(compilePattern('^a$'))).toBe('/^a$/u');
    expect(String(compilePattern('^b$'))).not.toBe(String(compilePattern('^a$')));
    expect(compilePattern('x+').source).toBe('x+');
  });
});

describe('compilePattern: refusals', () => {
  const refused: [string, RegExp][] = [
    ['(a)\\1', /backreference/],
    ['(?<name>a)\\k<name>', /named backreference/],
    ['a(?=b)', /lookahead/],
    ['a(?!b)', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['\\bword\\b', /\\b .*word boundaries/],
    ['\\Bx', /\\B .*word boundaries/],
    ['\\p{L}', /Unicode property/],
    ['[\\P{L}]', /Unicode property/],
    // Syntax errors in Unicode mode (some are accepted without the flag, by Annex B).
    ['(a', /not a valid regular expression in Unicode mode/],
    ['a{', /not a valid regular expression/],
    ['a{2,1}', /not a valid regular expression/],
    ['\\a', /not a valid regular expression/],
    ['\\-', /not a valid regular expression/],
    ['a]', /not a valid regular expression/],
    ['*a', /not a valid regular expression/],
    ['^*', /not a valid regular expression/],
    ['[z-a]', /not a valid regular expression/],
    ['[\\d-z]', /not a valid regular expression/],
    ['\\u{110000}', /not a valid regular expression/],
    ['\\00', /not a valid regular expression/],
    ['(?<a>x)(?<a>y)', /not a valid regular expression/],
    ['(?i:a)', /not a valid regular expression/],
    // Size bounds.
    [`^(?:[a-z]{1,100}){100}$`, new RegExp(`more than ${MAX_PATTERN_NFA_STATES} automaton states`)],
    ['a{99999999999999999999}', /automaton states/],
    ['(?:(?:(?:a{0,100}){100}){100}){100}', /automaton states/],
    ['a'.repeat(MAX_PATTERN_LENGTH + 1), new RegExp(`limit is ${MAX_PATTERN_LENGTH}`)],
  ];

  it.each(refused)('refuses %j', (pattern, message) => {
    expect(() => compilePattern(pattern)).toThrow(TypeError);
    expect(() => compilePattern(pattern)).toThrow(message);
  });

  it('accepts a pattern at the length limit and a large but bounded repetition', () => {
    // Anchored: an unanchored 1,024-character literal tracks up to 1,024 partial matches at once,
    // which the work budget may refuse (see the budget tests below).
    expect(compilePattern(`^${'a'.repeat(MAX_PATTERN_LENGTH - 1)}`).test('a'.repeat(MAX_PATTERN_LENGTH))).toBe(true);
    expect(compilePattern('^[a-z]{1,1000}$').test('q'.repeat(1000))).toBe(true);
    expect(compilePattern('^[a-z]{1,1000}$').test('q'.repeat(1001))).toBe(false);
  });

  it('refuses a non-string', () => {
    expect(() => compilePattern(1 as unknown as string)).toThrow(TypeError);
  });
});

describe('compilePattern: catastrophic patterns run in linear time', () => {
  // A backtracking engine needs about 2^n steps on these; at n = 10,000 a regression shows as a
  // test timeout. No timing is asserted (this machine is noisy), only the ECMAScript answer.
  const n = 20_000;
  const cases: [string, string, boolean][] = [
    ['^(a+)+$', `${'a'.repeat(n)}!`, false],
    ['^(a+)+$', 'a'.repeat(n), true],
    ['(a|a)*$', `${'a'.repeat(n)}!`, true], // matches the empty string at the end
    ['^(a|a)*$', `${'a'.repeat(n)}!`, false],
    ['^(a|ab)*c$', `${'ab'.repeat(n)}`, false],
    ['^(a|ab)*c$', `${'ab'.repeat(n)}c`, true],
    ['^a*a*a*a*a*$', `${'a'.repeat(n)}b`, false],
    ['(x+x+)+y', 'x'.repeat(n), false],
    ['(x+x+)+y', `${'x'.repeat(n)}y`, true],
    ['^(a|aa)+$', `${'a'.repeat(n)}!`, false],
    ['^(\\w+\\s?)*$', `${'word '.repeat(n)}!`, false],
    ['(.*a){12}', 'a'.repeat(n), true],
    ['^(.*a){12}$', `${'a'.repeat(n)}b`, false],
  ];

  it.each(cases)('%j', (pattern, text, expected) => {
    expect(compilePattern(pattern).test(text)).toBe(expected);
  });

  it('stays correct when the DFA cache overflows and is dropped', () => {
    // `(a|b)*a(a|b){12}` has 2^13 DFA states: more than the cache holds. The 13th character from
    // the end decides.
    const pattern = compilePattern('^[ab]*a[ab]{12}$');
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round += 1) {
      let text = '';
      for (let index = 0; index < 5_000; index += 1) text += random() < 0.5 ? 'a' : 'b';
      expect(pattern.test(text)).toBe(text[text.length - 13] === 'a');
    }
  });
});

/** A seeded generator, so a failure reproduces. */
const seeded = (seed: number) => {
  let state = seed;
  const random = (): number => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
  const pick = (alphabet: string, length: number): string => {
    const characters = Array.from(alphabet);
    let text = '';
    for (let index = 0; index < length; index += 1) text += characters[Math.floor(random() * characters.length)]!;
    return text;
  };
  return { random, pick };
};

describe('compilePattern: the work budget of a test call', () => {
  // Patterns whose DFA keeps overflowing the cache: each character costs a step over thousands of
  // NFA states (seconds for 16 KiB before the budget). No timing is asserted, only that the call
  // ends with the budget error instead of an answer.
  const pathological: [string, (length: number) => string][] = [
    ['[ab]*a[ab]{2000}$', (length) => seeded(1).pick('ab', length)],
    ['[ab]*a[ab]{4000}$', (length) => seeded(2).pick('ab', length)],
    ['^.*a.{2000}$', (length) => seeded(3).pick('ab', length)],
    ['(?:.*,){1000}x', (length) => seeded(4).pick(',a', length)],
  ];

  it.each(pathological)('%j throws PatternBudgetExceeded on a 16 KiB text', (source, text) => {
    const pattern = compilePattern(source);
    const long = text(16_384);
    let thrown: unknown;
    try {
      pattern.test(long);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PatternBudgetExceeded);
    expect(thrown).toBeInstanceOf(RangeError);
    const error = thrown as PatternBudgetExceeded;
    expect(error.name).toBe('PatternBudgetExceeded');
    expect(error.pattern).toBe(source);
    expect(error.textLength).toBe(16_384);
    expect(error.message).toContain(String(PATTERN_BUDGET_BASE + PATTERN_BUDGET_PER_CHARACTER * 16_384));
    // The text is untrusted: the message never quotes it.
    expect(error.message).not.toContain(long.slice(0, 40));
    // The cache is left consistent: the same pattern still answers short texts afterwards.
    expect(pattern.test('b'.repeat(50))).toBe(false);
  });

  it('answers short texts of the same patterns as ECMAScript does', () => {
    const cases: [string, string, boolean][] = [
      ['[ab]*a[ab]{2000}$', `a${'b'.repeat(2000)}`, true],
      ['[ab]*a[ab]{2000}$', `b${'b'.repeat(2000)}`, false],
      ['[ab]*a[ab]{2000}$', 'ab'.repeat(40), false],
      ['^.*a.{2000}$', `bba${'b'.repeat(2000)}`, true],
      ['^.*a.{2000}$', `a${'b'.repeat(2001)}`, false],
    ];
    for (const [source, text, expected] of cases) {
      expect(compilePattern(source).test(text), source).toBe(expected);
      expect(native(source, text), source).toBe(expected);
    }
    // Fewer than 1,000 commas: no match (the native engine backtracks for ages on this one). A run of
    // 1,000 commas is already refused: each one starts a partial match the DFA tracks.
    expect(compilePattern('(?:.*,){1000}x').test(`${'a,'.repeat(100)}x`)).toBe(false);
    const { random } = seeded(5);
    const pattern = compilePattern('[ab]*a[ab]{20}$');
    for (let round = 0; round < 20; round += 1) {
      let text = '';
      for (let index = 0; index < 300; index += 1) text += random() < 0.5 ? 'a' : 'b';
      expect(pattern.test(text)).toBe(native('[ab]*a[ab]{20}$', text));
    }
  });

  it('gives each call its own budget (an earlier refusal does not spend a later one)', () => {
    const pattern = compilePattern('[ab]*a[ab]{2000}$');
    expect(() => pattern.test(seeded(6).pick('ab', 16_384))).toThrow(PatternBudgetExceeded);
    expect(pattern.test(`a${'b'.repeat(2000)}`)).toBe(true);
    expect(patternCacheStats(pattern).spent).toBeLessThanOrEqual(PATTERN_BUDGET_BASE + PATTERN_BUDGET_PER_CHARACTER * 2001);
  });

  // Realistic contract patterns on 1 MiB adversarial texts: far inside the budget, answered.
  const mebibyte = 1 << 20;
  const labels = (seed: number, length: number, longest: number, separators: string): string => {
    const { random, pick } = seeded(seed);
    let text = '';
    while (text.length < length) text += pick('abz09-', 1 + Math.floor(random() * longest)) + separators[Math.floor(random() * separators.length)]!;
    return text.slice(0, length);
  };
  const emailDots = (length: number): string => {
    // Crafted to visit a new DFA state at nearly every character of `...{1,253}\.[A-Za-z]{2,63}$`.
    let text = '';
    for (let step = 1; text.length < length; step = (step % 63) + 1) {
      text += '@';
      for (let index = 0; index < 250; index += 1) text += index % step === 0 ? '.' : 'a';
    }
    return text.slice(0, length);
  };
  // [pattern, text name, text, answer when known, share of the budget it may spend]
  const realistic: [string, string, () => string, boolean | null, number?][] = [
    ['^ORDER-[A-Z0-9]{1,32}$', 'ORDER- then letters', () => `ORDER-${seeded(10).pick('AB9', mebibyte)}`, false],
    ['^ORDER-[A-Z0-9]{1,32}$', 'letters', () => seeded(11).pick('ORDE-AB9', mebibyte), false],
    ['^[A-Z0-9-]{1,64}$', 'letters', () => seeded(12).pick('AZ09-', mebibyte), false],
    ['^[A-Z0-9-]{1,64}$', 'all ASCII', () => seeded(13).pick('AZ09-az.@ _%', mebibyte), false],
    ['[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}$', 'a and .', () => seeded(14).pick('a.', mebibyte), false],
    // The costliest realistic shape found: about 17 visits per character, just over half the rate.
    ['[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}$', 'crafted @ and dots', () => emailDots(mebibyte), null, 0.6],
    ['^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}\\.[A-Za-z]{2,63}$', 'a@ then a and .', () => `a@${seeded(15).pick('a.', mebibyte)}`, false],
    ['[a-z0-9-]{1,63}(?:\\.[a-z0-9-]{1,63}){0,10}$', 'labels', () => labels(16, mebibyte, 70, '..@'), null],
    ['[a-z0-9-]{1,63}(?:\\.[a-z0-9-]{1,63}){0,10}$', 'short labels', () => labels(17, mebibyte, 8, '.'), null],
    ['^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', 'hex groups', () => labels(18, mebibyte, 13, '-'), false],
    ['[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', 'hex groups', () => seeded(19).pick('0af-', mebibyte), null],
    ['\\d{1,3}(?:,\\d{3})*(?:\\.\\d{1,2})?$', 'digits', () => seeded(20).pick('1,.', mebibyte), null],
    ['(?:[A-Z][a-z]{0,30} ){1,10}x', 'words', () => seeded(21).pick('Aa ', mebibyte), null],
    ['^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', 'wide', () => seeded(22).pick('a.@é\u{1F600}\u00a0', mebibyte), null],
  ];

  it.each(realistic)('%j on 1 MiB of %s answers within the budget', (source, _name, text, expected, share = 0.5) => {
    const pattern = compilePattern(source);
    const long = text();
    const answer = pattern.test(long);
    // Cold cache: the warm-up counts too.
    expect(patternCacheStats(pattern).spent).toBeLessThan((PATTERN_BUDGET_BASE + PATTERN_BUDGET_PER_CHARACTER * long.length) * share);
    if (expected !== null) expect(answer).toBe(expected);
    // Where the native engine is quick on the text too, the answers agree.
    if (source.startsWith('^') || expected === null) expect(answer).toBe(native(source, long));
  });
});

describe('compilePattern: the DFA cache stays bounded', () => {
  it('counts non-ASCII transitions, and drops the cache when they pass the bound', () => {
    // About 2,000 code point classes: each DFA state may learn a transition per class.
    let members = '';
    for (let index = 0; index < 1_000; index += 1) members += String.fromCharCode(0x400 + 2 * index);
    const source = `a.{8}$|[${members}]x`;
    const pattern = compilePattern(source);
    const { random } = seeded(30);
    let dropped = false;
    for (let call = 0; call < 40; call += 1) {
      let text = '';
      for (let index = 0; index < 16_000; index += 1) {
        text += random() < 0.5 ? (random() < 0.5 ? 'a' : 'b') : String.fromCharCode(0x400 + 2 * Math.floor(random() * 1_000) + (random() < 0.5 ? 1 : 0));
      }
      text += 'b'.repeat(9);
      expect(pattern.test(text)).toBe(native(source, text));
      const stats = patternCacheStats(pattern);
      expect(stats.wideTransitions).toBeLessThanOrEqual(MAX_CACHED_WIDE_TRANSITIONS);
      expect(stats.states).toBeLessThanOrEqual(1_024);
      dropped ||= stats.drops > 0;
    }
    expect(dropped).toBe(true);
  });

  it('refuses a value that is not a compiled pattern', () => {
    expect(() => patternCacheStats({ source: 'a', test: () => true, toString: () => '/a/u' })).toThrow(TypeError);
  });
});

const literalArbitrary = fc.constantFrom('a', 'b', 'A', '0', '_', ' ', '\u{1F600}', 'é', '\u2028', '\\$', '\\^', '\\\\', '\\(', '\\[', '\\{', '\\|', '\\/');

const quantifierArbitrary = fc
  .tuple(
    fc.oneof(
      fc.constantFrom('*', '+', '?'),
      fc.nat(3).map((count) => `{${count}}`),
      fc.nat(3).map((count) => `{${count},}`),
      fc.tuple(fc.nat(2), fc.nat(2)).map(([min, extra]) => `{${min},${min + extra}}`),
    ),
    fc.boolean(),
  )
  .map(([quantifier, lazy]) => (lazy ? `${quantifier}?` : quantifier));

const classItemArbitrary = fc.oneof(
  fc.constantFrom('a', 'b', 'z', 'A', '0', '9', '_', '-', '.', '$', '^', '[', '\u{1F600}', 'é', ' '),
  fc.constantFrom('\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\n', '\\-', '\\]', '\\\\', '\\b', '\\u{1F601}', '\\x2D'),
  fc.constantFrom('a-c', '0-9', 'A-Z', ' -/', '\u{1F600}-\u{1F64F}', '\\u0000-\\u007F', 'a-\u{1F600}', '\\x20-\\x7e'),
);

const classArbitrary = fc
  .tuple(fc.boolean(), fc.array(classItemArbitrary, { maxLength: 4 }))
  .map(([negated, items]) => `[${negated ? '^' : ''}${items.join('')}]`);

// Patterns drawn from the supported grammar, as source text.
const patternArbitrary: fc.Arbitrary<string> = fc
  .letrec<{ pattern: string; term: string; atom: string }>((tie) => ({
    pattern: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('term'),
      fc.array(tie('term'), { minLength: 2, maxLength: 4 }).map((terms) => terms.join('')),
      fc.array(tie('pattern'), { minLength: 2, maxLength: 3 }).map((options) => options.join('|')),
    ),
    term: fc.oneof(
      tie('atom'),
      fc.tuple(tie('atom'), quantifierArbitrary).map(([atom, quantifier]) => atom + quantifier),
      fc.constantFrom('^', '$'),
    ),
    atom: fc.oneof(
      { depthSize: 'small' },
      literalArbitrary,
      fc.constantFrom('.', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\n', '\\r', '\\t', '\\u{1F600}', '\\ud83d\\ude00', '\\ud83d', '\\x41', '\\0', '\\.', '-'),
      classArbitrary,
      tie('pattern').map((inner) => `(${inner})`),
      tie('pattern').map((inner) => `(?:${inner})`),
      tie('pattern').map((inner) => `(?<g>${inner})`),
    ),
  }))
  .pattern.map((pattern) => {
    let group = 0;
    return pattern.replace(/\(\?<g>/g, () => `(?<g${group++}>`);
  });

const textArbitrary = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 10 }).map((characters) => characters.join(''));

describe('compilePattern: differential tests against the native engine', () => {
  it('agrees with new RegExp(pattern, "u").test on generated patterns and texts', () => {
    fc.assert(
      fc.property(patternArbitrary, fc.array(textArbitrary, { minLength: 1, maxLength: 8 }), (pattern, texts) => {
        // Some generated sources are not valid (`a{2}{3}`, `^*`, `[z-a]`): both must refuse them.
        let nativeError: unknown = null;
        try {
          new RegExp(pattern, 'u');
        } catch (error) {
          nativeError = error;
        }
        if (nativeError !== null) {
          expect(() => compilePattern(pattern)).toThrow(TypeError);
          return;
        }
        const compiled = compilePattern(pattern);
        for (const text of texts) expect(compiled.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(native(pattern, text));
      }),
      // A fixed seed (FC_SEED explores others): one random seed in a CI run generated a case that
      // blocked the process for minutes, which no timeout can interrupt (40 other seeds did not).
      { numRuns: 3_000, seed: Number(process.env.FC_SEED ?? 20261201) },
    );
  });

  it('agrees wherever it accepts a source made of random syntax characters', () => {
    const sourceArbitrary = fc
      .array(fc.constantFrom('a', 'b', '(', ')', '[', ']', '{', '}', '1', '2', ',', '-', '^', '$', '|', '*', '+', '?', '.', '\\', 'd', 'u', 'x', '0', ':', '<', '>', 'g', '\u{1F600}'), { maxLength: 12 })
      .map((characters) => characters.join(''));
    let accepted = 0;
    fc.assert(
      fc.property(sourceArbitrary, fc.array(textArbitrary, { minLength: 1, maxLength: 6 }), (pattern, texts) => {
        let compiled;
        try {
          compiled = compilePattern(pattern);
        } catch (error) {
          // A refusal is a TypeError, never a crash of the parser.
          expect(error).toBeInstanceOf(TypeError);
          return;
        }
        accepted += 1;
        for (const text of texts) expect(compiled.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(native(pattern, text));
      }),
      { numRuns: 5_000, seed: Number(process.env.FC_SEED ?? 20261201) },
    );
    // The generator is useful only if a fair share of its sources are patterns.
    expect(accepted).toBeGreaterThan(500);
  });
});

describe('compilePattern: the compiled object', () => {
  it('is frozen, and survives a deep freeze of whatever holds it', () => {
    const pattern = compilePattern('^[a-z]+$');
    expect(Object.isFrozen(pattern)).toBe(true);
    const holder = deepFreeze({ pattern });
    expect(holder.pattern.test('abc')).toBe(true);
    expect(holder.pattern.test('abc1')).toBe(false);
    expect(holder.pattern.test('xyz')).toBe(true);
  });

  it('reads a non-string as its string, as RegExp.prototype.test does', () => {
    expect(compilePattern('^12$').test(12 as unknown as string)).toBe(true);
    expect(compilePattern('^null$').test(null as unknown as string)).toBe(true);
  });
});

describe('one budget for a whole validated value (review)', () => {
  // Each string costs about the base budget (the DFA keeps overflowing its cache), so with a base
  // budget per string a value of many such strings held one validation for 91 s (4,096 of them).
  const branches = Array.from({ length: 51 }, (_, index) => `a[ab]{${10 + index}}c`).join('|');
  const source = `[ab]*(?:${branches})`;
  let seed = 3;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const crafted = (length: number) => {
    let text = '';
    for (let index = 0; index < length; index++) text += random() < 0.5 ? 'a' : 'b';
    // Each matches at its end, so the validator goes on to the next string.
    return `${text}a${'b'.repeat(10)}c`;
  };

  it('a validator stops a value of many costly strings with PatternBudgetExceeded, having tested only a few', () => {
    const validate = compileSchema({ type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 1000, pattern: source } });
    const items = Array.from({ length: 200 }, () => crafted(88));
    let tested = 0;
    const counting = new Proxy(items, {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^[0-9]+$/.test(property)) tested++;
        return Reflect.get(target, property, receiver);
      },
    });
    expect(() => validate(counting)).toThrow(PatternBudgetExceeded);
    // The base budget once, plus 32 a character, covers a handful of these strings, not 200.
    expect(tested).toBeLessThan(20);
    // Each string alone is within a call's own budget: outside a validation, every one answers.
    const alone = compilePattern(source);
    expect(items.slice(0, 3).map((text) => alone.test(text))).toEqual([true, true, true]);
  });

  it('cheap patterns are untouched: 4,096 strings of an identifier pattern validate in one value', () => {
    const validate = compileSchema({ type: 'array', maxItems: 4096, items: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{1,8}$' } });
    expect(validate(Array.from({ length: 4096 }, (_, index) => `AB-${index}`))).toBe(true);
    expect(validate(['AB-1', 'ab-2'])).toBe(false);
  });
});

describe('one budget per value, on a cold pattern (review)', () => {
  it('a valid value is accepted on the first validation after start-up as on the next', () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const pick = (alphabet: string, length: number) => {
      let text = '';
      for (let index = 0; index < length; index++) text += alphabet[Math.floor(random() * alphabet.length)];
      return text;
    };
    // A deny-list of 143 six-letter words: building its DFA from nothing takes about 1.2 million steps.
    let source = '';
    for (;;) {
      const word = pick('abcdefghijklmnopqrstuvwxyz', 6);
      if (source.length + 7 > 1000) break;
      source = source === '' ? word : `${source}|${word}`;
    }
    seed = 99;
    const items = Array.from({ length: 1000 }, () => pick('abcdefghijklmnopqrstuvwxyz ', 20));
    const native = new RegExp(source, 'u');
    expect(items.some((text) => native.test(text))).toBe(false);
    const validate = compileSchema({ type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 64, not: { pattern: source } } });
    expect(validate(items)).toBe(true);
    expect(validate(items)).toBe(true);
  });
});
