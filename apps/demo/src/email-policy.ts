import type { ErrorReason, PrincipalContext } from '@toolseal/contracts';
import type { TrustedCheckOutcome } from '@toolseal/dispatcher';
import type { CedarWorld } from './cedar-world.js';

// Matched on normalized text only (see `normalizeForPolicy`), so case, look-alike dashes,
// compatibility forms and invisible characters cannot hide an order reference.
const ORDER_REFERENCE = /ORDER\s*-\s*([A-Z0-9]{1,32})/gu;
const INVISIBLE = /[\p{Cf}\p{Mn}\u034F\u115F\u1160\u3164\uFFA0]/gu;
const DASHES = /[\p{Pd}\u2212\uFE63\uFF0D]/gu;

/** NFKC, invisible characters removed, every dash made `-`, upper case. */
export function normalizeForPolicy(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(DASHES, '-').toUpperCase();
}

/**
 * The trusted email policy of tenant Cedar (fabricated), decided from the authenticated principal
 * and the host's own records, never from the email's text or an earlier tool result:
 *
 * - recipient policy: the tenant's own domain, or the contact of an order the tenant owns
 *   (`/to` `recipient_not_allowed`);
 * - data classification: order data is internal; one email may name at most one order, and only
 *   one the tenant owns: a bulk export or another tenant's order is `data_classification` on the
 *   field that carries it (`/subject`, `/body`).
 */
export function checkEmailPolicy(world: CedarWorld, principal: PrincipalContext, email: { to: string; subject: string; body: string }): TrustedCheckOutcome {
  const reasons: ErrorReason[] = [];
  const to = email.to.toLowerCase();
  const domain = to.slice(to.lastIndexOf('@') + 1);
  if (domain !== world.tenantDomain(principal) && !world.isCustomerContact(principal, to)) {
    reasons.push({ field: '/to', rule: 'recipient_not_allowed' });
  }
  const named = new Set<string>();
  for (const field of ['subject', 'body'] as const) {
    const found = [...normalizeForPolicy(email[field]).matchAll(ORDER_REFERENCE)].map((match) => `ORDER-${match[1] ?? ''}`);
    for (const order of found) named.add(order);
    if (found.some((order) => !world.ownsOrder(principal, order))) {
      reasons.push({ field: `/${field}`, rule: 'data_classification' });
    }
  }
  if (named.size > 1 && !reasons.some((reason) => reason.rule === 'data_classification')) {
    reasons.push({ field: '/body', rule: 'data_classification' });
  }
  return reasons.length === 0 ? { ok: true } : { ok: false, code: 'RULE_REJECTED', reasons };
}
