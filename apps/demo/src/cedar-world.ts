import type { JsonObject, PrincipalContext } from '@toolseal/contracts';
import type { FactsLookup, RefundOrderFacts } from '@toolseal/proposal';
import { readFixture } from './repository-files.js';

interface CedarFacts {
  actor: PrincipalContext;
  orders: { tenant_id: string; facts: RefundOrderFacts }[];
}

/**
 * The refunds service's answer to a draft: the draft written (or the one its key already holds), or
 * why nothing was written.
 */
export type DraftOutcome =
  | { kind: 'drafted'; data: JsonObject }
  /** The order no longer permits this draft: not eligible, or its remaining amount does not cover it. */
  | { kind: 'state_changed' }
  /** No order of that id for the principal's tenant. */
  | { kind: 'not_found' };

/** An order's mutable part: what a draft consumes. */
interface OrderLedger {
  remaining_eligible_amount: number;
  revision: string;
}

/** `order-c7-r1` → `order-c7-r2`: a revision names one state of the order, never two. */
function nextRevision(revision: string): string {
  const match = /^(.*-r)(\d+)$/.exec(revision);
  return match === null ? `${revision}-r2` : `${match[1] ?? ''}${Number(match[2]) + 1}`;
}

/** How a simulated downstream system behaves for the next calls. */
export type DownstreamMode = 'normal' | 'inject_status' | 'nested_token' | 'throw_secret';

/** A secret the demo plants in a failing handler's exception: it must never reach the model. */
export const PLANTED_SECRET = 'sk-live-cedar-7f3a9c2e1b';
/** A credential a compromised knowledge base nests in a hit: it must never reach the model. */
export const PLANTED_TOKEN = 'tok_live_4d2e8a91c07b';

const TENANT_DOMAINS: Readonly<Record<string, string>> = { cedar: 'cedar.example', maple: 'maple.example' };
const ORDER_CONTACTS: Readonly<Record<string, string>> = { 'ORDER-C7': 'pat.lee@example.net', 'ORDER-M9': 'sam.roe@example.org' };

/**
 * Everything outside toolseal in the demo: the trusted facts of specification 002 (tenant Cedar,
 * its support drafter, ORDER-C7; ORDER-M9 of tenant Maple, from `fixtures/proposal/cedar-facts.json`),
 * and the simulated downstream systems the handlers call: orders, knowledge base, refunds service,
 * outbox. All fabricated; nothing here touches a network.
 */
export class CedarWorld {
  /** The authenticated support drafter (from the host's authentication, never from a model). */
  readonly drafter: PrincipalContext;
  /** The orders as the fixture states them: the trusted state each matrix row starts from. */
  readonly #orders: { tenant_id: string; facts: RefundOrderFacts }[];
  /**
   * Each order's remaining amount and revision now, by order id: a draft lowers the one and bumps
   * the other, so the facts the proposal gate reads after a draft are the facts the draft left
   * (review 7, F1: with fixed facts, every recheck passed and one 6000 line was drafted three times).
   */
  readonly #ledger = new Map<string, OrderLedger>();
  /** Trusted order state for the spec 002 matrix: eligible, revoked, or the lookup down. */
  facts: { state: 'eligible' | 'revoked'; lookup: 'up' | 'down' } = { state: 'eligible', lookup: 'up' };
  /** Behaviour of the orders system and the knowledge base (attacks). */
  ordersMode: DownstreamMode = 'normal';
  kbMode: DownstreamMode = 'normal';
  /** The outbox accepts the next message, then its handler stops answering (simulated crash). */
  outboxCrashNext = false;
  /** Drafts the refunds service holds, by idempotency key. */
  readonly drafts = new Map<string, JsonObject>();
  /** Messages the outbox accepted, by idempotency key. */
  readonly outbox = new Map<string, JsonObject>();
  /** Handler executions per tool (a replay or reconciliation executes nothing). */
  readonly executions: Record<string, number> = { get_order: 0, kb_search: 0, create_refund_draft: 0, send_email: 0 };
  #sequence = 0;

  constructor() {
    const cedar = readFixture('proposal', 'cedar-facts.json') as CedarFacts;
    this.drafter = Object.freeze({ ...cedar.actor, roles: [...cedar.actor.roles] });
    this.#orders = cedar.orders;
    for (const { facts } of this.#orders) {
      this.#ledger.set(facts.order_id, { remaining_eligible_amount: facts.remaining_eligible_amount, revision: facts.revision });
    }
  }

