import type { ErrorReason, JsonValue, PrincipalContext, RawArguments, Sha256Hex } from '@toolseal/contracts';
import { constantTimeEqual, isSha256Hex, type Digester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import {
  ajvErrorsToReasons,
  compileSchema,
  copyUntrustedValue,
  createDeclaredFields,
  cutToDeclaredFields,
  deepFreeze,
  holdsPlace,
  inspectInputSchema,
  isWellFormedText,
  parseUntrustedJson,
  resolveJsonLimits,
  type GuardOutcome,
  type JsonLimits,
} from '@toolseal/guard';
import {
  DECISION_CODES,
  PROPOSAL_DECISION_SCHEMA_VERSION,
  type FailureCategory,
  type ProposalDecision,
  type ProposalDecisionKind,
  type ProposalDecisionRecord,
  type ProposalRejection,
  type ReadyForReview,
  type RecheckOutcome,
} from './proposal-decision.js';
import { checkMethods, checkOptionKeys } from './check-options.js';
import { copyPrincipal, fitsPrincipalIdLength, MAX_PRINCIPAL_ID_LENGTH, MAX_PRINCIPAL_ROLES } from './copy-principal.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import type { FactsLookup, TrustedFacts } from './trusted-facts.js';

/** Domain tag of the digest of a proposal that passed the structural contract (the one a recheck compares). */
export const PROPOSAL_DIGEST_DOMAIN = 'toolseal.proposal.v1';
/**
 * Domain tag of the digest of a proposal the structural contract refused (`rejected_shape`): the
 * record still identifies the refused value for audit, but the digest can never pass as the one of
 * a reviewed proposal, whatever a stored record is rewritten to say.
 */
export const PROPOSAL_REJECTED_SHAPE_DIGEST_DOMAIN = 'toolseal.proposal_rejected_shape.v1';
/** Domain tag of `record_sha256`, the digest of every other field of a decision record. */
export const PROPOSAL_RECORD_DIGEST_DOMAIN = 'toolseal.proposal_record.v1';
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

/**
 * A principal of no tenant (a NUL starts its ids, which no authenticated principal's has): `owns`
 * must answer `false` for it whatever the facts. One that answers `true` does not compare the
 * facts' owner with the actor, so its answer for the actor proves nothing.
 */
const OWNERSHIP_CANARY: PrincipalContext = Object.freeze({
  tenant_id: '\u0000toolseal-ownership-canary',
  subject_id: '\u0000toolseal-ownership-canary',
  roles: Object.freeze([]) as unknown as string[],
});

/** Default `factsTimeoutMs`: a lookup that never answers holds the proposal, never the caller. */
export const DEFAULT_FACTS_TIMEOUT_MS = 5_000;

/** Longest `factsTimeoutMs`: the longest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days). */
const MAX_FACTS_TIMEOUT_MS = 2_147_483_647;

/** First and last instants a four-digit-year RFC 3339 `decided_at` can name (0000-01-01, 9999-12-31). */
const EARLIEST_DECISION_TIME = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST_DECISION_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A clock reading as the RFC 3339 text of a record's `decided_at`, or `null` when it is not a valid
 * `Date` (the brand is checked, and no method of the reading is called: `Date.now`'s number, an
 * invalid date, a look-alike object) or lies outside the years 0000 to 9999 (whose ISO text
 * would be `+010000-…`, no RFC 3339 time).
 */
function decisionTime(reading: unknown): string | null {
  let time: number;
  try {
    time = Date.prototype.getTime.call(reading);
  } catch {
    return null;
  }
  if (!Number.isFinite(time) || time < EARLIEST_DECISION_TIME || time > LATEST_DECISION_TIME) return null;
  return new Date(time).toISOString();
}

/** Every option `createProposalValidator` reads: any other key is refused at start-up (a misspelling). */
const VALIDATOR_OPTIONS: readonly string[] = Object.freeze([
  'contractId',
  'schema',
  'facts',
  'rules',
  'digester',
  'limits',
  'clock',
  'factsTimeoutMs',
  'factsLimits',
]);
/** The functions of a `ProposalRuleSet` the validator calls: each must exist at start-up. */
const RULE_FUNCTIONS = Object.freeze(['owns', 'describes', 'statePermits', 'check', 'snapshot'] as const);
/** The `Digester` methods the validator calls: actor references and the tagged digests. */
const DIGESTER_METHODS = Object.freeze(['principalRef', 'digestTagged'] as const);

/**
 * What `createProposalValidator` needs: one contract, its facts source and its rules. Any other key
 * throws a `TypeError` at start-up (a misspelt `factsTimeout` would leave the lookup unbounded).
 */
export interface ProposalValidatorOptions<TProposal, TFacts> {
  /**
   * The contract's id, recorded in every decision and bound into the proposal and record digests:
   * a non-empty string without lone surrogates (else a `TypeError` at start-up), as `rules.version`.
   */
  contractId: string;
  /** The structural contract: a JSON Schema 2020-12 object with bounds, compiled once here. */
  schema: object;
  /**
   * The host's trusted facts source, called with the authenticated actor only. Its `lookup` must
   * be a function, else a `TypeError` at start-up.
   */
  facts: TrustedFacts<TProposal, TFacts>;
  /**
   * The versioned business rules. `owns`, `describes`, `statePermits`, `check` and `snapshot` must
   * be functions, else a `TypeError` at start-up.
   */
  rules: ProposalRuleSet<TProposal, TFacts>;
  /**
   * Computes actor references and the proposal and facts digests (keyed mode recommended). Its
   * `principalRef` and `digestTagged` must be functions, else a `TypeError` at start-up.
   */
  digester: Digester;
  /**
   * Guard limits for the raw proposal; each one left out (or `undefined`) is the one of
   * `DEFAULT_PROPOSAL_LIMITS`, never the guard's wider default. A limit that is not a non-negative
   * safe integer throws a `TypeError` here, at start-up.
   */
  limits?: Partial<JsonLimits>;
  /**
   * The clock for `decided_at`; default the system clock. It is called once at start-up: anything
   * but a function, or one whose reading is not a valid `Date` of a year from 0000 to 9999 (`Date.now`,
   * which answers a number; `() => new Date(NaN)`; a clock that throws), throws a `TypeError` there.
   * A later reading that fails the same way holds the decision being made (`FACTS_UNAVAILABLE`, like
   * any other host component that fails), recorded at the last good reading; `validate` never throws
   * for it.
   */
  clock?: () => Date;
  /**
   * How long a trusted lookup may take before the proposal is held (`FACTS_UNAVAILABLE`); default
   * `DEFAULT_FACTS_TIMEOUT_MS` (5,000): a lookup that never answers holds the proposal. A positive integer of at most 2,147,483,647 (the
   * longest timer Node keeps: a longer one would fire after 1 ms), else a `TypeError` at start-up.
   */
  factsTimeoutMs?: number;
  /**
   * Guard limits for the trusted facts, which are copied (JSON data only) before the rules judge
   * them; each one left out is the guard's `DEFAULT_JSON_LIMITS` (1 MiB, depth 32...). Facts past
   * them hold the proposal when `owns`, asked about them as found, answers `true` (the actor's own);
   * otherwise they are `NOT_FOUND`, as a missing resource. A limit that is not a non-negative safe integer throws a `TypeError`
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
   * lookup, then the rule set's own `owns` on the facts it found: `false` is the same `NOT_FOUND` as
   * a lookup's `not_available`) → `describes` → current state → business rules. The first failing
   * stage decides. Never repairs, never throws on any proposal (a host facts source, facts or rule
   * that throws, or a rule that answers outside its contract, gives `hold`). `actor` is trusted host
   * input: one that is not an object whose `tenant_id` and `subject_id` are strings of 1 to 128
   * characters (code points, `fitsPrincipalIdLength`) without lone surrogates, and whose `roles`, when present, are an array of at most 32
   * such strings (the `PrincipalContext` bounds), rejects with
   * a `TypeError` naming the field, before the proposal is read or the facts source runs (a host bug, never a decision), and
   * so does one with any other own enumerable string-keyed field that is an accessor, cannot be
   * read or is not JSON data within `copyPrincipal`'s bounds. It is read once, into a frozen copy
   * that keeps those other fields as deep-frozen copies of JSON data: the facts source receives
   * that copy. `roles` left out is tolerated and read as an empty list (the contract requires it).
   * The actor reference is made of `tenant_id` and `subject_id` only.
   */
  validate(actor: PrincipalContext, input: RawArguments): Promise<ProposalDecision<TProposal>>;
  /**
   * The check before any later effect: the ready decision still holds only when its record is one
   * this validator made for a ready decision, unaltered (`record_sha256` matches, so no field was
   * changed nor taken from another record; a `toolseal-proposal-decision-v1` record has none), the
   * contract and rule version are the same, the proposal is unchanged and still passes the
   * structural contract, and `currentFacts` (looked up again by the host for the actor the decision
   * describes) has exactly the snapshot the decision was made on and still passes state and rules.
   * When `actor` is given, it must be that actor (same `principalRef`, compared in constant time),
   * and the rule set's `owns` judges the current facts for it (`false`: `NOT_FOUND`). Without
   * `actor`, `owns` cannot be asked: ownership then rests on the snapshot, which must equal the one
   * `owns` passed at review (keep the owner in `snapshot`, as `REFUND_RULES_V1` does).
   * Anything else fails (`STATE_CHANGED`, or `NOT_FOUND` / `FACTS_UNAVAILABLE` per the lookup). A
   * `decision` that is not an object with a `record` (not what `validate` returned at all), or a
   * malformed `actor` (as for `validate`), throws a `TypeError`. A decision or record holding a
   * field beyond the ones the validator gives it (a symbol, non-enumerable or inherited one
   * included: `record_sha256` does not cover it) is `STATE_CHANGED`. The decision and its record are
   * read once; a proposal this validator did not return is judged as a private copy (`STATE_CHANGED`
   * when it is not plain JSON within the proposal limits, or fails the structural contract). A
   * record whose `actor_ref` is not 64 lowercase hex is `STATE_CHANGED` too, recorded with an
   * `actor_ref` of 64 zeros (or the given `actor`'s).
   */
  recheck(decision: ReadyForReview<TProposal>, currentFacts: FactsLookup<TFacts>, actor?: PrincipalContext): RecheckOutcome;
  /**
   * `recheck` with facts looked up now through the contract's `TrustedFacts` for `actor`, which must
   * be the actor the decision describes (spec 002: "A successful check describes a particular
   * actor"): another principal is `STATE_CHANGED` and validates the proposal again as itself. The
   * rule set's `owns` judges the facts found for `actor` (`false`: `NOT_FOUND`, as at review). A
   * malformed `actor` (as for `validate`) or `decision` (as for `recheck`) rejects with a `TypeError`
   * before the lookup; a stale decision is `STATE_CHANGED` without any lookup.
   */
  recheckCurrent(actor: PrincipalContext, decision: ReadyForReview<TProposal>): Promise<RecheckOutcome>;
}

/**
 * A private deep-frozen copy of the host's proposal schema, each member read once
 * (`structuredClone`), or a `TypeError` when it is not data (a function, a symbol...).
 */
function privateSchemaCopy(schema: object): object {
  let copy: unknown;
  try {
    copy = structuredClone(schema);
  } catch {
    throw new TypeError('schema must be JSON data (a JSON Schema 2020-12 object), not one holding functions or symbols');
  }
  return deepFreeze(copy as object);
}

/**
 * The actor is trusted host input, the authenticated principal: a malformed one is a host bug, not
 * something to decide on. Refused before the proposal is read or any facts source runs, with the
 * field named (a lone surrogate, say from a parsed token claim, has no UTF-8 form: no actor
 * reference can be made of it). Each field is read once, into the frozen copy every later step uses
 * (the actor reference and the facts lookup), so a getter cannot pass the check as one principal
 * and be looked up as another. `PrincipalContext` requires `roles`; one left out (`undefined`) is
 * tolerated here and read as an empty list, so it grants no role (the dispatcher refuses it). A
 * host's principal may carry further claims (a `suspended` flag its facts source checks, say):
 * every other own enumerable string-keyed field is kept in the copy as a deep-frozen copy of JSON
 * data (`copyPrincipal`, which the dispatcher uses too); one that is an accessor, cannot be read or
 * is not JSON data within its bounds is refused like any other malformed actor.
 */
function checkActor(method: string, actor: unknown): PrincipalContext {
  if (typeof actor !== 'object' || actor === null) throw new TypeError(`${method}: actor must be a PrincipalContext object`);
  const { tenant_id, subject_id, roles } = actor as Partial<Record<keyof PrincipalContext, unknown>>;
  for (const [field, value] of [
    ['tenant_id', tenant_id],
    ['subject_id', subject_id],
  ] as const) {
    // Characters as the `PrincipalContext` schema counts them (code points), not UTF-16 units.
    if (typeof value !== 'string' || !fitsPrincipalIdLength(value)) {
      throw new TypeError(`${method}: actor.${field} must be a string of 1 to ${MAX_PRINCIPAL_ID_LENGTH} characters`);
    }
    if (!isWellFormedText(value)) throw new TypeError(`${method}: actor.${field} holds a lone surrogate`);
  }
  const copiedRoles: string[] = [];
  if (roles !== undefined) {
    const rolesError = `${method}: actor.roles must be an array of at most ${MAX_PRINCIPAL_ROLES} strings without lone surrogates`;
    if (!Array.isArray(roles)) throw new TypeError(rolesError);
    const count: unknown = roles.length;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_PRINCIPAL_ROLES) throw new TypeError(rolesError);
    for (let index = 0; index < count; index += 1) {
      const role: unknown = roles[index];
      if (typeof role !== 'string' || !isWellFormedText(role)) throw new TypeError(rolesError);
      copiedRoles.push(role);
    }
  }
  return copyPrincipal(`${method}: actor`, actor, { tenant_id: tenant_id as string, subject_id: subject_id as string, roles: copiedRoles });
}

