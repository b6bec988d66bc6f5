import { buildPatternNfa, CONSUME, END, MATCH, SPLIT, START, type PatternNfa } from './build-pattern-nfa.js';
import { rangesContain } from './code-point-ranges.js';
import { parsePattern } from './parse-pattern.js';

/**
 * The longest pattern `compilePattern` accepts, in UTF-16 code units. Contract patterns are short
 * identifier shapes; the bound keeps start-up parsing trivially cheap.
 */
export const MAX_PATTERN_LENGTH = 1_024;

/**
 * A compiled pattern: `test(text)` answers as `new RegExp(source, 'u').test(text)` does, in time
 * linear in `text` whatever the pattern (a JSON Schema `pattern` is a search: a match anywhere in
 * the text counts, unless the pattern anchors itself with `^`/`$`).
 */
export interface CompiledPattern {
  /** The pattern as given. */
  readonly source: string;
  /**
   * Throws a `PatternBudgetExceeded` instead of answering when `text` would cost more automaton
   * work than its length allows (see `PatternBudgetExceeded`); never a guessed answer.
   */
  test(text: string): boolean;
  /** `/source/u`: Ajv keys its compiled-pattern scope by this text, so it must differ per pattern. */
  toString(): string;
}

/**
 * Thrown by `CompiledPattern.test` when the text costs more automaton work than the call's budget:
 * `PATTERN_BUDGET_BASE` plus `PATTERN_BUDGET_PER_CHARACTER` per UTF-16 code unit of the text,
 * counted in NFA states visited while building DFA transitions the cache does not hold. A pattern
 * whose DFA fits the cache spends only its warm-up; one whose DFA keeps overflowing the cache
 * (`[ab]*a[ab]{2000}$`, `^.*a.{2000}$`) would otherwise pay a pass over thousands of NFA states for
 * every character, seconds for a 16 KiB string. The text is never part of the message (it is
 * untrusted); treat the error as "no answer", as for any validator that throws.
 */
export class PatternBudgetExceeded extends RangeError {
  /** The pattern as given. */
  readonly pattern: string;
  /** The length of the text, in UTF-16 code units. */
  readonly textLength: number;

  constructor(pattern: string, textLength: number, budget: number) {
    super(
      `pattern ${JSON.stringify(pattern)} cannot be matched against a text of ${textLength} characters within its budget of ${budget} automaton steps: the pattern needs too many automaton states at once (a long counted repetition after \`*\`, \`.*\` or an unanchored start)`,
    );
    this.name = 'PatternBudgetExceeded';
    this.pattern = pattern;
    this.textLength = textLength;
  }
}

/**
 * The work budget of one `CompiledPattern.test` call, in NFA states visited while building DFA
 * transitions: this much for any text (the warm-up of a pattern's DFA, which the cache keeps across
 * calls: a few thousand to 80,000 for identifier, email and hostname shapes), plus
 * `PATTERN_BUDGET_PER_CHARACTER` for each UTF-16 code unit of the text (the costliest realistic
 * shape, an email pattern without `^`, needs up to about 17 per character on crafted input; anchored
 * ones well under 1). At 25 to 50 ns a visit, a call that runs out has spent about 15 to 25 ms
 * plus about 1 to 1.5 µs per character: tens of milliseconds for a 16 KiB string.
 */
export const PATTERN_BUDGET_BASE = 1 << 19;
/** See `PATTERN_BUDGET_BASE`. */
export const PATTERN_BUDGET_PER_CHARACTER = 32;

// The validation running now (`beginPatternScope`), if any: its `test` calls share one budget,
// `PATTERN_BUDGET_BASE` once for each pattern they use (its warm-up; a schema holds a bounded
// number of patterns) plus `PATTERN_BUDGET_PER_CHARACTER` for every character they test, so a value
// of many strings cannot spend the base budget once per string (4,096 crafted strings of 100
// characters held one validation for 91 s). Validation is synchronous: nothing interleaves.
let scopeDepth = 0;
/** Base budgets a pattern adds to the first scope it is used in (its DFA is built from nothing). */
const FIRST_USE_BASES = 8;
/** Numbers the scopes (from 1), so each pattern adds its base budget once per scope. */
let scopeGeneration = 0;
let scopeAllowance = 0;
let scopeSpent = 0;
/** The patterns that made a map of answers in the scope running now (`endPatternScope` drops them). */
const memoized: { forget(): void }[] = [];

