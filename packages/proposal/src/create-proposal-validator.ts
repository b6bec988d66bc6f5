import type { ErrorReason, JsonValue, PrincipalContext, RawArguments, Sha256Hex } from '@toolseal/contracts';
import { constantTimeEqual, isSha256Hex, type Digester } from '@toolseal/digests';
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
  /**
   * Guard limits for the trusted facts, which are copied (JSON data only) before the rules judge
   * them; each one left out is the guard's `DEFAULT_JSON_LIMITS` (1 MiB, depth 32...). Facts past
   * them hold the proposal. A limit that is not a non-negative safe integer throws a `TypeError`
   * here, at start-up.
   */
  factsLimits?: Partial<JsonLimits>;
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
   * never throws on any proposal (a host facts source, facts or rule that throws, or a rule that
   * answers outside its contract, gives `hold`). `actor` is trusted host input: one that is not an
   * object whose `tenant_id` and `subject_id` are non-empty strings without lone surrogates, and
   * whose `roles`, when present, are an array of strings, rejects with a `TypeError` naming the
   * field, before the proposal is read or the facts source runs (a host bug, never a decision), and
   * so does one with any other own enumerable string-keyed field that is an accessor or cannot be
   * read. It is read once, into a frozen copy that keeps those other fields (shallowly): the facts
   * source receives that copy. The actor reference is made of `tenant_id` and `subject_id` only.
   */
  validate(actor: PrincipalContext, input: RawArguments): Promise<ProposalDecision<TProposal>>;
  /**
   * The check before any later effect: the ready decision still holds only when the rule version
   * is the same, the proposal is unchanged, and `currentFacts` (looked up again by the host for
   * the principal attempting the effect) has exactly the snapshot the decision was made on and
   * still passes state and rules. Anything else fails (`STATE_CHANGED`, or `NOT_FOUND` /
   * `FACTS_UNAVAILABLE` per the lookup). A `decision` that is not an object with a `record` (not
   * what `validate` returned at all) throws a `TypeError`. The decision and its record are read
   * once; a proposal this validator did not return is judged as a private copy (`STATE_CHANGED`
   * when it is not plain JSON within the proposal limits). A record whose `actor_ref` is not 64
   * lowercase hex is `STATE_CHANGED` too, recorded with an `actor_ref` of 64 zeros.
   */
  recheck(decision: ReadyForReview<TProposal>, currentFacts: FactsLookup<TFacts>): RecheckOutcome;
  /**
   * `recheck` with facts looked up now through the contract's `TrustedFacts` for `actor`. A malformed
   * `actor` (as for `validate`) or `decision` (as for `recheck`) rejects with a `TypeError` before
   * the lookup; a stale decision is `STATE_CHANGED` without any lookup.
   */
  recheckCurrent(actor: PrincipalContext, decision: ReadyForReview<TProposal>): Promise<RecheckOutcome>;
}

/** The actor fields `checkActor` checks itself; every other own field is copied as it is. */
const CHECKED_ACTOR_FIELDS: ReadonlySet<string> = new Set(['tenant_id', 'subject_id', 'roles']);

/**
 * The actor is trusted host input, the authenticated principal: a malformed one is a host bug, not
 * something to decide on. Refused before the proposal is read or any facts source runs, with the
 * field named (a lone surrogate, say from a parsed token claim, has no UTF-8 form: no actor
 * reference can be made of it). Each field is read once, into the frozen copy every later step uses
 * (the actor reference and the facts lookup), so a getter cannot pass the check as one principal
 * and be looked up as another. `roles` left out is an empty list. A host's principal may carry more
 * than `PrincipalContext` (a `suspended` flag its facts source checks, say): every other own
 * enumerable string-keyed field is kept in the copy, shallowly, as read once from its descriptor; one
 * that is an accessor, or that cannot be read (a Proxy trap that throws), is refused like any other
 * malformed actor. The copy is built with `defineProperty`, so an own `__proto__` key stays a field.
 */
