import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PrincipalContext } from '@toolseal/contracts';
import type { FactsLookup } from '../trusted-facts.js';
import type { RefundOrderFacts, RefundOrderSource } from '../refund-rules.js';

/** Top-level fixtures of the repository. */
export const FIXTURES = join(import.meta.dirname, '../../../../fixtures');

interface CedarFixture {
  actor: PrincipalContext;
  orders: { tenant_id: string; facts: RefundOrderFacts }[];
}

export function readJson<T>(relativePath: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, relativePath), 'utf8')) as T;
}

/** The trusted state variations the matrix names. */
export type FactsMode = 'baseline' | 'eligibility_revoked' | 'lookup_unavailable';

export const cedar = readJson<CedarFixture>('proposal/cedar-facts.json');

/** An in-memory order store over the Cedar fixture that records how it was called. */
export function createCedarOrders(initial: FactsMode = 'baseline') {
  let mode: FactsMode = initial;
  const calls: { actor: PrincipalContext; orderId: string }[] = [];
  const source: RefundOrderSource = {
    loadOrder(actor, orderId): FactsLookup<RefundOrderFacts> {
      calls.push({ actor: structuredClone(actor), orderId });
      if (mode === 'lookup_unavailable') return { status: 'lookup_failed' };
      const order = cedar.orders.find((entry) => entry.tenant_id === actor.tenant_id && entry.facts.order_id === orderId);
      if (order === undefined) return { status: 'not_available' };
      const facts = structuredClone(order.facts);
      return {
        status: 'found',
        facts: mode === 'eligibility_revoked' ? { ...facts, state: 'ineligible', revision: `${facts.revision}-revoked` } : facts,
      };
    },
  };
  return {
    source,
    calls,
    setMode(next: FactsMode) {
      mode = next;
    },
  };
}
