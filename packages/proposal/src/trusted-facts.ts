import type { PrincipalContext } from '@toolseal/contracts';

/**
 * What a trusted lookup answered. `not_available` deliberately covers both "no such resource" and
 * "a resource this actor may not use": the validator cannot tell them apart, so neither can the
 * model (spec 002, "An unauthorized reference should receive a neutral access failure").
 */
export type FactsLookup<TFacts> =
  | {
      /** The resource exists and the actor may use it. */
      status: 'found';
      /**
       * The trusted facts, as the actor may see them: JSON data (plain objects and arrays, strings,
       * finite numbers, booleans, null), within the validator's `factsLimits`. The validator copies
       * them once and judges the copy; anything else (a Date, a class instance, an accessor,
       * `undefined`) holds the proposal when the rule set's `owns`, asked about them as returned,
       * answers `true`, and is `NOT_FOUND` otherwise (another tenant's row is never told from a
       * missing one by its shape).
       */
      facts: TFacts;
    }
  | {
      /** Absent, or not the actor's: one answer for both. */
      status: 'not_available';
    }
  | {
      /** The lookup could not be made (store down, timeout): the proposal is held, never guessed. */
      status: 'lookup_failed';
    };

/**
 * The host's source of trusted facts for one proposal contract. It is called with the
 * authenticated actor from the host's own authentication, never with a tenant, role or approval
 * taken from the proposal, and returns only resources that actor may use. It may read the resource
 * reference (an order id, say) from the shape-valid proposal; it must not trust anything else in it.
 * A thrown error or rejected promise counts as `lookup_failed`, and so does an answer that is not
 * one of the three below or cannot be read (a getter or Proxy trap that throws). The answer's
 * `status` and `facts` are read once each. The actor it receives is the validator's frozen copy.
 */
export interface TrustedFacts<TProposal, TFacts> {
  lookup(actor: PrincipalContext, proposal: TProposal): FactsLookup<TFacts> | Promise<FactsLookup<TFacts>>;
}