/**
 * Internal to @toolseal/guard (`compileSchema` wraps every validator in it): from here to the
 * matching `endPatternScope`, every `CompiledPattern.test` call draws on one budget, the base once
 * per pattern. Nested scopes join the outer one.
 */
export function beginPatternScope(): void {
  if (scopeDepth === 0) {
    scopeGeneration += 1;
    scopeAllowance = 0;
    scopeSpent = 0;
  }
  scopeDepth += 1;
}

/** Ends the scope `beginPatternScope` began. */
export function endPatternScope(): void {
  scopeDepth -= 1;
  if (scopeDepth !== 0) return;
  // The values of a validation are not kept past it (a pattern tested once keeps its last text
  // until its next scope).
  for (const pattern of memoized) pattern.forget();
  memoized.length = 0;
}

/**
 * Compiles a JSON Schema `pattern` (an ECMAScript regular expression, Unicode mode) to a matcher
 * whose `test` never backtracks: a lazily built DFA over sets of NFA states, as RE2 does, so
 * `^(a+)+$` on a long run of `a`s costs what `^a+$` costs. A contract author's pattern is
 * otherwise a way for a model's 30-character string to block the event loop for seconds
 * (validation is synchronous: no deadline can stop it).
 *
 * Throws a TypeError at compile time, naming the construct, for: a pattern longer than
 * `MAX_PATTERN_LENGTH`; one that is not a valid `u`-mode regular expression; backreferences
 * (`\1`, `\k<name>`), lookahead and lookbehind, `\b`/`\B` and `\p{...}`/`\P{...}`, which a finite
 * automaton does not match; and one whose automaton would pass `MAX_PATTERN_NFA_STATES`.
 */
export function compilePattern(pattern: string): CompiledPattern {
  if (typeof pattern !== 'string') throw new TypeError('compilePattern: a pattern must be a string');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new TypeError(`pattern of ${pattern.length} characters is not supported: the limit is ${MAX_PATTERN_LENGTH}`);
  }
  try {
    // Only parses (nothing is matched): what ECMAScript refuses in Unicode mode is refused with its
    // own message, and the parser below can rely on a well-formed pattern.
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new TypeError(`pattern ${JSON.stringify(pattern)} is not a valid regular expression in Unicode mode (${error instanceof Error ? error.message : String(error)})`, {
      cause: error,
    });
  }
  const dfa = new LazyDfa(buildPatternNfa(parsePattern(pattern), pattern), pattern);
  // A frozen plain object: the mutable DFA cache stays out of reach (a `deepFreeze` of a registry
  // holding this would otherwise freeze the cache, and a typed array cannot even be frozen).
  // `String(text)` as `RegExp.prototype.test` does, for a caller that hands over a non-string.
  const compiled: CompiledPattern = Object.freeze({ source: pattern, test: (text: string) => dfa.test(typeof text === 'string' ? text : String(text)), toString: () => `/${pattern}/u` });
  matchers.set(compiled, dfa);
  return compiled;
}

const matchers = new WeakMap<CompiledPattern, LazyDfa>();

/** What a compiled pattern's DFA cache holds, and what its last `test` call spent. */
export interface PatternCacheStats {
  readonly states: number;
  readonly nfaStates: number;
  readonly wideTransitions: number;
  /** How many times the cache was dropped. */
  readonly drops: number;
  /** Budget units the last `test` call spent. */
  readonly spent: number;
}

/**
 * Internal to @toolseal/guard (not exported by the package): the cache of a pattern
 * `compilePattern` returned, for tests of its bounds.
 */
export function patternCacheStats(pattern: CompiledPattern): PatternCacheStats {
  const dfa = matchers.get(pattern);
  if (dfa === undefined) throw new TypeError('patternCacheStats: not a pattern compilePattern returned');
  return dfa.stats();
}

// DFA cache bounds, per compiled pattern: past any of them, the cache is dropped and rebuilt from
// the current state on. DFA states: 1,024, each with a 128-entry Int32Array for ASCII (512 KiB in
// all). NFA state ids kept in DFA states: 2^18 (1 MiB as Int32Arrays, and about as much again as
// the cache keys' text). Non-ASCII transitions: 2^15 Map entries over all DFA states (about 1 MiB
// in V8). So a pattern's cache holds a few MiB at most, whatever the inputs.
const MAX_CACHED_STATES = 1_024;
const MAX_CACHED_NFA_STATES = 1 << 18;
/** Internal (not exported by the package), for tests of the bound. */
export const MAX_CACHED_WIDE_TRANSITIONS = 1 << 15;
const INITIAL_CAPACITY = 8;

