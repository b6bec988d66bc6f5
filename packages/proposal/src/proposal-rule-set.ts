import type { ErrorReason, JsonValue, PrincipalContext } from '@toolseal/contracts';

/**
 * A versioned set of business rules for one proposal contract, computed from trusted facts only.
 * Every function must be deterministic, synchronous, and must not change its arguments (all are
 * deep-frozen: the validator's copy of the actor, of the proposal and of the facts, the same facts
 * object for every function of one check). A rule that throws, or answers anything outside what is
 * documented here (a Promise from an async function included), makes the validator hold the
 * proposal (`FACTS_UNAVAILABLE`): a broken rule service is never a pass.
 *
 * The validator calls them in this order, and the first that refuses decides: `owns` (access),
 * `describes`, `statePermits` (state), `check` (business rules); `snapshot` for every answer past
 * `describes`.
 */
export interface ProposalRuleSet<TProposal, TFacts> {
  /** The rule version, recorded in every decision; a decision made under another version must be redone. */
  readonly version: string;
  /**
   * True when `actor` may use the resource these facts describe: its tenant owns it (the refund
   * rules compare `facts.tenant_id` with `actor.tenant_id`). This is an independent check of what
   * the trusted lookup was asked to filter (spec 002: "independently check the authenticated actor,
   * resource ownership..."), so a lookup that forgets its tenant filter cannot hand another
   * tenant's resource to the rules. Called first, on every `found` answer, before `describes`.
   * `false` is a neutral access refusal, exactly the answer of a lookup's `not_available`
   * (`rejected_access`, `NOT_FOUND`, the same bytes): nothing tells the model the resource exists
   * elsewhere, and no later rule reads it. Any other answer (a throw, a Promise, `'yes'`,
   * `undefined`) is a broken rule set and holds, like every other rule function: never a pass.
   * Answer `false`, not throw, for facts without an owner you can read. Facts the validator cannot
   * copy (not JSON data, past `factsLimits`) are passed as the lookup returned them, the one call
   * on the host's object: `true` then holds (the actor's own resource is unreadable), and anything
   * else, a throw included, is `NOT_FOUND` (ownership cannot be established), so another tenant's
   * malformed row is never told from a missing one.
   */
  owns(actor: PrincipalContext, facts: TFacts): boolean;
  /**
   * True when `facts` are the facts of the resource `proposal` targets (the host looked up the
   * right thing) and have the shape the rules read (every field the rules compare, of its type).
   * Anything but exactly `true` makes the validator hold: facts for something else, or facts a
   * comparison cannot rely on (a number that is a string, a missing line field), prove nothing.
   */
  describes(proposal: TProposal, facts: TFacts): boolean;
  /**
   * `true` when the resource's current state permits a proposal at all, `false` when it does not
   * (`refresh_required`, `STATE_CHANGED`). Any other answer makes the validator hold.
   */
  statePermits(facts: TFacts): boolean;
  /**
   * The business rules. Returns safe reasons: each `rule` from `RULE_REJECTION_RULES`, each
   * `field` a pointer the contract declares (property names of its schema, and indexes where it
   * describes an array; never a key the proposal chose, such as a map's key) that names a place
   * the proposal holds (`""`; an index below its array's length; a member of an object it has,
   * present or not when it is the last segment; never anything below a missing member or a
   * scalar: `holdsPlace` of `@toolseal/guard`, the rule `@toolseal/result` seals reasons by). Empty when the
   * proposal equals what the trusted facts allow. Never repairs: it judges the proposal as given.
   * Anything else (not an array, a reason outside the catalog, at an undeclared field, or at an
   * item the proposal does not have, such as `/lines/908172/quantity` for one line) holds: a
   * declared `*` would otherwise let the rule set choose digits for the model to read. The first
   * 16 reasons are read once and kept; later ones are not read.
   */
  check(proposal: TProposal, facts: TFacts): ErrorReason[];
  /**
   * The part of the facts a decision depends on, as a JSON value. Its digest is kept in a ready
   * decision; any difference at recheck means the state changed since review.
   */
  snapshot(facts: TFacts): JsonValue;
}