/** What recheck uses of a decision: each part read once, at the start. */
interface HeldDecision {
  readonly ok: unknown;
  readonly decision: unknown;
  readonly proposal: unknown;
  readonly schema_version: unknown;
  readonly stage: unknown;
  readonly contract_id: unknown;
  readonly rule_version: unknown;
  /** The record's own `decision` (the one `record_sha256` covers). */
  readonly record_decision: unknown;
  readonly code: unknown;
  readonly failure_category: unknown;
  /**
   * Whether the record's `reasons` is an empty array without any other own property (only its
   * `length`), as in every ready record.
   */
  readonly no_reasons: boolean;
  /**
   * Whether the decision and its record are plain objects (prototype `Object.prototype` or `null`)
   * whose own keys are exactly the known ones (`DECISION_FIELDS`, `RECORD_FIELDS`): `false` for a
   * stored decision someone added a field to (see `hasExactlyKnownKeys`).
   */
  readonly known_fields: boolean;
  readonly proposal_sha256: unknown;
  readonly facts_sha256: unknown;
  readonly decided_at: unknown;
  /** The record's `actor_ref` when it has the shape of a digest, else `null` (an altered decision). */
  readonly actor_ref: Sha256Hex | null;
  /** The record's `record_sha256` when it has the shape of a digest, else `null` (a v1 or altered record). */
  readonly record_sha256: Sha256Hex | null;
}

