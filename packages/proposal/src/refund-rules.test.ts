import { describe, expect, it } from 'vitest';
import { REFUND_RULES_V1, type RefundOrderFacts, type RefundOrderLine, type RefundProposal } from './refund-rules.js';

// A two-line order: LINE-A 2 units of 1500, LINE-B 1 unit of 4000; remaining 7000 of 7000.
const facts: RefundOrderFacts = {
  tenant_id: 'cedar',
  order_id: 'ORDER-T1',
  unit: 'CREDIT_B',
  state: 'eligible',
  revision: 'r1',
  remaining_eligible_amount: 7000,
  lines: [
    { line_id: 'LINE-A', eligible_quantity: 2, unit_amount: 1500 },
    { line_id: 'LINE-B', eligible_quantity: 1, unit_amount: 4000 },
    { line_id: 'LINE-C', eligible_quantity: 0, unit_amount: 999 },
  ],
};

function proposal(amount: number, lines: [string, number][], unit: RefundProposal['unit'] = 'CREDIT_B'): RefundProposal {
  return { order_id: 'ORDER-T1', amount, unit, lines: lines.map(([line_id, quantity]) => ({ line_id, quantity })) };
}

describe('REFUND_RULES_V1', () => {
  it('accepts whole lines at their trusted total, alone or together', () => {
    expect(REFUND_RULES_V1.check(proposal(3000, [['LINE-A', 2]]), facts)).toEqual([]);
    expect(REFUND_RULES_V1.check(proposal(4000, [['LINE-B', 1]]), facts)).toEqual([]);
    expect(REFUND_RULES_V1.check(proposal(7000, [['LINE-B', 1], ['LINE-A', 2]]), facts)).toEqual([]);
  });

  it('rejects a duplicate line id instead of counting it twice', () => {
    expect(REFUND_RULES_V1.check(proposal(7000, [['LINE-B', 1], ['LINE-B', 1]]), facts)).toEqual([
      { field: '/lines/1/line_id', rule: 'duplicate_line_id' },
      { field: '/amount', rule: 'amount_mismatch' },
    ]);
  });

  it('rejects lines the order has no eligible quantity for', () => {
    expect(REFUND_RULES_V1.check(proposal(4000, [['LINE-B', 1], ['LINE-Z', 1]]), facts)).toEqual([
      { field: '/lines/1/line_id', rule: 'line_not_eligible' },
    ]);
    expect(REFUND_RULES_V1.check(proposal(999, [['LINE-C', 1]]), facts)).toEqual([
      { field: '/lines/0/line_id', rule: 'line_not_eligible' },
      { field: '/amount', rule: 'amount_mismatch' },
    ]);
  });

  it('allows whole lines only', () => {
    expect(REFUND_RULES_V1.check(proposal(1500, [['LINE-A', 1]]), facts)).toEqual([
      { field: '/lines/0/quantity', rule: 'partial_amount_not_allowed' },
    ]);
    expect(REFUND_RULES_V1.check(proposal(2000, [['LINE-B', 1]]), facts)).toEqual([{ field: '/amount', rule: 'partial_amount_not_allowed' }]);
  });

  it('rejects an amount above the lines total or the remaining amount', () => {
    expect(REFUND_RULES_V1.check(proposal(5000, [['LINE-B', 1]]), facts)).toEqual([{ field: '/amount', rule: 'amount_mismatch' }]);
    expect(REFUND_RULES_V1.check(proposal(7001, [['LINE-B', 1], ['LINE-A', 2]]), facts)).toEqual([{ field: '/amount', rule: 'amount_mismatch' }]);
    const partlyRefunded = { ...facts, remaining_eligible_amount: 5000 };
    expect(REFUND_RULES_V1.check(proposal(7000, [['LINE-B', 1], ['LINE-A', 2]]), partlyRefunded)).toEqual([
      { field: '/amount', rule: 'amount_mismatch' },
    ]);
  });

  it('never converts units, and orders reasons unit, lines, amount', () => {
    expect(REFUND_RULES_V1.check(proposal(9000, [['LINE-A', 3]], 'CREDIT_A'), facts)).toEqual([
      { field: '/unit', rule: 'unit_mismatch' },
      { field: '/lines/0/quantity', rule: 'quantity_exceeds_eligible' },
      { field: '/amount', rule: 'amount_mismatch' },
    ]);
  });

  it('describes only the order it was looked up for, and permits only the eligible state', () => {
    expect(REFUND_RULES_V1.describes(proposal(1, []), facts)).toBe(true);
    expect(REFUND_RULES_V1.describes({ ...proposal(1, []), order_id: 'ORDER-T2' }, facts)).toBe(false);
    expect(REFUND_RULES_V1.statePermits(facts)).toBe(true);
    for (const state of ['ineligible', 'refunded', 'ELIGIBLE', '']) expect(REFUND_RULES_V1.statePermits({ ...facts, state })).toBe(false);
  });

  it('owns only an order of the actor\'s tenant, and answers false (never throws) for facts without a readable owner', () => {
    const actor = { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: ['support_drafter'] };
    expect(REFUND_RULES_V1.owns(actor, facts)).toBe(true);
    expect(REFUND_RULES_V1.owns({ ...actor, tenant_id: 'maple' }, facts)).toBe(false);
    const { tenant_id: _owner, ...ownerless } = facts;
    for (const odd of [ownerless, { ...facts, tenant_id: 'CEDAR' }, { ...facts, tenant_id: null }, { ...facts, tenant_id: ['cedar'] }, null, 'cedar', []]) {
      expect(REFUND_RULES_V1.owns(actor, odd as unknown as RefundOrderFacts), JSON.stringify(odd)).toBe(false);
    }
  });

  it('describes only facts that name their owner as a string', () => {
    const { tenant_id: _owner, ...ownerless } = facts;
    expect(REFUND_RULES_V1.describes(proposal(1, []), ownerless as unknown as RefundOrderFacts)).toBe(false);
    expect(REFUND_RULES_V1.describes(proposal(1, []), { ...facts, tenant_id: 7 } as unknown as RefundOrderFacts)).toBe(false);
  });

  it('describes no facts that list a line id twice, in either row order (the rules would have to pick one)', () => {
    const [lineA, lineB, lineC] = facts.lines as [RefundOrderLine, RefundOrderLine, RefundOrderLine];
    const refundedA = { ...lineA, eligible_quantity: 0 };
    for (const lines of [[refundedA, lineA], [lineA, refundedA], [lineA, lineA], [lineA, lineB, lineC, lineA]]) {
      expect(REFUND_RULES_V1.describes(proposal(3000, [['LINE-A', 2]]), { ...facts, lines }), JSON.stringify(lines)).toBe(false);
    }
    // Line ids are compared exactly, as the rules look them up: ids that differ only in case are two lines.
    expect(REFUND_RULES_V1.describes(proposal(3000, [['LINE-A', 2]]), { ...facts, lines: [lineA, { ...lineB, line_id: 'line-a' }] })).toBe(true);
  });

  it('keeps the owner in the snapshot: an order that changed hands is not the one reviewed', () => {
    expect(REFUND_RULES_V1.snapshot(facts)).toMatchObject({ tenant_id: 'cedar' });
    expect(REFUND_RULES_V1.snapshot({ ...facts, tenant_id: 'maple' })).not.toEqual(REFUND_RULES_V1.snapshot(facts));
  });

  it('snapshots exactly the facts the decision depends on', () => {
    const withExtra = { ...facts, customer_email: 'someone@example.com', lines: facts.lines.map((line) => ({ ...line, sku: 'x' })) };
    expect(REFUND_RULES_V1.snapshot(withExtra)).toEqual(facts);
  });
});
