// Internal to @toolseal/guard: the syntax tree of a JSON Schema `pattern`, read as an ECMAScript
// regular expression with the `u` flag (Ajv's `unicodeRegExp: true`), limited to what a finite
// automaton can match: `compilePattern` turns the tree into one and matches in linear time.
import {
  complementRanges,
  DIGIT_RANGES,
  DOT_RANGES,
  MAX_CODE_POINT,
  normalizeRanges,
  SPACE_RANGES,
  WORD_RANGES,
} from './code-point-ranges.js';

/** A parsed pattern. Captures are gone: `test()` only asks whether a match exists. */
export type PatternNode =
  /** One code point out of `ranges` (normalized, see code-point-ranges.ts). */
  | { readonly kind: 'set'; readonly ranges: readonly number[] }
  /** The items one after another; none is the empty pattern. */
  | { readonly kind: 'sequence'; readonly items: readonly PatternNode[] }
  | { readonly kind: 'alternation'; readonly options: readonly PatternNode[] }
  /** `body` `min` to `max` times (`max` may be `Infinity`); laziness cannot change whether a match exists. */
  | { readonly kind: 'repeat'; readonly body: PatternNode; readonly min: number; readonly max: number }
  /** `^` and `$`: the start and the end of the input (there is no `m` flag). */
  | { readonly kind: 'start' }
  | { readonly kind: 'end' };

const SYNTAX_CHARACTERS = new Set(Array.from('^$\\.*+?()[]{}|/', (character) => character.codePointAt(0)!));
const CONTROL_ESCAPES: ReadonlyMap<string, number> = new Map([
  ['f', 0x0c],
  ['n', 0x0a],
  ['r', 0x0d],
  ['t', 0x09],
  ['v', 0x0b],
]);
const CLASS_ESCAPES: ReadonlyMap<string, readonly number[]> = new Map([
  ['d', DIGIT_RANGES],
  ['D', complementRanges(DIGIT_RANGES)],
  ['w', WORD_RANGES],
  ['W', complementRanges(WORD_RANGES)],
  ['s', SPACE_RANGES],
  ['S', complementRanges(SPACE_RANGES)],
]);

/** A class atom: one code point, or a class escape's set (which cannot end a range). */
type ClassAtom = { readonly codePoint: number } | { readonly ranges: readonly number[] };

/**
 * Parses `pattern` (already known to be a valid `u`-mode regular expression: `compilePattern`
 * constructs the native `RegExp` first, which only parses). Throws a TypeError naming the first
 * construct a finite automaton cannot match: backreferences, lookaround, `\b`/`\B`, `\p{...}`.
 * The grammar is https://tc39.es/ecma262/#sec-patterns with [+UnicodeMode]: no Annex B leniency.
 */
