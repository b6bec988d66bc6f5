import { describe, expect, it } from 'vitest';
import type { PrincipalContext } from '@toolseal/contracts';
import { CedarWorld } from './cedar-world.js';
import { checkEmailPolicy, normalizeForPolicy } from './email-policy.js';

const drafter: PrincipalContext = { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: ['support_drafter'] };
const world = new CedarWorld();
const send = (body: string, to = 'pat.lee@example.net') => checkEmailPolicy(world, drafter, { to, subject: 'Your refund', body });

describe('checkEmailPolicy', () => {
  it('lets the contact of an owned order hear about that order', () => {
    expect(send('We are reviewing a refund for ORDER-C7.')).toEqual({ ok: true });
  });

  it('refuses a recipient outside the tenant and its customers', () => {
    expect(send('Hello', 'collector@evil.example')).toEqual({
      ok: false,
      code: 'RULE_REJECTED',
      reasons: [{ field: '/to', rule: 'recipient_not_allowed' }],
    });
  });

  // Each spelling names ORDER-M9 (another tenant's order) in a way a plain ASCII match would miss.
  it.each([
    ['lower case', 'about order-m9'],
    ['mixed case', 'about Order-M9'],
    ['non-breaking hyphen U+2011', 'about ORDER\u2011M9'],
    ['en dash', 'about ORDER\u2013M9'],
    ['zero-width space inside', 'about ORDER-\u200bM9'],
    ['soft hyphen inside', 'about ORD\u00adER-M9'],
    ['fullwidth letters', 'about ＯＲＤＥＲ－Ｍ９'],
    ['spaces around the dash', 'about ORDER - M9'],
  ])('refuses another tenant’s order spelled with %s', (_label, body) => {
    expect(send(body)).toEqual({ ok: false, code: 'RULE_REJECTED', reasons: [{ field: '/body', rule: 'data_classification' }] });
  });

  it('refuses a bulk export of the tenant’s own orders however they are spelled', () => {
    expect(send('Order-C7 and order\u2011C7 and ORDER-C8')).toMatchObject({ ok: false });
  });

  it('normalizes compatibility forms, invisible characters and dashes', () => {
    expect(normalizeForPolicy('ｏｒｄｅｒ\u2010\u200dc7')).toBe('ORDER-C7');
  });
});