// Transition values besides a DFA state index.
const UNKNOWN = -1;
const MATCHED = -2;
const DEAD = -3;

/** The matcher: a DFA over sets of NFA states, built one transition at a time as input needs it. */
class LazyDfa {
  private readonly nfa: PatternNfa;
  private readonly pattern: string;
  /** `state * 128 + codeUnit` → next state, for ASCII input: the common case is one load. */
  private table = new Int32Array(INITIAL_CAPACITY * 128).fill(UNKNOWN);
  /** Whether the text may end in a state (a `$` or the end of the pattern is reachable there). */
  private acceptsAtEnd = new Uint8Array(INITIAL_CAPACITY);
  /** Non-ASCII transitions, by the code point's class (code points no NFA state tells apart). */
  private wide: Map<number, number>[] = [];
  /** The NFA states (consuming ones and `$`) each DFA state stands for, sorted. */
  private sets: Int32Array[] = [];
  private readonly index = new Map<string, number>();
  private cachedNfaStates = 0;
  /** Entries in all of `wide`. */
  private cachedWideTransitions = 0;
  /** The current `test` call's budget (`PATTERN_BUDGET_BASE`...), and what is left of it. */
  private budget = 0;
  private budgetLeft = 0;
  /** The last pattern scope this pattern drew its base budget in (see `beginPatternScope`). */
  private scope = 0;
  /**
   * The answers of this validation (scope) so far, so that a text tested again costs nothing: a
   * schema that applies a subschema to the same string again and again (definitions that each
   * apply the next one twice) had the automaton run each time, on a budget that grew with each
   * test. The first answer of a scope is kept in `lastText`/`lastAnswer`; a map is made only for
   * a second text (most validations test a pattern once). Dropped when the scope ends.
   */
  private memoScope = 0;
  private lastText: string | null = null;
  private lastAnswer = false;
  private memo: Map<string, boolean> | null = null;
  /** Bumped each time the cache is dropped, so a step never writes to a state that is gone. */
  private epoch = 0;
  private initial = UNKNOWN;
  /** The pattern matches the empty string at position 0, so every text has a match. */
  private readonly matchesAll: boolean;
  /** Where a match may begin after position 0 (the search restarts at every code point). */
  private readonly restart: Int32Array;
  /** Sorted starts of the code point classes: every range bound of every consuming state. */
  private readonly classBounds: Int32Array;
  private readonly marks: Uint32Array;
  private generation = 0;
  private readonly stack: Int32Array;

  constructor(nfa: PatternNfa, pattern: string) {
    this.nfa = nfa;
    this.pattern = pattern;
    this.marks = new Uint32Array(nfa.kind.length);
    this.stack = new Int32Array(nfa.kind.length);
    const bounds = new Set<number>([0]);
    for (const ranges of nfa.ranges) {
      for (let index = 0; index < ranges.length; index += 2) bounds.add(ranges[index]!).add(ranges[index + 1]! + 1);
    }
    this.classBounds = Int32Array.from([...bounds].sort((left, right) => left - right));
    const restart: number[] = [];
    this.generation += 1;
    this.close(nfa.entry, false, restart);
    this.restart = Int32Array.from(restart);
    this.generation += 1;
    this.matchesAll = this.close(nfa.entry, true, []);
  }