function checkActor(method: string, actor: unknown): PrincipalContext {
  if (typeof actor !== 'object' || actor === null) throw new TypeError(`${method}: actor must be a PrincipalContext object`);
  const { tenant_id, subject_id, roles } = actor as Partial<Record<keyof PrincipalContext, unknown>>;
  for (const [field, value] of [
    ['tenant_id', tenant_id],
    ['subject_id', subject_id],
  ] as const) {
    if (typeof value !== 'string' || value.length === 0) throw new TypeError(`${method}: actor.${field} must be a non-empty string`);
    if (!isWellFormedText(value)) throw new TypeError(`${method}: actor.${field} holds a lone surrogate`);
  }
  const copiedRoles: string[] = [];
  if (roles !== undefined) {
    const rolesError = `${method}: actor.roles must be an array of strings`;
    if (!Array.isArray(roles)) throw new TypeError(rolesError);
    const count: unknown = roles.length;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw new TypeError(rolesError);
    for (let index = 0; index < count; index += 1) {
      const role: unknown = roles[index];
      if (typeof role !== 'string') throw new TypeError(rolesError);
      copiedRoles.push(role);
    }
  }
  const copy = {} as Record<string, unknown>;
  const keep = (key: string, value: unknown): void => {
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  };
  keep('tenant_id', tenant_id);
  keep('subject_id', subject_id);
  keep('roles', Object.freeze(copiedRoles));
  let keys: (string | symbol)[];
  try {
    keys = Reflect.ownKeys(actor);
  } catch {
    throw new TypeError(`${method}: actor fields cannot be read`);
  }
  for (const key of keys) {
    if (typeof key !== 'string' || CHECKED_ACTOR_FIELDS.has(key)) continue;
    let descriptor: PropertyDescriptor | undefined;
    try {
      descriptor = Object.getOwnPropertyDescriptor(actor, key);
    } catch {
      throw new TypeError(`${method}: actor.${key} cannot be read`);
    }
    if (descriptor === undefined || descriptor.enumerable !== true) continue;
    if (!Object.hasOwn(descriptor, 'value')) throw new TypeError(`${method}: actor.${key} must be a data field, not an accessor`);
    keep(key, descriptor.value);
  }
  return Object.freeze(copy) as unknown as PrincipalContext;
}

/** What recheck uses of a decision: each part read once, at the start. */
interface HeldDecision {
  readonly ok: unknown;
  readonly decision: unknown;
  readonly proposal: unknown;
  readonly contract_id: unknown;
  readonly rule_version: unknown;
  readonly proposal_sha256: unknown;
  readonly facts_sha256: unknown;
  /** The record's `actor_ref` when it has the shape of a digest, else `null` (an altered decision). */
  readonly actor_ref: Sha256Hex | null;
}

/**
 * The `actor_ref` of a `recheck` record whose decision held no actor reference (free text, an
 * object...): 64 zeros, never anything taken from the decision.
 */
const NO_ACTOR_REF = '0'.repeat(64) as Sha256Hex;

/**
 * A decision to recheck is the host's own record of a `validate` result. One without a record is a
 * host bug (nothing to compare), refused like a malformed actor; any other stale or altered one is
 * `STATE_CHANGED`. The decision and its record are read once, here, into a frozen copy: nothing read
 * later (a getter's second answer) can differ from what is compared. An `actor_ref` that is not 64
 * lowercase hex is kept as `null` (the decision is then stale), never used, copied or frozen.
 */
function readDecision(method: string, decision: unknown): HeldDecision {
  if (typeof decision !== 'object' || decision === null) throw new TypeError(`${method}: decision must be the ReadyForReview validate returned`);
  const { ok, decision: kind, proposal, record } = decision as Partial<Record<keyof ReadyForReview<unknown>, unknown>>;
  if (typeof record !== 'object' || record === null) {
    throw new TypeError(`${method}: decision must be the ReadyForReview validate returned`);
  }
  const { contract_id, rule_version, proposal_sha256, facts_sha256, actor_ref } = record as Partial<Record<keyof ProposalDecisionRecord, unknown>>;
  return Object.freeze({ ok, decision: kind, proposal, contract_id, rule_version, proposal_sha256, facts_sha256, actor_ref: isSha256Hex(actor_ref) ? actor_ref : null });
}

/**
 * Keeps a dropped rule answer that is a rejected Promise (an async rule that threw) from becoming an
 * unhandled rejection. Only native promises are touched: a foreign thenable's `then` is host code.
 */
function ignoreRejection(answer: unknown): void {
  if (answer instanceof Promise) {
    try {
      Promise.prototype.then.call(answer, undefined, () => undefined);
    } catch {
      // Not a real promise after all: nothing to track.
    }
  }
}

