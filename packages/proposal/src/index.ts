export type { FactsLookup, TrustedFacts } from './trusted-facts.js';
export type { ProposalRuleSet } from './proposal-rule-set.js';
export {
  DECISION_CODES,
  PROPOSAL_DECISION_SCHEMA_VERSION,
  type ProposalDecisionKind,
  type FailureCategory,
  type ProposalDecisionRecord,
  type ReadyForReview,
  type ProposalRejection,
  type ProposalDecision,
  type RecheckOutcome,
} from './proposal-decision.js';
export {
  createProposalValidator,
  DEFAULT_FACTS_TIMEOUT_MS,
  DEFAULT_PROPOSAL_LIMITS,
  PROPOSAL_DIGEST_DOMAIN,
  PROPOSAL_REJECTED_SHAPE_DIGEST_DOMAIN,
  PROPOSAL_RECORD_DIGEST_DOMAIN,
  PROPOSAL_FACTS_DIGEST_DOMAIN,
  type ProposalValidator,
  type ProposalValidatorOptions,
} from './create-proposal-validator.js';
export { REFUND_PROPOSAL_SCHEMA, REFUND_PROPOSAL_CONTRACT_ID } from './refund-proposal-schema.js';
export {
  REFUND_RULES_V1,
  createRefundProposalValidator,
  type RefundUnit,
  type RefundProposal,
  type RefundProposalLine,
  type RefundOrderFacts,
  type RefundOrderLine,
  type RefundOrderSource,
  type RefundProposalValidatorOptions,
} from './refund-rules.js';
export { copyPrincipal, fitsPrincipalIdLength, MAX_PRINCIPAL_ID_LENGTH, MAX_PRINCIPAL_ROLES } from './copy-principal.js';
export { createEffectRecorder, type EffectRecorder, type AttemptedEffect } from './effect-recorder.js';
export { deepFreeze } from '@toolseal/guard';