  test(text: string): boolean {
    if (this.matchesAll) return true;
    const length = text.length;
    const own = PATTERN_BUDGET_BASE + PATTERN_BUDGET_PER_CHARACTER * length;
    if (scopeDepth === 0) {
      this.budget = own;
      this.budgetLeft = own;
      return this.run(text, length);
    }
    // Within a validation: a text tested before in it gets the same answer at no cost.
    if (this.memoScope === scopeGeneration) {
      if (text === this.lastText) return this.lastAnswer;
      const known = this.memo?.get(text);
      if (known !== undefined) return known;
    } else {
      this.memoScope = scopeGeneration;
      this.lastText = null;
      this.memo = null;
    }
    // What the call may spend is also bounded by what the validation has left.
    if (this.scope !== scopeGeneration) {
      // The first scope a pattern is used in builds its DFA from nothing: a larger warm-up (a
      // deny-list of 143 words needed 1.2 million steps), granted once in the process's life.
      scopeAllowance += this.scope === 0 ? PATTERN_BUDGET_BASE * FIRST_USE_BASES : PATTERN_BUDGET_BASE;
      this.scope = scopeGeneration;
    }
    scopeAllowance += PATTERN_BUDGET_PER_CHARACTER * length;
    this.budget = Math.max(0, Math.min(own, scopeAllowance - scopeSpent));
    this.budgetLeft = this.budget;
    // Not counted when `run` throws: the validation ends with it.
    const answer = this.run(text, length);
    scopeSpent += this.budget - this.budgetLeft;
    if (this.lastText === null) {
      this.lastText = text;
      this.lastAnswer = answer;
    } else {
      if (this.memo === null) {
        this.memo = new Map([[this.lastText, this.lastAnswer]]);
        memoized.push(this);
      }
      this.memo.set(text, answer);
    }
    return answer;
  }

  /** Forgets the texts of the scope that ended (`endPatternScope`). */
  forget(): void {
    this.lastText = null;
    this.memo = null;
  }

  private run(text: string, length: number): boolean {
    let state = this.initial >= 0 ? this.initial : this.start();
    let table = this.table;
    for (let at = 0; at < length; ) {
      let codePoint = text.charCodeAt(at++);
      let next: number;
      if (codePoint < 128) {
        next = table[(state << 7) | codePoint]!;
        if (next >= 0) {
          state = next;
          continue;
        }
      } else {
        // Unicode mode: a surrogate pair is one character; a lone surrogate is one too.
        if (codePoint >= 0xd800 && codePoint <= 0xdbff && at < length) {
          const trail = text.charCodeAt(at);
          if (trail >= 0xdc00 && trail <= 0xdfff) {
            codePoint = 0x10000 + ((codePoint - 0xd800) << 10) + (trail - 0xdc00);
            at += 1;
          }
        }
        next = this.wide[state]!.get(this.classOf(codePoint)) ?? UNKNOWN;
      }
      if (next === UNKNOWN) {
        // Spent before this step, not after: a text whose last step overran still gets its answer.
        if (this.budgetLeft < 0) {
          // Counted in the scope even so: a caller inside the validation may catch the error.
          if (scopeDepth > 0) scopeSpent += this.budget - this.budgetLeft;
          throw new PatternBudgetExceeded(this.pattern, length, this.budget);
        }
        next = this.step(state, codePoint);
        table = this.table;
      }
      if (next === MATCHED) return true;
      if (next === DEAD) return false;
      state = next;
    }
    return this.acceptsAtEnd[state] === 1;
  }

  stats(): PatternCacheStats {
    let wideTransitions = 0;
    for (const transitions of this.wide) wideTransitions += transitions.size;
    return { states: this.sets.length, nfaStates: this.cachedNfaStates, wideTransitions, drops: this.epoch, spent: this.budget - this.budgetLeft };
  }

  private start(): number {
    this.generation += 1;
    const found: number[] = [];
    this.close(this.nfa.entry, true, found);
    this.initial = this.intern(found, true);
    return this.initial;
  }

  /** The state after `state` reads `codePoint`, cached unless the cache was dropped meanwhile. */
  private step(state: number, codePoint: number): number {
    const { kind, next, ranges } = this.nfa;
    const set = this.sets[state]!;
    const found: number[] = [];
    this.budgetLeft -= set.length + this.restart.length;
    this.generation += 1;
    let result = UNKNOWN;
    for (let index = 0; index < set.length; index += 1) {
      const nfaState = set[index]!;
      if (kind[nfaState] === CONSUME && rangesContain(ranges[nfaState]!, codePoint) && this.close(next[nfaState]!, false, found)) {
        result = MATCHED;
        break;
      }
    }
    const epoch = this.epoch;
    if (result !== MATCHED) {
      // `restart` is closed already (and never reaches MATCH, or `matchesAll` would hold).
      for (let index = 0; index < this.restart.length; index += 1) {
        const nfaState = this.restart[index]!;
        if (this.marks[nfaState] !== this.generation) {
          this.marks[nfaState] = this.generation;
          found.push(nfaState);
        }
      }
      if (found.length === 0) result = DEAD;
      else {
        // A full set of non-ASCII transitions is dropped with the rest, before `intern` numbers the
        // next state (a drop after it would leave `result` naming a state that is gone).
        if (codePoint >= 128 && this.cachedWideTransitions >= MAX_CACHED_WIDE_TRANSITIONS) this.drop();
        result = this.intern(found, false);
      }
    }
    if (this.epoch === epoch) {
      if (codePoint < 128) this.table[(state << 7) | codePoint] = result;
      else if (this.cachedWideTransitions < MAX_CACHED_WIDE_TRANSITIONS) {
        this.wide[state]!.set(this.classOf(codePoint), result);
        this.cachedWideTransitions += 1;
      }
    }
    return result;
  }