export function parsePattern(pattern: string): PatternNode {
  // Unicode mode reads the source as code points (a surrogate pair is one character).
  const source = Array.from(pattern, (character) => character.codePointAt(0)!);
  let at = 0;

  const fail = (construct: string, why: string): never => {
    throw new TypeError(`pattern ${JSON.stringify(pattern)}: ${construct} at offset ${at} ${why}`);
  };
  const refuse = (construct: string, why: string): never => fail(construct, `is not supported: ${why}`);
  const invalid = (what: string): never => fail(what, 'is not valid in Unicode mode');
  const peek = (offset = 0): string | undefined => {
    const codePoint = source[at + offset];
    return codePoint === undefined ? undefined : String.fromCodePoint(codePoint);
  };
  const eat = (expected: string): boolean => {
    if (peek() !== expected) return false;
    at += 1;
    return true;
  };

  const parseDisjunction = (): PatternNode => {
    const options = [parseAlternative()];
    while (eat('|')) options.push(parseAlternative());
    return options.length === 1 ? options[0]! : { kind: 'alternation', options };
  };

  const parseAlternative = (): PatternNode => {
    const items: PatternNode[] = [];
    for (let next = peek(); next !== undefined && next !== '|' && next !== ')'; next = peek()) items.push(parseTerm());
    return items.length === 1 ? items[0]! : { kind: 'sequence', items };
  };

  const parseTerm = (): PatternNode => {
    const character = peek()!;
    if (character === '^' || character === '$') {
      at += 1;
      if (isQuantifierStart(peek())) invalid('a quantifier after an assertion');
      return { kind: character === '^' ? 'start' : 'end' };
    }
    return parseQuantifier(parseAtom());
  };

  const parseAtom = (): PatternNode => {
    const character = peek()!;
    if (character === '(') return parseGroup();
    if (character === '[') return parseClass();
    if (character === '.') {
      at += 1;
      return { kind: 'set', ranges: DOT_RANGES };
    }
    if (character === '\\') return parseAtomEscape();
    if (isQuantifierStart(character)) invalid(`a quantifier ${JSON.stringify(character)} with nothing to repeat`);
    if (character === ')' || character === ']' || character === '}') invalid(`a lone ${JSON.stringify(character)}`);
    at += 1;
    return { kind: 'set', ranges: [source[at - 1]!, source[at - 1]!] };
  };

  const parseGroup = (): PatternNode => {
    at += 1;
    if (eat('?')) {
      if (peek() === '=' || peek() === '!') refuse('a lookahead', 'a finite automaton cannot look ahead of the match');
      if (peek() === '<' && (peek(1) === '=' || peek(1) === '!')) refuse('a lookbehind', 'a finite automaton cannot look behind the match');
      if (eat('<')) {
        // The name's syntax was checked by the native constructor; captures do not matter here.
        while (peek() !== undefined && peek() !== '>') at += 1;
        if (!eat('>')) invalid('an unterminated group name');
      } else if (!eat(':')) {
        invalid('a group modifier');
      }
    }
    const body = parseDisjunction();
    if (!eat(')')) invalid('an unterminated group');
    return body;
  };

  const parseQuantifier = (atom: PatternNode): PatternNode => {
    let min: number;
    let max: number;
    const character = peek();
    if (character === '*' || character === '+' || character === '?') {
      at += 1;
      [min, max] = character === '*' ? [0, Infinity] : character === '+' ? [1, Infinity] : [0, 1];
    } else if (character === '{') {
      at += 1;
      min = parseDecimal();
      max = eat(',') ? (peek() === '}' ? Infinity : parseDecimal()) : min;
      if (!eat('}')) invalid('an incomplete quantifier');
      if (min > max) invalid('a quantifier whose minimum is above its maximum');
    } else {
      return atom;
    }
    eat('?');
    return { kind: 'repeat', body: atom, min, max };
  };

  // Digits beyond 2^53 saturate: any such bound is refused later by the automaton size bound.
  const parseDecimal = (): number => {
    const start = at;
    while (isDecimalDigit(peek())) at += 1;
    if (at === start) invalid('a quantifier without a number');
    return Number(String.fromCodePoint(...source.slice(start, at)));
  };

  const parseAtomEscape = (): PatternNode => {
    at += 1;
    const character = peek();
    if (character === 'b' || character === 'B') refuse(`\\${character}`, 'word boundaries are not matched by the linear-time engine');
    if (character === 'k') refuse('a named backreference (\\k<name>)', 'backreferences cannot be matched in linear time');
    if (character !== undefined && character >= '1' && character <= '9') refuse('a backreference', 'backreferences cannot be matched in linear time');
    if (character === 'p' || character === 'P') refuse(`\\${character}{...}`, 'Unicode property classes are not supported by the linear-time engine');
    const classEscape = character === undefined ? undefined : CLASS_ESCAPES.get(character);
    if (classEscape !== undefined) {
      at += 1;
      return { kind: 'set', ranges: classEscape };
    }
    const codePoint = parseCharacterEscape(false);
    return { kind: 'set', ranges: [codePoint, codePoint] };
  };

  // After the backslash. https://tc39.es/ecma262/#prod-CharacterEscape, [+UnicodeMode].
  const parseCharacterEscape = (inClass: boolean): number => {
    const character = peek();
    if (character === undefined) return invalid('a trailing backslash');
    at += 1;
    const control = CONTROL_ESCAPES.get(character);
    if (control !== undefined) return control;
    if (character === 'c') {
      const letter = peek();
      if (letter === undefined || !/^[A-Za-z]$/.test(letter)) return invalid('\\c without an ASCII letter');
      at += 1;
      return letter.codePointAt(0)! % 32;
    }
    if (character === '0') {
      if (isDecimalDigit(peek())) invalid('\\0 followed by a digit');
      return 0;
    }
    if (character === 'x') return parseHex(2);
    if (character === 'u') return parseUnicodeEscape();
    const codePoint = character.codePointAt(0)!;
    if (SYNTAX_CHARACTERS.has(codePoint) || (inClass && character === '-')) return codePoint;
    return invalid(`the identity escape \\${character}`);
  };

  const parseHex = (digits: number): number => {
    let value = 0;
    for (let index = 0; index < digits; index += 1) {
      const digit = hexValue(peek());
      if (digit < 0) invalid('an incomplete hexadecimal escape');
      value = value * 16 + digit;
      at += 1;
    }
    return value;
  };

  const parseUnicodeEscape = (): number => {
    if (eat('{')) {
      let value = 0;
      const start = at;
      while (hexValue(peek()) >= 0) {
        value = Math.min(value * 16 + hexValue(peek()), MAX_CODE_POINT + 1);
        at += 1;
      }
      if (at === start || !eat('}') || value > MAX_CODE_POINT) invalid('a \\u{...} escape');
      return value;
    }
    const unit = parseHex(4);
    // `\uD83D\uDE00` is one code point in Unicode mode: a lead surrogate escape followed by a trail
    // surrogate escape pairs up (https://tc39.es/ecma262/#prod-RegExpUnicodeEscapeSequence).
    if (unit >= 0xd800 && unit <= 0xdbff && peek() === '\\' && peek(1) === 'u') {
      const saved = at;
      at += 2;
      const trail = parseHexOrFail();
      if (trail >= 0xdc00 && trail <= 0xdfff) return 0x10000 + ((unit - 0xd800) << 10) + (trail - 0xdc00);
      at = saved;
    }
    return unit;
  };

  // Four hex digits, or -1 (the caller then reads the escape again on its own).
  const parseHexOrFail = (): number => {
    let value = 0;
    for (let index = 0; index < 4; index += 1) {
      const digit = hexValue(peek(index));
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    at += 4;
    return value;
  };

  const parseClass = (): PatternNode => {
    at += 1;
    const negated = eat('^');
    const pairs: number[] = [];
    for (;;) {
      if (peek() === undefined) invalid('an unterminated character class');
      if (eat(']')) break;
      const first = parseClassAtom();
      if (peek() === '-' && peek(1) !== undefined && peek(1) !== ']') {
        at += 1;
        const last = parseClassAtom();
        if (!('codePoint' in first) || !('codePoint' in last)) return invalid('a class escape as a range bound');
        const [low, high] = [first.codePoint, last.codePoint];
        if (low > high) invalid('a range out of order in a character class');
        pairs.push(low, high);
      } else if ('codePoint' in first) {
        pairs.push(first.codePoint, first.codePoint);
      } else {
        pairs.push(...first.ranges);
      }
    }
    const ranges = normalizeRanges(pairs);
    return { kind: 'set', ranges: negated ? complementRanges(ranges) : ranges };
  };

  // https://tc39.es/ecma262/#prod-ClassAtom, [+UnicodeMode]: `[` is an ordinary character here.
  const parseClassAtom = (): ClassAtom => {
    if (!eat('\\')) {
      at += 1;
      return { codePoint: source[at - 1]! };
    }
    const character = peek();
    if (character === 'b') {
      at += 1;
      return { codePoint: 0x08 };
    }
    if (character === 'p' || character === 'P') refuse(`\\${character}{...}`, 'Unicode property classes are not supported by the linear-time engine');
    const classEscape = character === undefined ? undefined : CLASS_ESCAPES.get(character);
    if (classEscape !== undefined) {
      at += 1;
      return { ranges: classEscape };
    }
    return { codePoint: parseCharacterEscape(true) };
  };

  const tree = parseDisjunction();
  if (at < source.length) invalid(`a lone ${JSON.stringify(peek())}`);
  return tree;
}

function isQuantifierStart(character: string | undefined): boolean {
  return character === '*' || character === '+' || character === '?' || character === '{';
}

function isDecimalDigit(character: string | undefined): boolean {
  return character !== undefined && character >= '0' && character <= '9';
}

function hexValue(character: string | undefined): number {
  if (character === undefined || character.length !== 1) return -1;
  const value = parseInt(character, 16);
  return Number.isNaN(value) ? -1 : value;
}