/**
 * The `actor_ref` of a `recheck` record whose decision held no actor reference (free text, an
 * object...): 64 zeros, never anything taken from the decision.
 */
const NO_ACTOR_REF = '0'.repeat(64) as Sha256Hex;

/**
 * The fields of a ready decision, as `validate` makes it (`ReadyForReview`: `ok`, `decision`,
 * `proposal`, `record`), and of its record (`ProposalDecisionRecord`: the twelve fields
 * `record_sha256` covers, and `record_sha256`). Written as objects that `satisfies` a record of
 * exactly those keys, so a field added to either type and forgotten here, or listed here and not
 * in the type, is a compile error: the lists `recheck` holds a stored decision to cannot drift from
 * what the validator makes.
 */
const DECISION_FIELDS: ReadonlySet<string> = new Set(
  Object.keys({ ok: true, decision: true, proposal: true, record: true } satisfies Record<keyof ReadyForReview<unknown>, true>),
);
const RECORD_FIELDS: ReadonlySet<string> = new Set(
  Object.keys({
    schema_version: true,
    stage: true,
    contract_id: true,
    rule_version: true,
    decision: true,
    code: true,
    failure_category: true,
    reasons: true,
    actor_ref: true,
    proposal_sha256: true,
    facts_sha256: true,
    decided_at: true,
    record_sha256: true,
  } satisfies Record<keyof ProposalDecisionRecord, true>),
);

/**
 * Whether `value` is a plain object (prototype `Object.prototype` or `null`) whose own keys
 * (`Reflect.ownKeys`: symbols and non-enumerable keys included) are exactly `known`, each once
 * (`Reflect.ownKeys` never lists a key twice, a Proxy's trap included). `record_sha256` covers the
 * known fields only, so a field added to a stored decision or record (`approved_by: 'cfo'`,
 * `approval_limit`, `approved: true`) would otherwise pass a recheck unauthenticated, and a host
 * reading it after a passing recheck would trust what anyone who can write its store chose; an
 * inherited field (a record built with `Object.create({ approved_by: 'cfo' })`, a class whose getters
 * live on its prototype) reads just the same, hence the prototype check. Only keys and the
 * prototype are looked at, never a value (no getter runs here); a Proxy whose traps throw answers
 * `false`, never a throw.
 */
function hasExactlyKnownKeys(value: object, known: ReadonlySet<string>): boolean {
  try {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    const keys = Reflect.ownKeys(value);
    if (keys.length !== known.size) return false;
    for (const key of keys) if (typeof key !== 'string' || !known.has(key)) return false;
    return true;
  } catch {
    // A revoked Proxy, a trap that throws: not a decision this validator made.
    return false;
  }
}

/**
 * A decision to recheck is the host's own record of a `validate` result. One without a record is a
 * host bug (nothing to compare), refused like a malformed actor; any other stale or altered one is
 * `STATE_CHANGED`. The decision and its record are read once, here, into a frozen copy: nothing read
 * later (a getter's second answer) can differ from what is compared. An `actor_ref` that is not 64
 * lowercase hex is kept as `null` (the decision is then stale), never used, copied or frozen. The
 * decision and the record must hold exactly the fields the validator gives them (`known_fields`,
 * looked at before any field is read): anything a host or a store added is not covered by
 * `record_sha256`, so such a decision is stale too, as one with a field rewritten is.
 */
/** Each known field of a stored record read once, as an ordinary property read (a getter runs once). */
function pickRecordFields(record: object): Partial<Record<keyof ProposalDecisionRecord, unknown>> {
  const fields: Record<string, unknown> = {};
  for (const name of RECORD_FIELDS) fields[name] = (record as Record<string, unknown>)[name];
  return fields;
}