  /** The index of the DFA state for `found`, adding it (and dropping a full cache first). */
  private intern(found: number[], initial: boolean): number {
    // Sorting and joining `found` costs about a visit per state.
    this.budgetLeft -= found.length;
    // A typed array sorts numerically, natively (no comparator calls).
    const sorted = Int32Array.from(found).sort();
    // The initial state is told apart: its `$` is also at the start (`$^` matches "").
    const key = (initial ? '^' : '') + sorted.join(',');
    const known = this.index.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= MAX_CACHED_STATES || this.cachedNfaStates + found.length > MAX_CACHED_NFA_STATES) this.drop();
    const state = this.sets.length;
    if (state * 128 >= this.table.length) this.grow();
    this.sets.push(sorted);
    this.wide.push(new Map());
    this.acceptsAtEnd[state] = this.reachesMatchAtEnd(sorted, initial) ? 1 : 0;
    this.index.set(key, state);
    this.cachedNfaStates += found.length;
    return state;
  }

  private drop(): void {
    this.table = new Int32Array(INITIAL_CAPACITY * 128).fill(UNKNOWN);
    this.acceptsAtEnd = new Uint8Array(INITIAL_CAPACITY);
    this.wide = [];
    this.sets = [];
    this.index.clear();
    this.cachedNfaStates = 0;
    this.cachedWideTransitions = 0;
    this.initial = UNKNOWN;
    this.epoch += 1;
  }

  private grow(): void {
    const capacity = Math.min((this.table.length / 128) * 2, MAX_CACHED_STATES);
    const table = new Int32Array(capacity * 128).fill(UNKNOWN);
    table.set(this.table);
    this.table = table;
    const acceptsAtEnd = new Uint8Array(capacity);
    acceptsAtEnd.set(this.acceptsAtEnd);
    this.acceptsAtEnd = acceptsAtEnd;
  }

  /**
   * Adds to `found` the consuming and `$` states reachable from `from` without reading input (in
   * the current generation); `^` holds only when `atStart`, and `$` holds (is passed through
   * instead of kept) only when `atEnd`. Returns whether MATCH is reachable.
   */
  private close(from: number, atStart: boolean, found: number[], atEnd = false): boolean {
    const { kind, next, other } = this.nfa;
    const { marks, stack, generation } = this;
    let matched = false;
    let depth = 0;
    let visited = 0;
    const push = (nfaState: number): void => {
      if (nfaState >= 0 && marks[nfaState] !== generation) {
        marks[nfaState] = generation;
        stack[depth++] = nfaState;
        visited += 1;
      }
    };
    push(from);
    while (depth > 0) {
      const nfaState = stack[--depth]!;
      switch (kind[nfaState]) {
        case END:
          if (atEnd) push(next[nfaState]!);
          else found.push(nfaState);
          break;
        case CONSUME:
          found.push(nfaState);
          break;
        case MATCH:
          matched = true;
          break;
        case SPLIT:
          push(next[nfaState]!);
          push(other[nfaState]!);
          break;
        case START:
          if (atStart) push(next[nfaState]!);
          break;
      }
    }
    this.budgetLeft -= visited;
    return matched;
  }

  /** Whether MATCH is reachable from the `$` states of `found` once the text has ended. */
  private reachesMatchAtEnd(found: Int32Array, atStart: boolean): boolean {
    const { kind, next } = this.nfa;
    this.generation += 1; // one generation for every closure below: each state is visited once
    const passed: number[] = [];
    for (const nfaState of found) {
      if (kind[nfaState] === END && this.close(next[nfaState]!, atStart, passed, true)) return true;
    }
    return false;
  }

  /** The class of a code point: how many class starts are at or below it. */
  private classOf(codePoint: number): number {
    const bounds = this.classBounds;
    let low = 0;
    let high = bounds.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (bounds[middle]! <= codePoint) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
