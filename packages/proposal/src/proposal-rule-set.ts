import type { ErrorReason, JsonValue } from '@toolseal/contracts';

/**
 * A versioned set of business rules for one proposal contract, computed from trusted facts only.
 * Every function must be deterministic and must not change its arguments. A rule that throws makes
 * the validator hold the proposal (`FACTS_UNAVAILABLE`): a broken rule service is never a pass.
 */
export interface ProposalRuleSet<TProposal, TFacts> {
  /** The rule version, recorded in every decision; a decision made under another version must be redone. */
  readonly version: string;
  /**
   * True when `facts` are the facts of the resource `proposal` targets (the host looked up the
   * right thing). False makes the validator hold: facts for something else prove nothing.
   */
  describes(proposal: TProposal, facts: TFacts): boolean;
  /** True when the resource's current state permits a proposal at all (else: refresh required). */
  statePermits(facts: TFacts): boolean;
  /**
   * The business rules. Returns safe reasons: each `rule` from `RULE_REJECTION_RULES`, each
   * `field` a pointer built from contract-declared names and indexes. Empty when the proposal
   * equals what the trusted facts allow. Never repairs: it judges the proposal as given.
   */
  check(proposal: TProposal, facts: TFacts): ErrorReason[];
  /**
   * The part of the facts a decision depends on, as a JSON value. Its digest is kept in a ready
   * decision; any difference at recheck means the state changed since review.
   */
  snapshot(facts: TFacts): JsonValue;
}
