// Internal to @toolseal/guard: a parsed pattern as a Thompson NFA, the automaton `compilePattern`
// simulates (https://swtch.com/~rsc/regexp/regexp1.html). Its size bounds the work per input
// character, so it is bounded too.
import type { PatternNode } from './parse-pattern.js';

/**
 * The most NFA states a pattern may compile to. A counted repetition is expanded (`[A-Z]{1,64}` is
 * 64 copies), so this refuses `(?:...){1000}{1000}` and friends at start-up; it is far above what a
 * contract's identifier pattern needs (`^[A-Z0-9-]{1,64}$` is 130 states, counting the final match state).
 */
export const MAX_PATTERN_NFA_STATES = 4_096;

/** NFA state kinds. Only `CONSUME`, `END` and `MATCH` states are ever kept in a DFA state. */
export const CONSUME = 0;
export const SPLIT = 1;
export const START = 2;
export const END = 3;
export const MATCH = 4;

/** States by index, as parallel arrays. */
export interface PatternNfa {
  readonly kind: Uint8Array;
  /** The next state (`CONSUME`, `START`, `END`) or the first branch (`SPLIT`). */
  readonly next: Int32Array;
  /** The second branch of a `SPLIT`; -1 otherwise. */
  readonly other: Int32Array;
  /** The code points a `CONSUME` state accepts (normalized ranges); empty otherwise. */
  readonly ranges: readonly (readonly number[])[];
  readonly entry: number;
}

/**
 * Builds the NFA of `tree`, as a search needs it (`trimSearchEnds`); throws a TypeError when the
 * NFA of `tree` as written would pass `MAX_PATTERN_NFA_STATES` (what is refused does not depend on
 * the trimming).
 */
export function buildPatternNfa(tree: PatternNode, pattern: string): PatternNfa {
  buildNfa(tree, pattern);
  return buildNfa(trimSearchEnds(tree), pattern);
}

function buildNfa(tree: PatternNode, pattern: string): PatternNfa {
  const kind: number[] = [];
  const next: number[] = [];
  const other: number[] = [];
  const ranges: (readonly number[])[] = [];
  const add = (stateKind: number, to: number, branch: number, accepted: readonly number[] = []): number => {
    if (kind.length >= MAX_PATTERN_NFA_STATES) {
      throw new TypeError(
        `pattern ${JSON.stringify(pattern)} is not supported: it needs more than ${MAX_PATTERN_NFA_STATES} automaton states (a counted repetition such as {n,m} is expanded n to m times)`,
      );
    }
    kind.push(stateKind);
    next.push(to);
    other.push(branch);
    ranges.push(accepted);
    return kind.length - 1;
  };

  // Built back to front: `compile(node, then)` returns the entry of a fragment that matches `node`
  // and continues at `then`, so no fragment is ever patched except a loop's back edge.
  const compile = (node: PatternNode, then: number): number => {
    switch (node.kind) {
      case 'set':
        return add(CONSUME, then, -1, node.ranges);
      case 'start':
        return add(START, then, -1);
      case 'end':
        return add(END, then, -1);
      case 'sequence': {
        let entry = then;
        for (let index = node.items.length - 1; index >= 0; index -= 1) entry = compile(node.items[index]!, entry);
        return entry;
      }
      case 'alternation': {
        let entry = compile(node.options[node.options.length - 1]!, then);
        for (let index = node.options.length - 2; index >= 0; index -= 1) entry = add(SPLIT, compile(node.options[index]!, then), entry);
        return entry;
      }
      case 'repeat':
        return compileRepeat(node.body, node.min, node.max, then);
    }
  };

  const compileRepeat = (body: PatternNode, min: number, max: number, then: number): number => {
    // A body that matches only the empty string without any state (`(?:)`) repeats to nothing; any
    // other body adds states on every copy, so the state bound also bounds the work below.
    if (max === 0 || isEmpty(body)) return then;
    let entry = then;
    let copies = min;
    if (max === Infinity) {
      // One loop, the body once: `x+` is `x` then back to a split; `x*` is that split alone.
      const loop = add(SPLIT, -1, then);
      next[loop] = compile(body, loop);
      entry = min === 0 ? loop : next[loop]!;
      copies = Math.max(min - 1, 0);
    } else {
      // `x{0,3}` as `(?:x(?:x(?:x)?)?)?`: each optional copy may stop straight to `then`.
      for (let optional = max - min; optional > 0; optional -= 1) entry = add(SPLIT, compile(body, entry), then);
    }
    for (; copies > 0; copies -= 1) entry = compile(body, entry);
    return entry;
  };

  const match = add(MATCH, -1, -1);
  const entry = compile(tree, match);
  return { kind: Uint8Array.from(kind), next: Int32Array.from(next), other: Int32Array.from(other), ranges, entry };
}

function isEmpty(node: PatternNode): boolean {
  if (node.kind === 'sequence') return node.items.every(isEmpty);
  if (node.kind === 'repeat') return node.max === 0 || isEmpty(node.body);
  return false;
}

/**
 * `tree` for a search, where a match may start and end anywhere: a repetition the pattern starts
 * with needs only its minimum count (where `x{2,9}y` matches with more copies of `x`, `x{2}y`
 * matches from a later start, and `x*y` matches where `y` does), and so does one it ends with.
 * Whether a match exists is unchanged, anchors included (the copies kept are matched where they
 * were). It keeps the DFA states of `[A-Za-z0-9._%+-]{1,64}@...` from holding 64 counters, or
 * those of `.*a.{8}` from holding the `.*` loop.
 */
export function trimSearchEnds(tree: PatternNode): PatternNode {
  return trimEdge(trimEdge(tree, false), true);
}

/** `node` with its first (`last`: final) repetition cut to its minimum, and on while that leaves nothing. */
function trimEdge(node: PatternNode, last: boolean): PatternNode {
  switch (node.kind) {
    case 'repeat':
      return node.max === node.min ? node : { kind: 'repeat', body: node.body, min: node.min, max: node.min };
    case 'alternation':
      return { kind: 'alternation', options: node.options.map((option) => trimEdge(option, last)) };
    case 'sequence': {
      const items = [...node.items];
      for (let count = 0; count < items.length; count += 1) {
        const at = last ? items.length - 1 - count : count;
        items[at] = trimEdge(items[at]!, last);
        if (!isEmpty(items[at]!)) break;
      }
      return { kind: 'sequence', items };
    }
    default:
      return node;
  }
}
