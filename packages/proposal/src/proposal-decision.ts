import type { ErrorCode, ErrorReason, ModelError, Sha256Hex } from '@toolseal/contracts';

/**
 * The finite decisions of spec 002. `ready_for_review` is neither approval nor execution: it says
 * the proposal matched the trusted facts for this actor, rule version and state snapshot.
 */
export type ProposalDecisionKind =
  | 'ready_for_review'
  | 'rejected_shape'
  | 'rejected_access'
  | 'rejected_rule'
  | 'hold'
  | 'refresh_required';

/** The stage a proposal failed at, for the protected record. */
export type FailureCategory = 'none' | 'shape' | 'access' | 'state' | 'business_rule' | 'facts_unavailable';

/** The catalog code of each decision (`null` for ready). */
export const DECISION_CODES: Readonly<Record<ProposalDecisionKind, ErrorCode | null>> = Object.freeze({
  ready_for_review: null,
  rejected_shape: 'INVALID_ARGUMENTS',
  rejected_access: 'NOT_FOUND',
  rejected_rule: 'RULE_REJECTED',
  hold: 'FACTS_UNAVAILABLE',
  refresh_required: 'STATE_CHANGED',
});

/**
 * The `schema_version` of every record this package makes. Version 2 added `record_sha256`; a
 * stored version 1 record (without it) is never rechecked as ready: it is `STATE_CHANGED`, and the
 * proposal must be validated again.
 */
export const PROPOSAL_DECISION_SCHEMA_VERSION = 'toolseal-proposal-decision-v2';

/**
 * The protected record of one validation or recheck (spec 002: "Keep a minimal protected decision
 * record with rule version and failure category"). It holds digests and finite codes only: never
 * the proposal, the facts, or any customer detail. Use a keyed digester: a plain SHA-256 of a small
 * proposal can be found by guessing, and anyone who can write the stored record can recompute every
 * digest in it, `record_sha256` included.
 */
export interface ProposalDecisionRecord {
  /** Always `PROPOSAL_DECISION_SCHEMA_VERSION` (`toolseal-proposal-decision-v2`). */
  schema_version: typeof PROPOSAL_DECISION_SCHEMA_VERSION;
  /** `validate` for a first check, `recheck` for the check before a later effect. */
  stage: 'validate' | 'recheck';
  /** The proposal contract's id. */
  contract_id: string;
  /** The rule set's version. */
  rule_version: string;
  /** The decision. */
  decision: ProposalDecisionKind;
  /** Its catalog code, `null` when ready. */
  code: ErrorCode | null;
  /** Where it failed, `none` when ready. */
  failure_category: FailureCategory;
  /** The same safe reasons the model sees (contract-declared fields and finite rules). */
  reasons: ErrorReason[];
  /** `principalRef` of the actor, never the raw tenant or subject. */
  actor_ref: Sha256Hex;
  /**
   * `digestTagged('toolseal.proposal.v1', { contract_id, proposal })` for a proposal that passed the
   * structural contract. For one the contract refused (`rejected_shape`), the same digest under
   * `toolseal.proposal_rejected_shape.v1` instead: it still identifies the refused value for audit,
   * and can never equal the digest of a proposal that was reviewed. `null` when the input was not
   * JSON the guard accepts.
   */
  proposal_sha256: Sha256Hex | null;
  /** Digest of the rule set's snapshot of the trusted facts, when they were loaded; else `null`. */
  facts_sha256: Sha256Hex | null;
  /** When the decision was made (UTC RFC 3339). */
  decided_at: string;
  /**
   * `digestTagged('toolseal.proposal_record.v1', every other field of this record)`, made with the
   * validator's digester. `recheck` accepts a decision only when it matches, so no field of a record
   * can be altered, nor digests of different records combined into one (a decision, actor, proposal
   * digest or facts digest taken from another record). It covers the fields listed here only, so
   * `recheck` also refuses (`STATE_CHANGED`) a record holding any other field, own or inherited
   * (an `approved_by` a store added), and a decision holding anything beyond `ok`, `decision`,
   * `proposal` and `record`: nothing unauthenticated passes a recheck. Trust it only as far as the
   * digester's key: with a plain (unkeyed) digester anyone can recompute it.
   */
  record_sha256: Sha256Hex;
}

/** A proposal that matched the trusted facts. Not approval, not execution. */
export interface ReadyForReview<TProposal> {
  readonly ok: true;
  readonly decision: 'ready_for_review';
  /** The proposal exactly as validated (a frozen copy): never repaired. */
  readonly proposal: TProposal;
  /** The protected record. */
  readonly record: ProposalDecisionRecord;
}

/** A refused proposal: a catalogued, model-safe error plus the protected record. */
export interface ProposalRejection {
  readonly ok: false;
  readonly decision: Exclude<ProposalDecisionKind, 'ready_for_review'>;
  /** What the model may see: a catalog error (`DECISION_CODES[decision]`). */
  readonly error: ModelError;
  /** The protected record. */
  readonly record: ProposalDecisionRecord;
}

/** The outcome of `validate`. */
export type ProposalDecision<TProposal> = ReadyForReview<TProposal> | ProposalRejection;

/** The outcome of `recheck`: still ready, or why not any more. */
export type RecheckOutcome =
  | { readonly ok: true; readonly decision: 'ready_for_review'; readonly record: ProposalDecisionRecord }
  | ProposalRejection;
