// Test-only helpers: load the shared tool contracts and the kb_search practice cases from the
// repository's top-level fixtures/ (never from outside the repository).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallContext, JsonValue, PrincipalContext, SealedResult } from '@toolseal/contracts';
import type { SealSubject } from '../seal-result.js';
import type { ToolSpec } from '../tool-spec.js';

export const FIXTURES_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'fixtures');

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/** The three shared tool specs, as the host would register them. */
export function loadToolSpecs(): { getOrder: ToolSpec; createRefundDraft: ToolSpec; kbSearch: ToolSpec } {
  const load = (name: string): ToolSpec => readJson(join(FIXTURES_DIR, 'tools', `${name}.json`)) as ToolSpec;
  return { getOrder: load('get-order'), createRefundDraft: load('create-refund-draft'), kbSearch: load('kb-search') };
}

/** One kb_search practice case: what was sealed, and the expected package. */
export interface KbCase {
  name: string;
  description: string;
  seal_input: {
    tool_name: string;
    principal: PrincipalContext;
    call: CallContext;
    arguments: JsonValue;
    subject: SealSubject;
    execution: { delivery: 'fresh' | 'local_replay' | 'receipt_reconciled' };
    now: string;
  };
  sealed: SealedResult;
}

export const KB_CASE_NAMES = ['success-with-hits', 'empty', 'unauthorized', 'rate-limited', 'truncated'] as const;

export function loadKbCases(): KbCase[] {
  const present = new Set(readdirSync(join(FIXTURES_DIR, 'kb-search')));
  return KB_CASE_NAMES.map((name) => {
    if (!present.has(`${name}.json`)) throw new Error(`missing fixture kb-search/${name}.json`);
    const document = readJson(join(FIXTURES_DIR, 'kb-search', `${name}.json`)) as Omit<KbCase, 'name'>;
    return { name, ...document };
  });
}

/** Every attack string of the copied prompt-injection corpora, with where it came from. */
export function loadInjectionStrings(): { source: string; text: string }[] {
  const directory = join(FIXTURES_DIR, 'prompt-injection');
  const strings: { source: string; text: string }[] = [];
  for (const file of ['bipia-code-attack-test.json', 'bipia-text-attack-test.json']) {
    const corpus = readJson(join(directory, file)) as Record<string, string[]>;
    for (const [category, texts] of Object.entries(corpus)) {
      texts.forEach((text, index) => strings.push({ source: `${file}#${category}/${index}`, text }));
    }
  }
  const prompts = readJson(join(directory, 'giskard-prompt-injections.json')) as { name: string; prompt: string }[];
  prompts.forEach((row, index) => strings.push({ source: `giskard#${index}:${row.name}`, text: row.prompt }));
  return strings;
}

/** Deep copy of a JSON fixture, so a test can mutate it freely. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * `kb_search` as `kb_budget`, with a `fingerprint` whose pattern `^.*a.{500}$` keeps up to 500
 * partial matches alive: on a run of a and b (`runOfAOrB`) nearly every position needs a new DFA
 * state, and the pattern engine's work budget runs out (guard README, "Patterns").
 */
export function budgetToolSpec(): ToolSpec {
  const spec = copy(loadToolSpecs().kbSearch);
  Object.assign((spec.output_schema as { properties: Record<string, unknown> }).properties, {
    fingerprint: { type: 'string', maxLength: 4096, pattern: '^.*a.{500}$' },
  });
  spec.limits = { ...spec.limits, maxStringLength: 4096, maxBytes: 16_384 };
  spec.contract.tool_name = 'kb_budget';
  return spec;
}

/** `length` characters of a and b from a fixed linear congruential sequence (`seed`). */
export function runOfAOrB(length: number, seed = 12_345): string {
  let text = '';
  let state = seed;
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) & 0x7fffffff;
    text += (state >> 16) & 1 ? 'a' : 'b';
  }
  return text;
}