/** A decision whose fields could not be read (a getter or a Proxy trap threw): stale, like an altered one. */
const UNREADABLE_DECISION: HeldDecision = Object.freeze({
  ok: undefined,
  decision: undefined,
  proposal: undefined,
  schema_version: undefined,
  stage: undefined,
  contract_id: undefined,
  rule_version: undefined,
  record_decision: undefined,
  code: undefined,
  failure_category: undefined,
  no_reasons: false,
  known_fields: false,
  proposal_sha256: undefined,
  facts_sha256: undefined,
  decided_at: undefined,
  actor_ref: null,
  record_sha256: null,
});

function readDecision(method: string, decision: unknown): HeldDecision {
  if (typeof decision !== 'object' || decision === null) throw new TypeError(`${method}: decision must be the ReadyForReview validate returned`);
  const decisionKnown = hasExactlyKnownKeys(decision, DECISION_FIELDS);
  let fields: Partial<Record<keyof ReadyForReview<unknown>, unknown>>;
  try {
    const { ok, decision: kind, proposal, record } = decision as Partial<Record<keyof ReadyForReview<unknown>, unknown>>;
    fields = { ok, decision: kind, proposal, record };
  } catch {
    // A getter or a Proxy trap that throws: not a decision this validator made (README: refused,
    // not thrown at the caller).
    return UNREADABLE_DECISION;
  }
  const { ok, decision: kind, proposal, record } = fields;
  if (typeof record !== 'object' || record === null) {
    throw new TypeError(`${method}: decision must be the ReadyForReview validate returned`);
  }
  const knownFields = decisionKnown && hasExactlyKnownKeys(record, RECORD_FIELDS);
  let recordFields: Partial<Record<keyof ProposalDecisionRecord, unknown>>;
  try {
    recordFields = pickRecordFields(record);
  } catch {
    return UNREADABLE_DECISION;
  }
  const {
    schema_version,
    stage,
    contract_id,
    rule_version,
    decision: recordDecision,
    code,
    failure_category,
    reasons,
    proposal_sha256,
    facts_sha256,
    decided_at,
    actor_ref,
    record_sha256,
  } = recordFields;
  // A ready record has no reasons: nothing of a stored list is copied, only whether it is empty
  // and holds nothing else either, of its own or inherited (an `approved` property added to the
  // array is no more covered by `record_sha256` than one added to the record).
  let noReasons = false;
  try {
    if (Array.isArray(reasons) && Object.getPrototypeOf(reasons) === Array.prototype) {
      const keys = Reflect.ownKeys(reasons);
      noReasons = keys.length === 1 && keys[0] === 'length' && reasons.length === 0;
    }
  } catch {
    // A revoked Proxy, a throwing `length`: not a record this validator made.
  }
  return Object.freeze({
    ok,
    decision: kind,
    proposal,
    schema_version,
    stage,
    contract_id,
    rule_version,
    record_decision: recordDecision,
    code,
    failure_category,
    no_reasons: noReasons,
    known_fields: knownFields,
    proposal_sha256,
    facts_sha256,
    decided_at,
    actor_ref: isSha256Hex(actor_ref) ? actor_ref : null,
    record_sha256: isSha256Hex(record_sha256) ? record_sha256 : null,
  });
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

/** Most values `ignoreNestedRejections` looks at in one dropped answer. */
const MAX_DROPPED_VALUES = 256;

/**
 * `ignoreRejection` for every native promise inside a dropped rule answer (a rule that put an async
 * result in a list, or a snapshot holding one): reads own data properties through their
 * descriptors, never running a getter, at most `MAX_DROPPED_VALUES` values. Only on the paths
 * where an answer is refused, so a well-formed answer is read exactly once.
 */
function ignoreNestedRejections(answer: unknown): void {
  const pending: unknown[] = [answer];
  for (let looked = 0; pending.length > 0 && looked < MAX_DROPPED_VALUES; looked += 1) {
    const value = pending.pop();
    if (value instanceof Promise) {
      ignoreRejection(value);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    try {
      for (const key of Reflect.ownKeys(value)) {
        const descriptor = Object.getOwnPropertyDescriptor(value, key);
        if (descriptor !== undefined && Object.hasOwn(descriptor, 'value')) pending.push(descriptor.value);
      }
    } catch {
      // A Proxy whose traps throw: nothing more to find there.
    }
  }
}

/** The boxed answer of a trusted lookup: a box, so no `then` of the answer is ever read again. */
interface LookupAnswer {
  readonly answer: unknown;
}
const LOOKUP_FAILED: LookupAnswer = Object.freeze({ answer: Object.freeze({ status: 'lookup_failed' }) });

/** A base whose constructor returns the object it is given, so a subclass can add private fields to it. */
class Slot {
  constructor(target: object) {
    return target;
  }
}

/**
 * Which validator issued a proposal copy, in a private field of the copy: invisible to the
 * reflection JavaScript code has (a debugger or heap snapshot still shows it), alive exactly as
 * long as the copy, and only settable here. The slot is added while the copy is still extensible
 * and set once its decision is ready (a `WeakSet` entry measured about 0.15 µs for a copy that dies
 * young, the collector's ephemeron work; the slot about 5 ns).
 */
class IssuedProposal extends Slot {
  #issuer: object | null = null;

  private constructor(copy: object) {
    super(copy);
  }

  /** Gives the validator's own fresh copy its (empty) slot; called before the copy is frozen. */
  static prepare(copy: object): void {
    new IssuedProposal(copy);
  }

  static issue(copy: object, issuer: object): void {
    if (#issuer in copy) (copy as IssuedProposal).#issuer = issuer;
  }

  static issuedBy(value: unknown, issuer: object): boolean {
    return typeof value === 'object' && value !== null && #issuer in value && (value as IssuedProposal).#issuer === issuer;
  }
}

/**
 * Creates the validator of one proposal contract (spec 002). The schema is compiled here, so a
 * contract strict mode rejects stops the host at start-up, and every option is checked here too,
 * with a `TypeError` naming it: `options` not an object or holding a key not listed in
 * `ProposalValidatorOptions`, `facts` without a `lookup` function, `rules` without `owns`,
 * `describes`, `statePermits`, `check` or `snapshot` functions or a `version`, `digester` without
 * `principalRef` and `digestTagged`, a `clock` that is not a function or whose first reading (taken
 * here) is not a valid `Date` of a year from 0000 to 9999, a malformed `contractId`, limit or
 * `factsTimeoutMs` (above 2,147,483,647 included). A broken configuration never reaches the first proposal, where it would throw
 * a raw error or hold every proposal as if the facts were unavailable.
 */
export function createProposalValidator<TProposal, TFacts>(
  options: ProposalValidatorOptions<TProposal, TFacts>,
): ProposalValidator<TProposal, TFacts> {
  checkOptionKeys('createProposalValidator', options, VALIDATOR_OPTIONS);
  // Each option is read once, here: the value checked is the value used (a getter or Proxy option
  // cannot pass the check as one value and be used as another).
  const { contractId, facts, rules, digester, schema: givenSchema, clock: givenClock } = options;
  // Every host object the validator calls later is checked here, once: a missing method would
  // otherwise surface on the first proposal, as a raw error or as a hold that looks like an outage.
  // The functions checked are kept, each read once and bound to the host's object: a host that later
  // swaps or deletes one on its rule set cannot change what decisions recorded under `rules.version`
  // mean, nor where facts come from.
  const { lookup: lookupFacts } = checkMethods('facts', facts, ['lookup'], 'a TrustedFacts object ({ lookup })');
  const ruleSet = checkMethods('rules', rules, RULE_FUNCTIONS, 'a ProposalRuleSet object ({ version, owns, describes, statePermits, check, snapshot })', true);
  const { principalRef, digestTagged } = checkMethods('digester', digester, DIGESTER_METHODS, 'a Digester (createDigester of @toolseal/digests)');
  if (typeof givenSchema !== 'object' || givenSchema === null) throw new TypeError('schema must be a JSON Schema 2020-12 object');
  // The closure proof, the compile and the declared fields below all read this private frozen copy,
  // never the host's object: a getter keyword could answer `additionalProperties: false` to the
  // proof and something else to Ajv, and a schema object compiled (and cached) while it was still
  // open would bring its open validator along.
  const schema = privateSchemaCopy(givenSchema);
  if (givenClock !== undefined && typeof givenClock !== 'function') {
    throw new TypeError('clock must be a function returning a Date, or left out (the system clock)');
  }
  // Read once here, so a clock that can never stamp a record (`Date.now`, an invalid date, a year
  // past 9999) stops the host at start-up instead of failing every decision.
  let startUpTime: string | null = null;
  try {
    startUpTime = decisionTime(givenClock === undefined ? new Date() : givenClock());
  } catch {
    // A clock that throws: refused below.
  }
  if (startUpTime === null) {
    throw new TypeError('clock must return a valid Date of a year from 0000 to 9999 (its reading at start-up did not)');
  }
  if (typeof contractId !== 'string' || contractId.length === 0) throw new TypeError('contractId must be a non-empty string');
  const ruleVersion: unknown = rules.version;
  if (typeof ruleVersion !== 'string' || ruleVersion.length === 0) throw new TypeError('rules.version must be a non-empty string');
  // Both go into every record digest: one UTF-8 cannot encode would make each decision throw.
  if (!isWellFormedText(contractId)) throw new TypeError('contractId holds a lone surrogate');
  if (!isWellFormedText(ruleVersion)) throw new TypeError('rules.version holds a lone surrogate');
  // Spec 002: "Reject unknown properties at both object levels ... merely listing known properties
  // does not reject others." Proven at start-up with the walk the tool registry proves input
  // schemas closed with; an open contract would keep a model's `approved`, `tenant_id` or `role`
  // in a ready proposal. The walk skips keywords the pinned Ajv does not know: compileSchema's
  // strict mode refuses those.
  const closure = inspectInputSchema(schema, 'schema');
  if (closure.problems.length > 0) {
    throw new TypeError(`schema must be closed (every value constrained, unknown properties rejected): ${closure.problems.join('; ')}`);
  }
  const validateShape = compileSchema<TProposal>(schema);
  // The structural verdict, or `null` when the validator throws instead of answering (compileSchema
  // refuses the contracts it can tell would, at start-up): a verdict nobody could reach holds the
  // proposal, like a rule set that throws, rather than reject it or throw at the caller.
  const passesShape = (value: JsonValue): boolean | null => {
    try {
      return validateShape(value);
    } catch {
      return null;
    }
  };
  // The fields shape reasons may name: the model reads them, and the input's own keys are its choice.
  const declaredFields = createDeclaredFields(schema);
  // Not a spread: `{ maxBytes: undefined }` would replace the 16 KiB default with the guard's 1 MiB.
  const limits = resolveJsonLimits(options.limits, DEFAULT_PROPOSAL_LIMITS);
  // Facts are the host's, so the guard's own defaults (1 MiB...) unless the host sets others.
  const factsLimits = resolveJsonLimits(options.factsLimits);
  // Marks the proposals this validator kept (deep-frozen private copies): read as they are at recheck.
  const issuer = Object.freeze({});
  const clock = givenClock ?? (() => new Date());
  // The last good reading: what a decision the clock failed for is recorded at.
  let lastDecisionTime: string = startUpTime;
  // The time of the decision being made, or `null` when the clock now throws or answers anything
  // `decisionTime` refuses: that decision is then held (`clockFailed`), never thrown at the caller.
  const readDecisionTime = (): string | null => {
    let time: string | null;
    try {
      time = decisionTime(clock());
    } catch {
      time = null;
    }
    if (time !== null) lastDecisionTime = time;
    return time;
  };

  const digestProposalIn = (domain: string, proposal: JsonValue): Sha256Hex | null => {
    try {
      return digestTagged(domain, { contract_id: contractId, proposal });
    } catch {
      return null;
    }
  };
  // Only a proposal that passed the structural contract gets this digest, the one recheck compares.
  const proposalDigest = (proposal: JsonValue): Sha256Hex | null => digestProposalIn(PROPOSAL_DIGEST_DOMAIN, proposal);

  const factsDigest = (found: TFacts): Sha256Hex => {
    const snapshot = ruleSet.snapshot(found);
    // An async snapshot, or one holding a promise, is no JSON data: the digest refuses it and the
    // proposal is held, but a rejection in it must not become an unhandled one (which ends a Node
    // process).
    try {
      return digestTagged(PROPOSAL_FACTS_DIGEST_DOMAIN, { contract_id: contractId, rule_version: ruleVersion, snapshot });
    } catch (error) {
      ignoreNestedRejections(snapshot);
      throw error;
    }
  };

  // Every field of a record but `record_sha256`, in one place: what `makeRecord` digests and what
  // `recheck` digests again from a stored record must be the same object shape.
  const recordBody = (
    stage: ProposalDecisionRecord['stage'],
    decision: ProposalDecisionKind,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
    decidedAt: string,
  ): Omit<ProposalDecisionRecord, 'record_sha256'> => ({
    schema_version: PROPOSAL_DECISION_SCHEMA_VERSION,
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
    decided_at: decidedAt,
  });

  // Binds every field of a record together, so that digests of different records cannot be
  // combined into one (review: a rejected_shape record's proposal digest plus another record's facts
  // digest made a ready decision) and no field can be rewritten (`decision`, `actor_ref`...).
  const recordDigest = (body: Omit<ProposalDecisionRecord, 'record_sha256'>): Sha256Hex =>
    digestTagged(PROPOSAL_RECORD_DIGEST_DOMAIN, body);

  const makeRecord = (
    stage: ProposalDecisionRecord['stage'],
    decision: ProposalDecisionKind,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
    decidedAt: string,
  ): ProposalDecisionRecord => {
    const body = recordBody(stage, decision, failureCategory, reasons, actorRef, proposalSha, factsSha, decidedAt);
    return deepFreeze({ ...body, record_sha256: recordDigest(body) });
  };

  // Whether a held record is one this validator made for a ready decision, unaltered: every field
  // the ready record has is checked, then digested again exactly as `makeRecord` did. A v1 record
  // (no `record_sha256`) is not: it cannot show that its digests came from one decision.
  const isAuthenticReadyRecord = (held: HeldDecision): boolean => {
    const { stage, actor_ref: actorRef, proposal_sha256: proposalSha, facts_sha256: factsSha, decided_at: decidedAt, record_sha256: recordSha } = held;
    if (
      held.schema_version !== PROPOSAL_DECISION_SCHEMA_VERSION ||
      (stage !== 'validate' && stage !== 'recheck') ||
      held.contract_id !== contractId ||
      held.rule_version !== ruleVersion ||
      held.record_decision !== 'ready_for_review' ||
      held.code !== null ||
      held.failure_category !== 'none' ||
      !held.no_reasons ||
      actorRef === null ||
      !isSha256Hex(proposalSha) ||
      !isSha256Hex(factsSha) ||
      typeof decidedAt !== 'string' ||
      recordSha === null
    ) {
      return false;
    }
    try {
      const body = recordBody(stage, 'ready_for_review', 'none', [], actorRef, proposalSha, factsSha, decidedAt);
      return constantTimeEqual(recordDigest(body), recordSha);
    } catch {
      // A `decided_at` UTF-8 cannot encode: not a record this validator made.
      return false;
    }
  };

  const rejection = (
    stage: ProposalDecisionRecord['stage'],
    decision: Exclude<ProposalDecisionKind, 'ready_for_review'>,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
    decidedAt: string,
  ): ProposalRejection => {
    const code = DECISION_CODES[decision];
    if (code === null) throw new TypeError(`decision ${decision} has no catalog code`);
    const bounded = reasons.slice(0, MAX_REASONS);
    return deepFreeze({
      ok: false,
      decision,
      error: makeError(code, { reasons: bounded }),
      record: makeRecord(stage, decision, failureCategory, bounded, actorRef, proposalSha, factsSha, decidedAt),
    });
  };

  // A decision the clock failed for (it threw, or answered no valid Date of years 0000 to 9999 after
  // a good reading at start-up): held like any other host component that fails, whatever it would
  // have been, and recorded at the last good reading.
  const clockFailed = (
    stage: ProposalDecisionRecord['stage'],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
  ): ProposalRejection => rejection(stage, 'hold', 'facts_unavailable', [], actorRef, proposalSha, factsSha, lastDecisionTime);

  const reject = (
    stage: ProposalDecisionRecord['stage'],
    decision: Exclude<ProposalDecisionKind, 'ready_for_review'>,
    failureCategory: FailureCategory,
    reasons: readonly ErrorReason[],
    actorRef: Sha256Hex,
    proposalSha: Sha256Hex | null,
    factsSha: Sha256Hex | null,
  ): ProposalRejection => {
    const decidedAt = readDecisionTime();
    if (decidedAt === null) return clockFailed(stage, actorRef, proposalSha, factsSha);
    return rejection(stage, decision, failureCategory, reasons, actorRef, proposalSha, factsSha, decidedAt);
  };

  // The rule reasons, or null when the rule set broke (threw, or answered anything but a list of
  // catalog reasons at fields the contract declares and the proposal holds). The answer is read
  // once, into the copy that is checked and kept (the first MAX_REASONS reasons; later ones are
  // never read nor kept).
  const runRules = (proposal: TProposal, found: TFacts): ErrorReason[] | null => {
    const answer: unknown = ruleSet.check(proposal, found);
    if (!Array.isArray(answer)) {
      ignoreRejection(answer);
      return null;
    }
    const refused = (): null => {
      ignoreNestedRejections(answer);
      return null;
    };
    try {
      const length: unknown = answer.length;
      if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return refused();
      const count = Math.min(length, MAX_REASONS);
      const copied: ErrorReason[] = [];
      for (let index = 0; index < count; index += 1) {
        const reason: unknown = answer[index];
        if (typeof reason !== 'object' || reason === null) return refused();
        const { field, rule } = reason as Partial<Record<keyof ErrorReason, unknown>>;
        // A field the contract does not declare may be a key the model chose (a map's keys): never
        // something to show the model or keep in the record. A declared one must also name a place
        // the proposal holds (`holdsPlace` of `@toolseal/guard`, the rule `@toolseal/result` seals reasons by): a
        // declared `*` matches any index of up to six digits, and `/lines/908172/quantity` for a
        // one-line proposal would carry digits the rule set chose to the model. Refused, not cut,
        // as result and the dispatcher refuse it: a rule set that names such a place is broken.
        if (typeof field !== 'string' || typeof rule !== 'string' || !declaredFields.declares(field)) return refused();
        if (!holdsPlace(proposal as JsonValue, field)) return refused();
        copied.push(Object.freeze({ field, rule }));
      }
      // Each reason must be a catalog RULE_REJECTED reason: a finite rule and a contract-safe field.
      if (copied.length > 0) makeError('RULE_REJECTED', { reasons: copied });
      return copied;
    } catch {
      return refused();
    }
  };

  // Access (already looked up, then owned) → describes → state → rules, shared by validate and recheck.
  type Judged =
    | { kind: 'ready'; factsSha: Sha256Hex }
    | { kind: 'reject'; decision: Exclude<ProposalDecisionKind, 'ready_for_review'>; category: FailureCategory; reasons: ErrorReason[]; factsSha: Sha256Hex | null };

  // Everything here runs inside one try: a lookup answer, facts or rule set that throws (a getter, a
  // Proxy trap, a rule) holds. The answer's `status` and `facts` are read once each; the facts are
  // copied once by the guard's walk (JSON data only: an accessor is refused, never invoked) and
  // frozen, and that copy is what is digested and what every rule function judges. A rule answer
  // is taken only as exactly `true` / `false` (`owns`, `statePermits`) or `true` (`describes`): a
  // Promise (an async rule), a string or anything else holds, like a `check` answer that is not a list.
  //
  // Ownership is checked twice, independently (spec 002): the lookup was asked for the actor's
  // resources only, and `owns` judges the facts it found against the validator's frozen copy of the
  // actor. `owns` answering `false` is exactly a `not_available` answer (same decision, category,
  // error and record, no facts digest), so "exists in another tenant" and "does not exist" cannot
  // be told apart, and no later rule reads another tenant's resource (its reasons would describe
  // it). `actor` is `null` only for `recheck` without an actor, where ownership rests on the
  // reviewed snapshot.
  //
  // Facts that cannot be copied (not JSON data, past `factsLimits`, a Proxy whose traps throw) are
  // judged by `owns` as the lookup returned them, before anything else is decided on them: a lookup
  // without its tenant filter may hand over another tenant's ORM row (`closed_at: undefined`, a
  // `Date`), and a hold there would tell the model that the order exists somewhere. Only facts
  // `owns` answers exactly `true` for hold; `false` is a `not_available` answer, byte for byte, and
  // so is anything else (a throw, a Promise: ownership could not be established on facts the rule
  // set was never meant to read), which the protected record alone marks `facts_unavailable`. The
  // same holds for facts that were copied: whatever `owns` does, the model learns nothing more
  // than "not available" until ownership is established.
  // `owns` for the actor, then for OWNERSHIP_CANARY, a principal of no tenant: an `owns` that also
  // answers `true` for it does not look at the actor (a misspelt field compares `undefined` with
  // `undefined`; `() => true` trusts the lookup's tenant filter), and its `true` proves nothing, so
  // such facts are treated as ownership not established (`unreadable`), never as the actor's own.
  const ownership = (actor: PrincipalContext, facts: TFacts): 'owned' | 'not_owned' | 'unreadable' => {
    for (const asked of [actor, OWNERSHIP_CANARY]) {
      let owned: unknown;
      try {
        owned = ruleSet.owns(asked, facts);
      } catch {
        return 'unreadable';
      }
      if (asked === actor && owned === false) return 'not_owned';
      if (owned !== (asked === actor)) {
        ignoreRejection(owned);
        return 'unreadable';
      }
    }
    return 'owned';
  };

  const judge = (proposal: TProposal, lookup: unknown, actor: PrincipalContext | null): Judged => {
    const hold: Judged = { kind: 'reject', decision: 'hold', category: 'facts_unavailable', reasons: [], factsSha: null };
    const notAvailable: Judged = { kind: 'reject', decision: 'rejected_access', category: 'access', reasons: [], factsSha: null };
    // What the model sees for a resource that is not its own, with the host's record saying why.
    const notOwnedUnreadable: Judged = { ...notAvailable, category: 'facts_unavailable' };
    try {
      if (typeof lookup !== 'object' || lookup === null) return hold;
      const status: unknown = (lookup as { status?: unknown }).status;
      if (status === 'not_available') return notAvailable;
      if (status !== 'found' || !Object.hasOwn(lookup, 'facts')) return hold;
      const givenFacts: unknown = (lookup as { facts?: unknown }).facts;
      let copied: GuardOutcome<JsonValue>;
      try {
        copied = copyUntrustedValue(givenFacts, factsLimits);
      } catch {
        copied = { ok: false, violation: { rule: 'non_json_value', path: '' } };
      }
      if (!copied.ok) {
        // `recheck` without an actor has nobody to ask `owns` about: it holds, as before.
        if (actor === null) return hold;
        const ownedAsFound = ownership(actor, givenFacts as TFacts);
        return ownedAsFound === 'owned' ? hold : ownedAsFound === 'not_owned' ? notAvailable : notOwnedUnreadable;
      }
      const found = deepFreeze(copied.value) as TFacts;
      if (actor !== null) {
        // As for facts that could not be copied: only `true` goes on, and an `owns` that throws or
        // answers anything but a boolean (facts shaped as it did not expect: another tenant's row,
        // say) is a `not_available` answer the protected record alone marks `facts_unavailable`.
        const owned = ownership(actor, found);
        if (owned === 'not_owned') return notAvailable;
        if (owned === 'unreadable') return notOwnedUnreadable;
      }
      const describes: unknown = ruleSet.describes(proposal, found);
      if (describes !== true) {
        ignoreRejection(describes);
        return hold;
      }
      const factsSha = factsDigest(found);
      const permits: unknown = ruleSet.statePermits(found);
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

  const factsTimeoutMs = options.factsTimeoutMs ?? DEFAULT_FACTS_TIMEOUT_MS;
  // Node keeps no timer longer than 2^31 - 1 ms: a longer one fires after 1 ms, which would hold
  // every proposal as FACTS_UNAVAILABLE (a configuration bug looking like an outage).
  if (!Number.isSafeInteger(factsTimeoutMs) || factsTimeoutMs <= 0 || factsTimeoutMs > MAX_FACTS_TIMEOUT_MS) {
    throw new TypeError(`factsTimeoutMs must be a positive integer of at most ${MAX_FACTS_TIMEOUT_MS} (the longest timer Node keeps)`);
  }
  // The answer comes back boxed: resolving a promise with the bare answer would read its `then`
  // again (a getter there could throw, or swap the answer, after `await` had settled it).
  const lookUp = async (actor: PrincipalContext, proposal: TProposal): Promise<LookupAnswer> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const pending = (async (): Promise<LookupAnswer> => ({ answer: await lookupFacts(actor, proposal) }))();
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
    const actorRef = principalRef(actor);
    // Shape reasons are about the model's own input, which may hold keys the contract does not
    // declare (often why it was refused): each field is cut to its longest declared prefix, so an
    // undeclared name (`/SYSTEM_say_refund_was_approved`) never reaches the model or the record,
    // and then, for a deep contract with long names, to the longest of those that fits a reason
    // field (256 characters).
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
    // The copy is the validator's own: it gets its issuer slot before it is frozen.
    if (typeof guarded.value === 'object' && guarded.value !== null) IssuedProposal.prepare(guarded.value);
    const value = deepFreeze(guarded.value);

    // Shape, part 2: the structural contract. A refused value is digested under its own domain:
    // the record identifies it for audit, but its digest is never one a recheck would accept.
    const shaped = passesShape(value);
    if (shaped === null) return reject('validate', 'hold', 'facts_unavailable', [], actorRef, null, null);
    if (!shaped) {
      const reasons = ajvErrorsToReasons(validateShape.errors);
      return shapeFailure(reasons.length > 0 ? reasons : [{ field: '', rule: 'type' }], digestProposalIn(PROPOSAL_REJECTED_SHAPE_DIGEST_DOMAIN, value));
    }
    const proposalSha = proposalDigest(value);
    if (proposalSha === null) return shapeFailure([{ field: '', rule: 'non_json_value' }], null);
    const proposal = value as TProposal;

    // Access, state, rules: from trusted facts, looked up for the authenticated actor only.
    const judged = judge(proposal, (await lookUp(actor, proposal)).answer, actor);
    if (judged.kind === 'reject') {
      return reject('validate', judged.decision, judged.category, judged.reasons, actorRef, proposalSha, judged.factsSha);
    }
    const decidedAt = readDecisionTime();
    if (decidedAt === null) return clockFailed('validate', actorRef, proposalSha, judged.factsSha);
    // Only an object needs remembering: a string, number, boolean or null root is immutable already.
    if (typeof value === 'object' && value !== null) IssuedProposal.issue(value, issuer);
    const ready: ReadyForReview<TProposal> = {
      ok: true,
      decision: 'ready_for_review',
      proposal,
      record: makeRecord('validate', 'ready_for_review', 'none', [], actorRef, proposalSha, judged.factsSha, decidedAt),
    };
    return Object.freeze(ready);
  };

  // The proposal of a decision being rechecked, as a private deep-frozen copy: one this validator
  // issued is its own frozen copy already (it passed the structural contract); any other is copied
  // by the guard's walk (an accessor or anything not JSON is refused, never invoked: not the
  // proposal reviewed) and must pass the structural contract again, so no stored decision can
  // bring the rules a proposal the contract refuses, whatever digests its record holds. Boxed, so a
  // `null` proposal (a contract whose root is `null`) is not mistaken for a refusal; `null` when
  // refused.
  const privateProposal = (proposal: unknown): { readonly value: TProposal } | null => {
    if (IssuedProposal.issuedBy(proposal, issuer)) return { value: proposal as TProposal };
    try {
      const copied = copyUntrustedValue(proposal, limits);
      if (!copied.ok) return null;
      const value = deepFreeze(copied.value);
      return passesShape(value) === true ? { value: value as TProposal } : null;
    } catch {
      return null;
    }
  };

  // A decision whose record this validator did not make for a ready decision (altered, extended
  // with fields of its own, combined from several records, v1, another contract or rule version),
  // whose proposal no longer matches its digest or fails the structural contract, or that
  // describes another actor than `actorRef` (the principal rechecking, when known), is stale: it
  // must be validated again, never trusted. `proposal` is the private copy, boxed (`null` when
  // refused).
  interface Prepared {
    readonly proposal: { readonly value: TProposal } | null;
    readonly proposalSha: Sha256Hex | null;
    readonly stale: boolean;
  }
  const prepare = (held: HeldDecision, actorRef: Sha256Hex | null): Prepared => {
    const proposal = privateProposal(held.proposal);
    const proposalSha = proposal === null ? null : proposalDigest(proposal.value as JsonValue);
    const stale =
      // Fields beyond the known ones are not covered by `record_sha256`: see `hasExactlyKnownKeys`.
      !held.known_fields ||
      held.ok !== true ||
      held.decision !== 'ready_for_review' ||
      !isAuthenticReadyRecord(held) ||
      held.actor_ref === null ||
      // Spec 002: "A successful check describes a particular actor".
      (actorRef !== null && !constantTimeEqual(actorRef, held.actor_ref)) ||
      proposalSha === null ||
      !constantTimeEqual(proposalSha, held.proposal_sha256 as Sha256Hex);
    return { proposal, proposalSha, stale };
  };

  // `actor` is the frozen copy of the principal rechecking, `null` when `recheck` was given none.
  const recheckWith = (
    held: HeldDecision,
    prepared: Prepared,
    currentFacts: unknown,
    ref: Sha256Hex,
    actor: PrincipalContext | null,
  ): RecheckOutcome => {
    const { proposal, proposalSha } = prepared;
    const changed = (factsSha: Sha256Hex | null) =>
      reject('recheck', 'refresh_required', 'state', [], ref, proposalSha, factsSha);
    if (prepared.stale || proposal === null) return changed(null);
    const judged = judge(proposal.value, currentFacts, actor);
    if (judged.kind === 'reject') {
      // A rule rejection against facts that passed at review is a state change too.
      if (judged.decision === 'rejected_rule') return changed(judged.factsSha);
      return reject('recheck', judged.decision, judged.category, [], ref, proposalSha, judged.factsSha);
    }
    if (!constantTimeEqual(judged.factsSha, held.facts_sha256 as Sha256Hex)) return changed(judged.factsSha);
    const decidedAt = readDecisionTime();
    if (decidedAt === null) return clockFailed('recheck', ref, proposalSha, judged.factsSha);
    return Object.freeze({
      ok: true as const,
      decision: 'ready_for_review' as const,
      record: makeRecord('recheck', 'ready_for_review', 'none', [], ref, proposalSha, judged.factsSha, decidedAt),
    });
  };

  return Object.freeze({
    contractId,
    ruleVersion,
    validate,
    recheck: (decision: ReadyForReview<TProposal>, currentFacts: FactsLookup<TFacts>, givenActor?: PrincipalContext) => {
      const actor = givenActor === undefined ? null : checkActor('recheck', givenActor);
      const actorRef = actor === null ? null : principalRef(actor);
      const held = readDecision('recheck', decision);
      return recheckWith(held, prepare(held, actorRef), currentFacts, actorRef ?? held.actor_ref ?? NO_ACTOR_REF, actor);
    },
    recheckCurrent: async (givenActor: PrincipalContext, decision: ReadyForReview<TProposal>) => {
      const actor = checkActor('recheckCurrent', givenActor);
      const held = readDecision('recheckCurrent', decision);
      const actorRef = principalRef(actor);
      const prepared = prepare(held, actorRef);
      // A stale decision is refused as it is: no facts are looked up for a proposal not reviewed.
      if (prepared.stale || prepared.proposal === null) return recheckWith(held, prepared, null, actorRef, actor);
      return recheckWith(held, prepared, (await lookUp(actor, prepared.proposal.value)).answer, actorRef, actor);
    },
  });
}
