import type { ErrorReason, PrincipalContext } from '@toolseal/contracts';
import type { Digester } from '@toolseal/digests';
import type { JsonLimits } from '@toolseal/guard';
import { checkMethods, checkOptionKeys } from './check-options.js';
import { createProposalValidator, type ProposalValidator } from './create-proposal-validator.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import type { FactsLookup } from './trusted-facts.js';

/** A refund unit. Never converted into another. */
export type RefundUnit = 'CREDIT_A' | 'CREDIT_B';

/** One proposed line (untrusted until checked). */
export interface RefundProposalLine {
  readonly line_id: string;
  readonly quantity: number;
}

/** A shape-valid refund proposal (untrusted until the rules pass). */
export interface RefundProposal {
  readonly order_id: string;
  readonly amount: number;
  readonly unit: RefundUnit;
  readonly lines: readonly RefundProposalLine[];
}

/** One trusted order line. */
export interface RefundOrderLine {
  /** The line's id. */
  readonly line_id: string;
  /** How many units of the line may still be refunded (0: none). */
  readonly eligible_quantity: number;
  /** The value of one unit, in the order's unit. */
  readonly unit_amount: number;
}

/** The trusted facts of one order, as the host's order store reports them for the actor. */
export interface RefundOrderFacts {
  /**
   * The tenant that owns the order, from the host's order store (never from the proposal).
   * `REFUND_RULES_V1.owns` compares it with the authenticated actor's `tenant_id`, independently of
   * the lookup's own tenant filter: an order of another tenant is `NOT_FOUND`, as if absent.
   */
  readonly tenant_id: string;
  /** The order's id. */
  readonly order_id: string;
  /** The unit the order is denominated in. */
  readonly unit: RefundUnit;
  /** The order's workflow state; only `eligible` permits a refund proposal. */
  readonly state: string;
  /** The order's resource revision. */
  readonly revision: string;
  /** How much may still be refunded on the order, in its unit. */
  readonly remaining_eligible_amount: number;
  /** The trusted line records. */
  readonly lines: readonly RefundOrderLine[];
}

/** The host's order store, read for the authenticated actor only. */
export interface RefundOrderSource {
  /**
   * The order `orderId` as `actor` may see it: `not_available` when it does not exist or belongs to
   * another tenant (one answer for both), `lookup_failed` when the store cannot answer. Found facts
   * carry the order's owning `tenant_id`; the rules check it against `actor` again (`owns`), so an
   * order a lookup returns without its tenant filter is still `NOT_FOUND`, never judged.
   */
  loadOrder(actor: PrincipalContext, orderId: string): FactsLookup<RefundOrderFacts> | Promise<FactsLookup<RefundOrderFacts>>;
}

const isAmount = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isQuantity = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Whether `facts` have every field the rules read, of its type: strings for the owning tenant, ids,
 * unit, state and revision; non-negative finite amounts; non-negative whole quantities; and each
 * line id at most once. Every rule is a comparison, and a comparison with a value of another type
 * (`"n/a"`, `null`, `"5"`) is silently false, which would skip the rejection it guards: such facts
 * make the validator hold instead (fail closed). A line id listed twice (a JOIN that repeats a
 * line, two ledger rows for one line) is the same kind of unreliable fact: the rules would have to
 * pick one record, and which one decided (the line already refunded or a stale eligible row) would
 * then depend on row order, so those facts hold too.
 */
function isRefundOrderFacts(facts: RefundOrderFacts): boolean {
  const value: unknown = facts;
  if (typeof value !== 'object' || value === null) return false;
  const { tenant_id, order_id, unit, state, revision, remaining_eligible_amount, lines } = value as { [key: string]: unknown };
  if (typeof tenant_id !== 'string' || typeof order_id !== 'string' || typeof unit !== 'string') return false;
  if (typeof state !== 'string' || typeof revision !== 'string') return false;
  if (!isAmount(remaining_eligible_amount) || !Array.isArray(lines)) return false;
  const lineIds = new Set<string>();
  return (lines as unknown[]).every((line) => {
    if (typeof line !== 'object' || line === null) return false;
    const { line_id, eligible_quantity, unit_amount } = line as { [key: string]: unknown };
    if (typeof line_id !== 'string' || lineIds.has(line_id)) return false;
    lineIds.add(line_id);
    return isQuantity(eligible_quantity) && isAmount(unit_amount);
  });
}

/**
 * The fictional refund rules of spec 002, version `refund-rules-v1`, computed from trusted line
 * records only:
 * - ownership first: the order's `tenant_id` must be the actor's (`owns`; otherwise `NOT_FOUND`,
 *   byte for byte the answer for an order that does not exist, and no rule below reads it);
 * - the unit must equal the order's unit (`/unit` `unit_mismatch`; never converted);
 * - per line, in order: a repeated line id is `duplicate_line_id` (never counted twice); a line
 *   the order has no eligible quantity for is `line_not_eligible`; a quantity above the eligible
 *   quantity is `quantity_exceeds_eligible`; below it, `partial_amount_not_allowed` (whole lines
 *   only);
 * - the amount: above the order's remaining eligible amount, `amount_mismatch`; otherwise it must
 *   equal the total of the proposed lines at their trusted unit amounts: when it does not, a
 *   smaller amount for otherwise valid lines is `partial_amount_not_allowed`, anything else
 *   `amount_mismatch`.
 * Reasons come in that order: unit, lines by index, amount.
 */
