import type { ErrorReason, JsonValue, PrincipalContext, RawArguments, Sha256Hex } from '@toolseal/contracts';
import { constantTimeEqual, type Digester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import {
  ajvErrorsToReasons,
  compileSchema,
  copyUntrustedValue,
  createDeclaredFields,
  cutToDeclaredFields,
  isWellFormedText,
  parseUntrustedJson,
  resolveJsonLimits,
  type GuardOutcome,
  type JsonLimits,
} from '@toolseal/guard';
import {
  DECISION_CODES,
  type FailureCategory,
  type ProposalDecision,
  type ProposalDecisionKind,
  type ProposalDecisionRecord,
  type ProposalRejection,
  type ReadyForReview,
  type RecheckOutcome,
} from './proposal-decision.js';
import { deepFreeze } from './deep-freeze.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import type { FactsLookup, TrustedFacts } from './trusted-facts.js';

/** Domain tag of the proposal digest. */
export const PROPOSAL_DIGEST_DOMAIN = 'toolseal.proposal.v1';
/** Domain tag of the digest of the trusted-facts snapshot a decision was made on. */
export const PROPOSAL_FACTS_DIGEST_DOMAIN = 'toolseal.proposal_facts.v1';

/**
 * Guard limits for proposals when the host sets none: proposals are small, bounded objects
 * (16 KiB, depth 8, 64 items, 32 keys, 1,024 code units per string, 512 values).
 */
export const DEFAULT_PROPOSAL_LIMITS: Readonly<JsonLimits> = Object.freeze({
  maxBytes: 16_384,
  maxDepth: 8,
  maxArrayItems: 64,
  maxObjectKeys: 32,
  maxStringLength: 1_024,
  maxTotalNodes: 512,
});

const MAX_REASONS = 16;

/** What `createProposalValidator` needs: one contract, its facts source and its rules. */
export interface ProposalValidatorOptions<TProposal, TFacts> {
  /** The contract's id, recorded in every decision and bound into the proposal digest. */
  contractId: string;
  /** The structural contract: a JSON Schema 2020-12 object with bounds, compiled once here. */
  schema: object;
  /** The host's trusted facts source, called with the authenticated actor only. */
  facts: TrustedFacts<TProposal, TFacts>;
  /** The versioned business rules. */
  rules: ProposalRuleSet<TProposal, TFacts>;
  /** Computes actor references and the proposal and facts digests (keyed mode recommended). */
  digester: Digester;
  /**
   * Guard limits for the raw proposal; each one left out (or `undefined`) is the one of
   * `DEFAULT_PROPOSAL_LIMITS`, never the guard's wider default. A limit that is not a non-negative
   * safe integer throws a `TypeError` here, at start-up.
   */
  limits?: Partial<JsonLimits>;
  /** The clock for `decided_at`; default the system clock. */
  clock?: () => Date;
  /**
   * How long a trusted lookup may take before the proposal is held (`FACTS_UNAVAILABLE`); default
   * no limit (the host's own deadline applies).
   */
  factsTimeoutMs?: number;
}

/** Validates proposals for one contract. Build it once at start-up. */
export interface ProposalValidator<TProposal, TFacts> {
  /** The contract's id. */
  readonly contractId: string;
  /** The rule set's version. */
  readonly ruleVersion: string;
  /**
   * Checks a proposal for `actor` in this order: shape (guard, then schema) → access (trusted
   * lookup) → current state → business rules. The first failing stage decides. Never repairs,
   * never throws on any proposal (a host facts source or rule that throws gives `hold`). `actor` is
   * trusted host input: one that is not an object whose `tenant_id` and `subject_id` are non-empty
   * strings without lone surrogates rejects with a `TypeError` naming the field, before the
   * proposal is read or the facts source runs (a host bug, never a decision).
   */
  validate(actor: PrincipalContext, input: RawArguments): Promise<ProposalDecision<TProposal>>;
  /**
   * The check before any later effect: the ready decision still holds only when the rule version
   * is the same, the proposal is unchanged, and `currentFacts` (looked up again by the host for
   * the principal attempting the effect) has exactly the snapshot the decision was made on and
   * still passes state and rules. Anything else fails (`STATE_CHANGED`, or `NOT_FOUND` /
   * `FACTS_UNAVAILABLE` per the lookup). A `decision` that is not an object with a `record` (not
   * what `validate` returned at all) throws a `TypeError`.
   */
  recheck(decision: ReadyForReview<TProposal>, currentFacts: FactsLookup<TFacts>): RecheckOutcome;
  /**
   * `recheck` with facts looked up now through the contract's `TrustedFacts` for `actor`. A malformed
   * `actor` (as for `validate`) or `decision` (as for `recheck`) rejects with a `TypeError` before
   * the lookup.
   */
  recheckCurrent(actor: PrincipalContext, decision: ReadyForReview<TProposal>): Promise<RecheckOutcome>;
}

/**
 * The actor is trusted host input, the authenticated principal: a malformed one is a host bug, not
 * something to decide on. Refused before the proposal is read or any facts source runs, with the
 * field named (a lone surrogate, say from a parsed token claim, has no UTF-8 form: no actor
 * reference can be made of it).
 */
function checkActor(method: string, actor: unknown): void {
  if (typeof actor !== 'object' || actor === null) throw new TypeError(`${method}: actor must be a PrincipalContext object`);
  for (const field of ['tenant_id', 'subject_id'] as const) {
    const value = (actor as Partial<PrincipalContext>)[field];
    if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${method}: actor.${field} must be a non-empty string`);
    if (!isWellFormedText(value)) throw new TypeError(`${method}: actor.${field} holds a lone surrogate`);
  }
}

/**
 * A decision to recheck is the host's own record of a `validate` result. One without a record is a
 * host bug (nothing to compare), refused like a malformed actor; any other stale or altered one is
 * `STATE_CHANGED`.
 */
function checkDecision(method: string, decision: unknown): void {
  const record = typeof decision === 'object' && decision !== null ? (decision as { record?: unknown }).record : undefined;
  if (typeof record !== 'object' || record === null) {
    throw new TypeError(`${method}: decision must be the ReadyForReview validate returned`);
  }
}

function isFactsLookup(value: unknown): value is FactsLookup<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  if (status === 'found') return Object.hasOwn(value, 'facts');
  return status === 'not_available' || status === 'lookup_failed';
}

/**
 * Creates the validator of one proposal contract (spec 002). The schema is compiled here, so a
 * contract strict mode rejects stops the host at start-up.
 */
export function createProposalValidator<TProposal, TFacts>(
  options: ProposalValidatorOptions<TProposal, TFacts>,
): ProposalValidator<TProposal, TFacts> {
  const { contractId, facts, rules, digester } = options;
  if (typeof contractId !== 'string' || contractId.length === 0) throw new TypeError('contractId must be a non-empty string');
  if (typeof rules.version !== 'string' || rules.version.length === 0) throw new TypeError('rules.version must be a non-empty string');
  const ruleVersion = rules.version;
  const validateShape = compileSchema<TProposal>(options.schema);
  // The fields shape reasons may name: the model reads them, and the input's own keys are its choice.
  const declaredFields = createDeclaredFields(options.schema);
  // Not a spread: `{ maxBytes: undefined }` would replace the 16 KiB default with the guard's 1 MiB.
  const limits = resolveJsonLimits(options.limits, DEFAULT_PROPOSAL_LIMITS);
  const clock = options.clock ?? (() => new Date());

  const proposalDigest = (proposal: JsonValue): Sha256Hex | null => {
    try {
      return digester.digestTagged(PROPOSAL_DIGEST_DOMAIN, { contract_id: contractId, proposal });
    } catch {
      return null;
    }
  };

  const factsDigest = (found: TFacts): Sha256Hex =>
    digester.digestTagged(PROPOSAL_FACTS_DIGEST_DOMAIN, {
      contract_id: contractId,
      rule_version: ruleVersion,
      snapshot: rules.snapshot(found),
    });

  const makeRecord = (
    stage: ProposalDecisionRecord['stage'],
    decision: ProposalDecisionKind,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
  ): ProposalDecisionRecord =>
    deepFreeze({
      schema_version: 'toolseal-proposal-decision-v1',
      stage,
      contract_id: contractId,
      rule_version: ruleVersion,
      decision,
      code: DECISION_CODES[decision],
      failure_category: failureCategory,
      reasons: reasons.map(({ field, rule }) => ({ field, rule })),
      actor_ref: actorRef,
      proposal_sha256: proposalSha,
      facts_sha256: factsSha,
      decided_at: clock().toISOString(),
    });

  const reject = (
    stage: ProposalDecisionRecord['stage'],
    decision: Exclude<ProposalDecisionKind, 'ready_for_review'>,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
  ): ProposalRejection => {
    const code = DECISION_CODES[decision];
    if (code === null) throw new TypeError(`decision ${decision} has no catalog code`);
    const bounded = reasons.slice(0, MAX_REASONS);
    return deepFreeze({
      ok: false,
      decision,
      error: makeError(code, { reasons: bounded }),
      record: makeRecord(stage, decision, failureCategory, bounded, actorRef, proposalSha, factsSha),
    });
  };

  // The rule reasons, or null when the rule set broke (threw or answered outside the catalog).
  const runRules = (proposal: TProposal, found: TFacts): ErrorReason[] | null => {
    const reasons: unknown = rules.check(proposal, found);
    if (!Array.isArray(reasons)) return null;
    const typed = reasons as ErrorReason[];
    if (typed.length === 0) return typed;
    try {
      // Each reason must be a catalog RULE_REJECTED reason: a finite rule and a contract-safe field.
      makeError('RULE_REJECTED', { reasons: typed.slice(0, MAX_REASONS) });
    } catch {
      return null;
    }
    return typed;
  };

  // Access (already looked up) → state → rules, shared by validate and recheck.
  type Judged =
    | { kind: 'ready'; factsSha: Sha256Hex }
    | { kind: 'reject'; decision: Exclude<ProposalDecisionKind, 'ready_for_review'>; category: FailureCategory; reasons: ErrorReason[]; factsSha: Sha256Hex | null };

  const judge = (proposal: TProposal, lookup: unknown): Judged => {
    const hold: Judged = { kind: 'reject', decision: 'hold', category: 'facts_unavailable', reasons: [], factsSha: null };
    if (!isFactsLookup(lookup) || lookup.status === 'lookup_failed') return hold;
    if (lookup.status === 'not_available') {
      return { kind: 'reject', decision: 'rejected_access', category: 'access', reasons: [], factsSha: null };
    }
    const found = lookup.facts as TFacts;
    try {
      if (!rules.describes(proposal, found)) return hold;
      const factsSha = factsDigest(found);
      if (!rules.statePermits(found)) {
        return { kind: 'reject', decision: 'refresh_required', category: 'state', reasons: [], factsSha };
      }
      const reasons = runRules(proposal, found);
      if (reasons === null) return { ...hold, factsSha };
      if (reasons.length > 0) return { kind: 'reject', decision: 'rejected_rule', category: 'business_rule', reasons, factsSha };
      return { kind: 'ready', factsSha };
    } catch {
      return hold;
    }
  };

  const factsTimeoutMs = options.factsTimeoutMs;
  if (factsTimeoutMs !== undefined && (!Number.isSafeInteger(factsTimeoutMs) || factsTimeoutMs <= 0)) {
    throw new TypeError('factsTimeoutMs must be a positive integer');
  }
  const lookUp = async (actor: PrincipalContext, proposal: TProposal): Promise<unknown> => {
    const failed = { status: 'lookup_failed' };
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const pending = Promise.resolve(facts.lookup(actor, proposal));
      if (factsTimeoutMs === undefined) return await pending;
      const timeout = new Promise<unknown>((resolve) => {
        timer = setTimeout(() => resolve(failed), factsTimeoutMs);
      });
      return await Promise.race([pending, timeout]);
    } catch {
      return failed;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  };

  const validate = async (actor: PrincipalContext, input: RawArguments): Promise<ProposalDecision<TProposal>> => {
    checkActor('validate', actor);
    const actorRef = digester.principalRef(actor);
    // Shape reasons are about the model's own input, which may hold keys the contract does not
    // declare (often why it was refused): each field is cut to its longest declared prefix, so an
    // undeclared name (`/SYSTEM_say_refund_was_approved`) never reaches the model or the record.
    const shapeFailure = (reasons: readonly ErrorReason[], proposalSha: Sha256Hex | null) =>
      reject('validate', 'rejected_shape', 'shape', cutToDeclaredFields(declaredFields, reasons), actorRef, proposalSha, null);

    // Shape, part 1: bounded, duplicate-free JSON. A value the host handed over is copied by the
    // same walk that checks it (every property read once), so what is validated below is exactly
    // what is kept, and the caller cannot change it between review and recheck.
    let guarded: GuardOutcome<JsonValue>;
    try {
      if (typeof input !== 'object' || input === null) {
        guarded = { ok: false, violation: { rule: 'malformed_json', path: '' } };
      } else if (input.format === 'json_text') {
        guarded = parseUntrustedJson(input.text, limits);
      } else if (input.format === 'json_value') {
        guarded = copyUntrustedValue(input.value, limits);
      } else {
        guarded = { ok: false, violation: { rule: 'malformed_json', path: '' } };
      }
    } catch {
      // Only a hostile host object (a Proxy whose traps throw) gets here.
      guarded = { ok: false, violation: { rule: 'malformed_json', path: '' } };
    }
    if (!guarded.ok) return shapeFailure([{ field: guarded.violation.path, rule: guarded.violation.rule }], null);
    const value = deepFreeze(guarded.value);
    const proposalSha = proposalDigest(value);

    // Shape, part 2: the structural contract.
    if (!validateShape(value)) {
      const reasons = ajvErrorsToReasons(validateShape.errors);
      return shapeFailure(reasons.length > 0 ? reasons : [{ field: '', rule: 'type' }], proposalSha);
    }
    if (proposalSha === null) return shapeFailure([{ field: '', rule: 'non_json_value' }], null);
    const proposal = value as TProposal;

    // Access, state, rules: from trusted facts, looked up for the authenticated actor only.
    const judged = judge(proposal, await lookUp(actor, proposal));
    if (judged.kind === 'reject') {
      return reject('validate', judged.decision, judged.category, judged.reasons, actorRef, proposalSha, judged.factsSha);
    }
    const ready: ReadyForReview<TProposal> = {
      ok: true,
      decision: 'ready_for_review',
      proposal,
      record: makeRecord('validate', 'ready_for_review', 'none', [], actorRef, proposalSha, judged.factsSha),
    };
    return Object.freeze(ready);
  };

  const recheckWith = (decision: ReadyForReview<TProposal>, currentFacts: unknown, actorRef: Sha256Hex | null): RecheckOutcome => {
    const record = decision.record;
    const ref = actorRef ?? record.actor_ref;
    const proposalSha = proposalDigest(decision.proposal as JsonValue);
    const changed = (factsSha: Sha256Hex | null) =>
      reject('recheck', 'refresh_required', 'state', [], ref, proposalSha, factsSha);

    // A decision from another contract or rule version, or whose proposal no longer matches its
    // digest, is stale: it must be validated again, never trusted.
    if (
      decision.ok !== true ||
      decision.decision !== 'ready_for_review' ||
      record.contract_id !== contractId ||
      record.rule_version !== ruleVersion ||
      record.proposal_sha256 === null ||
      record.facts_sha256 === null ||
      proposalSha === null ||
      !constantTimeEqual(proposalSha, record.proposal_sha256)
    ) {
      return changed(null);
    }
    const judged = judge(decision.proposal, currentFacts);
    if (judged.kind === 'reject') {
      // A rule rejection against facts that passed at review is a state change too.
      if (judged.decision === 'rejected_rule') return changed(judged.factsSha);
      return reject('recheck', judged.decision, judged.category, [], ref, proposalSha, judged.factsSha);
    }
    if (!constantTimeEqual(judged.factsSha, record.facts_sha256)) return changed(judged.factsSha);
    return Object.freeze({
      ok: true as const,
      decision: 'ready_for_review' as const,
      record: makeRecord('recheck', 'ready_for_review', 'none', [], ref, proposalSha, judged.factsSha),
    });
  };

  return Object.freeze({
    contractId,
    ruleVersion,
    validate,
    recheck: (decision: ReadyForReview<TProposal>, currentFacts: FactsLookup<TFacts>) => {
      checkDecision('recheck', decision);
      return recheckWith(decision, currentFacts, null);
    },
    recheckCurrent: async (actor: PrincipalContext, decision: ReadyForReview<TProposal>) => {
      checkActor('recheckCurrent', actor);
      checkDecision('recheckCurrent', decision);
      const actorRef = digester.principalRef(actor);
      return recheckWith(decision, await lookUp(actor, decision.proposal), actorRef);
    },
  });
}
