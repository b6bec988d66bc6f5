import type { JsonObject, PrincipalContext } from '@toolseal/contracts';
import type { FactsLookup, RefundOrderFacts } from '@toolseal/proposal';
import { readFixture } from './repository-files.js';

interface CedarFacts {
  actor: PrincipalContext;
  orders: { tenant_id: string; facts: RefundOrderFacts }[];
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
  readonly #orders: { tenant_id: string; facts: RefundOrderFacts }[];
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
  }

  /** The order as `principal` may see it; `undefined` for "does not exist" and "not yours" alike. */
  orderFor(principal: PrincipalContext, orderId: string): RefundOrderFacts | undefined {
    return this.#orders.find((order) => order.facts.order_id === orderId && order.tenant_id === principal.tenant_id)?.facts;
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