export const REFUND_RULES_V1: ProposalRuleSet<RefundProposal, RefundOrderFacts> = Object.freeze({
  version: 'refund-rules-v1',

  owns(actor: PrincipalContext, facts: RefundOrderFacts): boolean {
    // `false`, never a throw, for facts without a readable owner: a hold there would tell an order
    // that exists (somewhere) from one that does not.
    const value: unknown = facts;
    return typeof value === 'object' && value !== null && (value as { tenant_id?: unknown }).tenant_id === actor.tenant_id;
  },

  describes(proposal: RefundProposal, facts: RefundOrderFacts): boolean {
    return isRefundOrderFacts(facts) && facts.order_id === proposal.order_id;
  },

  statePermits(facts: RefundOrderFacts): boolean {
    return facts.state === 'eligible';
  },

  check(proposal: RefundProposal, facts: RefundOrderFacts): ErrorReason[] {
    const reasons: ErrorReason[] = [];
    if (proposal.unit !== facts.unit) reasons.push({ field: '/unit', rule: 'unit_mismatch' });

    const trustedLines = new Map<string, RefundOrderLine>();
    for (const line of facts.lines) trustedLines.set(line.line_id, line);
    const seen = new Set<string>();
    let linesTotal = 0;
    let lineProblem = false;
    proposal.lines.forEach((line, index) => {
      if (seen.has(line.line_id)) {
        reasons.push({ field: `/lines/${index}/line_id`, rule: 'duplicate_line_id' });
        lineProblem = true;
        return;
      }
      seen.add(line.line_id);
      const trusted = trustedLines.get(line.line_id);
      if (trusted === undefined || trusted.eligible_quantity <= 0) {
        reasons.push({ field: `/lines/${index}/line_id`, rule: 'line_not_eligible' });
        lineProblem = true;
        return;
      }
      if (line.quantity > trusted.eligible_quantity) {
        reasons.push({ field: `/lines/${index}/quantity`, rule: 'quantity_exceeds_eligible' });
        lineProblem = true;
      } else if (line.quantity < trusted.eligible_quantity) {
        reasons.push({ field: `/lines/${index}/quantity`, rule: 'partial_amount_not_allowed' });
        lineProblem = true;
      }
      linesTotal += line.quantity * trusted.unit_amount;
    });

    if (proposal.amount > facts.remaining_eligible_amount) {
      reasons.push({ field: '/amount', rule: 'amount_mismatch' });
    } else if (proposal.amount !== linesTotal) {
      const partial = !lineProblem && proposal.amount < linesTotal;
      reasons.push({ field: '/amount', rule: partial ? 'partial_amount_not_allowed' : 'amount_mismatch' });
    }
    return reasons;
  },

  snapshot(facts: RefundOrderFacts) {
    return {
      // The owner too: a decision describes the order as its tenant's. An order that changed hands
      // since review is no longer the one reviewed (`recheck` without an actor sees it here).
      tenant_id: facts.tenant_id,
      order_id: facts.order_id,
      unit: facts.unit,
      state: facts.state,
      revision: facts.revision,
      remaining_eligible_amount: facts.remaining_eligible_amount,
      lines: facts.lines.map((line) => ({
        line_id: line.line_id,
        eligible_quantity: line.eligible_quantity,
        unit_amount: line.unit_amount,
      })),
    };
  },
});

/** Options of `createRefundProposalValidator`. */
export interface RefundProposalValidatorOptions {
  /** The host's order store. */
  orders: RefundOrderSource;
  /** Digests for the protected records (keyed mode recommended). */
  digester: Digester;
  /** Guard limits; default `DEFAULT_PROPOSAL_LIMITS`. */
  limits?: Partial<JsonLimits>;
  /** Clock for `decided_at`. */
  clock?: () => Date;
  /** How long the order lookup may take before the proposal is held. */
  factsTimeoutMs?: number;
  /** Guard limits for the order facts (copied before the rules judge them); default the guard's. */
  factsLimits?: Partial<JsonLimits>;
}

/** Every option `createRefundProposalValidator` reads: any other key is refused at start-up. */
const REFUND_VALIDATOR_OPTIONS: readonly string[] = Object.freeze(['orders', 'digester', 'limits', 'clock', 'factsTimeoutMs', 'factsLimits']);

/**
 * The spec 002 refund validator: `REFUND_PROPOSAL_SCHEMA` and `REFUND_RULES_V1` over the host's
 * orders. Checks its options at start-up as `createProposalValidator` does (a `TypeError` naming
 * the option): `options` an object without unknown keys, and `orders.loadOrder` a function, so a
 * missing order store is not found on the first proposal, held as if the store were down.
 */
export function createRefundProposalValidator(
  options: RefundProposalValidatorOptions,
): ProposalValidator<RefundProposal, RefundOrderFacts> {
  checkOptionKeys('createRefundProposalValidator', options, REFUND_VALIDATOR_OPTIONS);
  // Each option is read once, here, and that value is what createProposalValidator checks and uses.
  const { orders, digester, limits, clock, factsTimeoutMs, factsLimits } = options;
  // Kept as checked: a function swapped on the host's object later does not change where facts come from.
  const { loadOrder } = checkMethods('orders', orders, ['loadOrder'], 'a RefundOrderSource object ({ loadOrder })');
  return createProposalValidator<RefundProposal, RefundOrderFacts>({
    contractId: REFUND_PROPOSAL_CONTRACT_ID,
    schema: REFUND_PROPOSAL_SCHEMA,
    facts: { lookup: (actor, proposal) => loadOrder(actor, proposal.order_id) },
    rules: REFUND_RULES_V1,
    digester,
    ...(limits === undefined ? {} : { limits }),
    ...(clock === undefined ? {} : { clock }),
    ...(factsTimeoutMs === undefined ? {} : { factsTimeoutMs }),
    ...(factsLimits === undefined ? {} : { factsLimits }),
  });
}
