// Shared by the proposal tests that drive the validator with hostile host answers.
import { makeError } from '@toolseal/errors';
import { expect } from 'vitest';
import type { ProposalDecision, RecheckOutcome } from '../proposal-decision.js';

/** What `run` answered or threw, never a rejection of the test itself. */
export async function settle<T>(run: () => T | Promise<T>): Promise<{ value: T } | { thrown: unknown }> {
  try {
    return { value: await run() };
  } catch (thrown) {
    return { thrown };
  }
}

/**
 * The outcome is a hold: answered (not thrown), FACTS_UNAVAILABLE. With `noFactsDigest`, also no
 * facts digest kept (a hold before any facts were judged).
 */
export function expectHold(
  outcome: { value: ProposalDecision<unknown> | RecheckOutcome } | { thrown: unknown },
  label: string,
  noFactsDigest = false,
): void {
  expect(outcome, label).toHaveProperty('value');
  if (!('value' in outcome)) return;
  expect(outcome.value.decision, label).toBe('hold');
  if (!outcome.value.ok) {
    expect(outcome.value.error, label).toEqual(makeError('FACTS_UNAVAILABLE'));
    expect(outcome.value.record.failure_category, label).toBe('facts_unavailable');
  }
  if (noFactsDigest) expect(outcome.value.record.facts_sha256, label).toBeNull();
}