/** The boxed answer of a trusted lookup: a box, so no `then` of the answer is ever read again. */
interface LookupAnswer {
  readonly answer: unknown;
}
const LOOKUP_FAILED: LookupAnswer = Object.freeze({ answer: Object.freeze({ status: 'lookup_failed' }) });

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
  // Facts are the host's, so the guard's own defaults (1 MiB...) unless the host sets others.
  const factsLimits = resolveJsonLimits(options.factsLimits);
  // The proposals this validator kept (deep-frozen private copies): read as they are at recheck.
  const issued = new WeakSet<object>();
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

  // The rule reasons, or null when the rule set broke (threw, or answered anything but a list of
  // catalog reasons at fields the contract declares). The answer is read once, into the copy that
  // is checked and kept (the first MAX_REASONS reasons; later ones are never read nor kept).
  const runRules = (proposal: TProposal, found: TFacts): ErrorReason[] | null => {
    const answer: unknown = rules.check(proposal, found);
    if (!Array.isArray(answer)) {
      ignoreRejection(answer);
      return null;
    }
    try {
      const length: unknown = answer.length;
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return null;
      const count = Math.min(length, MAX_REASONS);
      const copied: ErrorReason[] = [];
      for (let index = 0; index < count; index += 1) {
        const reason: unknown = answer[index];
        if (typeof reason !== 'object' || reason === null) return null;
        const { field, rule } = reason as Partial<Record<keyof ErrorReason, unknown>>;
        // A field the contract does not declare may be a key the model chose (a map's keys): never
        // something to show the model or keep in the record.
        if (typeof field !== 'string' || typeof rule !== 'string' || !declaredFields.declares(field)) return null;
        copied.push(Object.freeze({ field, rule }));
      }
      // Each reason must be a catalog RULE_REJECTED reason: a finite rule and a contract-safe field.
      if (copied.length > 0) makeError('RULE_REJECTED', { reasons: copied });
      return copied;
    } catch {
      return null;
    }
  };

  // Access (already looked up) → state → rules, shared by validate and recheck.
  type Judged =
    | { kind: 'ready'; factsSha: Sha256Hex }
    | { kind: 'reject'; decision: Exclude<ProposalDecisionKind, 'ready_for_review'>; category: FailureCategory; reasons: ErrorReason[]; factsSha: Sha256Hex | null };

  // Everything here runs inside one try: a lookup answer, facts or rule set that throws (a getter, a
  // Proxy trap, a rule) holds. The answer's `status` and `facts` are read once each; the facts are
  // copied once by the guard's walk (JSON data only: an accessor is refused, never invoked) and
  // frozen, and that copy is what is digested and what every rule function judges. A rule answer
  // is taken only as exactly `true` / `false` (`statePermits`) or `true` (`describes`): a Promise (an
  // async rule), a string or anything else holds, like a `check` answer that is not a list.
  const judge = (proposal: TProposal, lookup: unknown): Judged => {
    const hold: Judged = { kind: 'reject', decision: 'hold', category: 'facts_unavailable', reasons: [], factsSha: null };
    try {
      if (typeof lookup !== 'object' || lookup === null) return hold;
      const status: unknown = (lookup as { status?: unknown }).status;
      if (status === 'not_available') {
        return { kind: 'reject', decision: 'rejected_access', category: 'access', reasons: [], factsSha: null };
      }
      if (status !== 'found' || !Object.hasOwn(lookup, 'facts')) return hold;
      const copied = copyUntrustedValue((lookup as { facts?: unknown }).facts, factsLimits);
      if (!copied.ok) return hold;
      const found = deepFreeze(copied.value) as TFacts;
      const describes: unknown = rules.describes(proposal, found);
      if (describes !== true) {
        ignoreRejection(describes);
        return hold;
      }
      const factsSha = factsDigest(found);
      const permits: unknown = rules.statePermits(found);
      if (permits === false) return { kind: 'reject', decision: 'refresh_required', category: 'state', reasons: [], factsSha };
      if (permits !== true) {
        ignoreRejection(permits);
        return { ...hold, factsSha };
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
  // The answer comes back boxed: resolving a promise with the bare answer would read its `then`
  // again (a getter there could throw, or swap the answer, after `await` had settled it).
  const lookUp = async (actor: PrincipalContext, proposal: TProposal): Promise<LookupAnswer> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const pending = (async (): Promise<LookupAnswer> => ({ answer: await facts.lookup(actor, proposal) }))();
      if (factsTimeoutMs === undefined) return await pending;
      const timeout = new Promise<LookupAnswer>((resolve) => {
        timer = setTimeout(() => resolve(LOOKUP_FAILED), factsTimeoutMs);
      });
      return await Promise.race([pending, timeout]);
    } catch {
      return LOOKUP_FAILED;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  };

  const validate = async (givenActor: PrincipalContext, input: RawArguments): Promise<ProposalDecision<TProposal>> => {
    const actor = checkActor('validate', givenActor);
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
      const format: unknown = typeof input === 'object' && input !== null ? input.format : undefined;
      if (format === 'json_text') {
        guarded = parseUntrustedJson((input as { text: string }).text, limits);
      } else if (format === 'json_value') {
        guarded = copyUntrustedValue((input as { value: unknown }).value, limits);
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
    const judged = judge(proposal, (await lookUp(actor, proposal)).answer);
    if (judged.kind === 'reject') {
      return reject('validate', judged.decision, judged.category, judged.reasons, actorRef, proposalSha, judged.factsSha);
    }
    // Only an object needs remembering: a string, number, boolean or null root is immutable already.
    if (typeof value === 'object' && value !== null) issued.add(value);
    const ready: ReadyForReview<TProposal> = {
      ok: true,
      decision: 'ready_for_review',
      proposal,
      record: makeRecord('validate', 'ready_for_review', 'none', [], actorRef, proposalSha, judged.factsSha),
    };
    return Object.freeze(ready);
  };

  // The proposal of a decision being rechecked, as a private deep-frozen copy: one this validator
  // issued is its own frozen copy already; any other is copied by the guard's walk (an accessor or
  // anything not JSON is refused, never invoked: not the proposal reviewed). Boxed, so a `null`
  // proposal (a contract whose root is `null`) is not mistaken for a refusal; `null` when refused.
  const privateProposal = (proposal: unknown): { readonly value: TProposal } | null => {
    if (typeof proposal === 'object' && proposal !== null && issued.has(proposal)) return { value: proposal as TProposal };
    try {
      const copied = copyUntrustedValue(proposal, limits);
      return copied.ok ? { value: deepFreeze(copied.value) as TProposal } : null;
    } catch {
      return null;
    }
  };

  // A decision from another contract or rule version, or whose proposal no longer matches its
  // digest, or whose actor reference is not a digest, is stale: it must be validated again, never
  // trusted. `proposal` is the private copy, boxed (`null` when refused).
  interface Prepared {
    readonly proposal: { readonly value: TProposal } | null;
    readonly proposalSha: Sha256Hex | null;
    readonly stale: boolean;
  }
  const prepare = (held: HeldDecision): Prepared => {
    const proposal = privateProposal(held.proposal);
    const proposalSha = proposal === null ? null : proposalDigest(proposal.value as JsonValue);
    const stale =
      held.ok !== true ||
      held.decision !== 'ready_for_review' ||
      held.contract_id !== contractId ||
      held.rule_version !== ruleVersion ||
      held.proposal_sha256 === null ||
      held.facts_sha256 === null ||
      held.actor_ref === null ||
      proposalSha === null ||
      !constantTimeEqual(proposalSha, held.proposal_sha256 as Sha256Hex);
    return { proposal, proposalSha, stale };
  };

  const recheckWith = (held: HeldDecision, prepared: Prepared, currentFacts: unknown, ref: Sha256Hex): RecheckOutcome => {
    const { proposal, proposalSha } = prepared;
    const changed = (factsSha: Sha256Hex | null) =>
      reject('recheck', 'refresh_required', 'state', [], ref, proposalSha, factsSha);
    if (prepared.stale || proposal === null) return changed(null);
    const judged = judge(proposal.value, currentFacts);
    if (judged.kind === 'reject') {
      // A rule rejection against facts that passed at review is a state change too.
      if (judged.decision === 'rejected_rule') return changed(judged.factsSha);
      return reject('recheck', judged.decision, judged.category, [], ref, proposalSha, judged.factsSha);
    }
    if (!constantTimeEqual(judged.factsSha, held.facts_sha256 as Sha256Hex)) return changed(judged.factsSha);
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
      const held = readDecision('recheck', decision);
      return recheckWith(held, prepare(held), currentFacts, held.actor_ref ?? NO_ACTOR_REF);
    },
    recheckCurrent: async (givenActor: PrincipalContext, decision: ReadyForReview<TProposal>) => {
      const actor = checkActor('recheckCurrent', givenActor);
      const held = readDecision('recheckCurrent', decision);
      const actorRef = digester.principalRef(actor);
      const prepared = prepare(held);
      // A stale decision is refused as it is: no facts are looked up for a proposal not reviewed.
      if (prepared.stale || prepared.proposal === null) return recheckWith(held, prepared, null, actorRef);
      return recheckWith(held, prepared, (await lookUp(actor, prepared.proposal.value)).answer, actorRef);
    },
  });
}