  /** The order as `principal` may see it now; `undefined` for "does not exist" and "not yours" alike. */
  orderFor(principal: PrincipalContext, orderId: string): RefundOrderFacts | undefined {
    const order = this.#orders.find((entry) => entry.facts.order_id === orderId && entry.tenant_id === principal.tenant_id);
    const ledger = this.#ledger.get(orderId);
    if (order === undefined || ledger === undefined) return undefined;
    return { ...order.facts, remaining_eligible_amount: ledger.remaining_eligible_amount, revision: ledger.revision };
  }

  /**
   * The refunds service drafts a refund of `amount` on `orderId` under the idempotency key `key`, as
   * one conditional write on the state the refund rules read (dispatcher README, "Proposal gate":
   * the recheck reserves nothing, so another draft of the order can pass it at the same time). A key
   * that already holds a draft answers that draft again, consuming nothing (the service
   * deduplicates by key). Otherwise the draft is written only while the order is `principal`'s, in
   * the eligible state, and its remaining amount still covers `amount`; then, in the same step, the
   * remaining amount is lowered by `amount` and the revision bumped. When that no longer holds,
   * nothing is written: `state_changed`. `build` makes the draft's data from its `draft_ref`.
   */
  draftRefund(principal: PrincipalContext, key: string, orderId: string, amount: number, build: (draftRef: string) => JsonObject): DraftOutcome {
    const existing = this.drafts.get(key);
    if (existing !== undefined) return { kind: 'drafted', data: existing };
    const order = this.orderFor(principal, orderId);
    const ledger = this.#ledger.get(orderId);
    if (order === undefined || ledger === undefined) return { kind: 'not_found' };
    if (this.facts.state !== 'eligible' || ledger.remaining_eligible_amount < amount) return { kind: 'state_changed' };
    ledger.remaining_eligible_amount -= amount;
    ledger.revision = nextRevision(ledger.revision);
    const data = build(`DRAFT-${String(this.next()).padStart(4, '0')}`);
    this.drafts.set(key, data);
    return { kind: 'drafted', data };
  }

  /**
   * Sets every order the drafts have consumed back to the fixture's remaining amount: spec 002's
   * matrix gives each row its own trusted facts ("Each matrix variation changes only the stated
   * fields or trusted state"), so a row after the approved draft is judged against the fixture's
   * 6000 again, not against what that draft left. The revision is bumped, never set back: an order
   * refunded and restored is another state than the one a decision before the refund saw. The
   * drafts themselves stay (their keys still answer them). Answers the ids of the orders restored.
   */
  restoreOrders(): string[] {
    const restored: string[] = [];
    for (const { facts } of this.#orders) {
      const ledger = this.#ledger.get(facts.order_id);
      if (ledger === undefined || ledger.remaining_eligible_amount === facts.remaining_eligible_amount) continue;
      ledger.remaining_eligible_amount = facts.remaining_eligible_amount;
      ledger.revision = nextRevision(ledger.revision);
      restored.push(facts.order_id);
    }
    return restored;
  }

  ownsOrder(principal: PrincipalContext, orderId: string): boolean {
    return this.orderFor(principal, orderId) !== undefined;
  }

  tenantDomain(principal: PrincipalContext): string | undefined {
    return TENANT_DOMAINS[principal.tenant_id];
  }

  isCustomerContact(principal: PrincipalContext, address: string): boolean {
    return Object.entries(ORDER_CONTACTS).some(([order, contact]) => contact === address && this.ownsOrder(principal, order));
  }

  /** The refund validator's trusted lookup (spec 002 matrix states). */
  loadOrder(principal: PrincipalContext, orderId: string): FactsLookup<RefundOrderFacts> {
    if (this.facts.lookup === 'down') return { status: 'lookup_failed' };
    // A support drafter may prepare proposals for its tenant's orders; anyone else sees no order.
    if (!principal.roles.includes('support_drafter')) return { status: 'not_available' };
    const order = this.orderFor(principal, orderId);
    if (order === undefined) return { status: 'not_available' };
    // The facts name the order's owner (`tenant_id`): the refund rules check it against the actor
    // again (`owns`), so a lookup that forgot the tenant filter above would still answer NOT_FOUND.
    return { status: 'found', facts: this.facts.state === 'eligible' ? order : { ...order, state: 'refund_locked' } };
  }

  next(): number {
    this.#sequence += 1;
    return this.#sequence;
  }
}
