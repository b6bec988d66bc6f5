import { isDeepStrictEqual } from 'node:util';
import { createDigester } from '@toolseal/digests';
import { checkError } from '@toolseal/errors';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProposalDecision } from './proposal-decision.js';
import { createRefundProposalValidator, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import { cedar, createCedarOrders } from './__fixtures__/cedar-orders.js';

const digester = createDigester();
const baseline = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
const orders = createCedarOrders();
const cedarValidator = createRefundProposalValidator({ orders: orders.source, digester });

function assertWellFormed(decision: ProposalDecision<RefundProposal>): void {
  if (!decision.ok) expect(checkError(decision.error).ok).toBe(true);
  expect(decision.record.decision).toBe(decision.decision);
}

const shapeValidProposal = fc.record({
  order_id: fc.oneof({ weight: 4, arbitrary: fc.constant('ORDER-C7') }, fc.constant('ORDER-M9'), fc.string({ minLength: 1, maxLength: 64 })),
  amount: fc.oneof({ weight: 3, arbitrary: fc.constant(6000) }, fc.integer({ min: 1, max: 10_000 })),
  unit: fc.constantFrom('CREDIT_A', 'CREDIT_B'),
  lines: fc.array(
    fc.record({
      line_id: fc.oneof({ weight: 4, arbitrary: fc.constant('LINE-1') }, fc.string({ minLength: 1, maxLength: 64 })),
      quantity: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, fc.integer({ min: 1, max: 10 })),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

type Mutation = (value: Record<string, unknown>) => void;
const field = fc.constantFrom('order_id', 'amount', 'unit', 'lines');
const lineField = fc.constantFrom('line_id', 'quantity');
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.tuple(field, fc.jsonValue({ maxDepth: 2 })).map(([key, replacement]): Mutation => (value) => {
    value[key] = replacement;
  }),
  field.map((key): Mutation => (value) => {
    delete value[key];
  }),
  fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })).map(([key, extra]): Mutation => (value) => {
    if (!Object.hasOwn(value, key)) value[key] = extra;
  }),
  fc.tuple(lineField, fc.jsonValue({ maxDepth: 1 })).map(([key, replacement]): Mutation => (value) => {
    const lines = value.lines;
    if (Array.isArray(lines) && typeof lines[0] === 'object' && lines[0] !== null) (lines[0] as Record<string, unknown>)[key] = replacement;
  }),
  fc.integer({ min: -10_000, max: 20_000 }).map((amount): Mutation => (value) => {
    value.amount = amount;
  }),
  fc.integer({ min: -1, max: 12 }).map((quantity): Mutation => (value) => {
    const lines = value.lines;
    if (Array.isArray(lines) && typeof lines[0] === 'object' && lines[0] !== null) (lines[0] as Record<string, unknown>).quantity = quantity;
  }),
  fc.constant<Mutation>((value) => {
    const lines = value.lines;
    if (Array.isArray(lines)) lines.push(structuredClone(lines[0]));
  }),
  fc.constant<Mutation>((value) => {
    // Same content, other key order: still the baseline.
    const entries = Object.entries(value).reverse();
    for (const key of Object.keys(value)) delete value[key];
    for (const [key, item] of entries) value[key] = item;
  }),
);

describe('refund proposals: properties', () => {
  it('a random shape-valid proposal is ready only when it equals the trusted computation', async () => {
    let ready = 0;
    await fc.assert(
      fc.asyncProperty(shapeValidProposal, async (proposal) => {
        const decision = await cedarValidator.validate(cedar.actor, { format: 'json_text', text: JSON.stringify(proposal) });
        assertWellFormed(decision);
        expect(decision.ok).toBe(isDeepStrictEqual(JSON.parse(JSON.stringify(proposal)), baseline));
        if (decision.ok) ready++;
      }),
      { numRuns: 1_500 },
    );
    expect(ready).toBeGreaterThan(0); // the generator does reach the baseline
  });

  it('a random mutation of the baseline is ready only when it still equals the baseline', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.boolean(), async (mutations, asValue) => {
        const value = structuredClone(baseline) as Record<string, unknown>;
        for (const apply of mutations) apply(value);
        const snapshot = structuredClone(value);
        const decision = await cedarValidator.validate(
          cedar.actor,
          asValue ? { format: 'json_value', value } : { format: 'json_text', text: JSON.stringify(value) },
        );
        assertWellFormed(decision);
        expect(decision.ok).toBe(isDeepStrictEqual(snapshot, baseline));
        if (decision.ok) expect(decision.proposal).toEqual(baseline);
      }),
      { numRuns: 2_000 },
    );
  });

  it('random JSON text never throws and is never ready', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), fc.string({ unit: 'binary' })), async (text) => {
        const decision = await cedarValidator.validate(cedar.actor, { format: 'json_text', text });
        assertWellFormed(decision);
        expect(decision.ok).toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });

  // Random orders and proposals near them, against an oracle written from the spec's rules.
  const lineIds = ['L1', 'L2', 'L3', 'L4', 'L5'];
  const randomFacts = fc
    .record({
      unit: fc.constantFrom('CREDIT_A' as const, 'CREDIT_B' as const),
      state: fc.constantFrom('eligible', 'eligible', 'ineligible'),
      lines: fc.uniqueArray(
        fc.record({ line_id: fc.constantFrom(...lineIds), eligible_quantity: fc.integer({ min: 0, max: 3 }), unit_amount: fc.integer({ min: 1, max: 2_500 }) }),
        { minLength: 1, maxLength: 4, selector: (line) => line.line_id },
      ),
      remaining: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: undefined }),
      // Mostly the actor's tenant; sometimes another's, as a lookup without its tenant filter returns.
      tenant: fc.constantFrom('cedar', 'cedar', 'cedar', 'maple'),
    })
    .map(({ unit, state, lines, remaining, tenant }): RefundOrderFacts => ({
      tenant_id: tenant,
      order_id: 'ORDER-R1',
      unit,
      state,
      revision: 'r1',
      remaining_eligible_amount: remaining ?? lines.reduce((sum, line) => sum + line.eligible_quantity * line.unit_amount, 0),
      lines,
    }));

  const proposalFor = (facts: RefundOrderFacts) =>
    fc
      .record({
        picks: fc.array(fc.record({ line_id: fc.constantFrom(...lineIds, 'L9'), exact: fc.boolean(), quantity: fc.integer({ min: 1, max: 4 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        exactAmount: fc.boolean(),
        amount: fc.integer({ min: 1, max: 10_000 }),
        sameUnit: fc.boolean(),
      })
      .map(({ picks, exactAmount, amount, sameUnit }): RefundProposal => {
        const lines = picks.map((pick) => {
          const trusted = facts.lines.find((line) => line.line_id === pick.line_id);
          const quantity = pick.exact && trusted !== undefined && trusted.eligible_quantity > 0 ? trusted.eligible_quantity : pick.quantity;
          return { line_id: pick.line_id, quantity };
        });
        const total = lines.reduce((sum, line) => sum + line.quantity * (facts.lines.find((trusted) => trusted.line_id === line.line_id)?.unit_amount ?? 0), 0);
        return {
          order_id: 'ORDER-R1',
          amount: exactAmount ? total : amount,
          unit: sameUnit ? facts.unit : facts.unit === 'CREDIT_A' ? 'CREDIT_B' : 'CREDIT_A',
          lines,
        };
      });

  function oracleReady(proposal: RefundProposal, facts: RefundOrderFacts): boolean {
    if (facts.tenant_id !== cedar.actor.tenant_id) return false; // another tenant's order: NOT_FOUND
    if (facts.state !== 'eligible' || proposal.unit !== facts.unit) return false;
    if (proposal.amount < 1 || proposal.amount > 10_000) return false; // the contract's structural bound
    const ids = proposal.lines.map((line) => line.line_id);
    if (new Set(ids).size !== ids.length) return false;
    let total = 0;
    for (const line of proposal.lines) {
      const trusted = facts.lines.find((candidate) => candidate.line_id === line.line_id);
      if (trusted === undefined || trusted.eligible_quantity === 0 || line.quantity !== trusted.eligible_quantity) return false;
      total += line.quantity * trusted.unit_amount;
    }
    return proposal.amount === total && proposal.amount <= facts.remaining_eligible_amount;
  }

  it('any order: ready exactly when the oracle says the proposal equals the trusted computation', async () => {
    let ready = 0;
    await fc.assert(
      fc.asyncProperty(
        randomFacts.chain((facts) => fc.tuple(fc.constant(facts), proposalFor(facts))),
        async ([facts, proposal]) => {
          const validator = createRefundProposalValidator({ orders: { loadOrder: () => ({ status: 'found', facts }) }, digester });
          const decision = await validator.validate(cedar.actor, { format: 'json_value', value: proposal });
          assertWellFormed(decision);
          expect(decision.ok).toBe(oracleReady(proposal, facts));
          if (decision.ok) ready++;
          else expect(['rejected_rule', 'refresh_required', 'rejected_shape', 'rejected_access']).toContain(decision.decision);
          // Another tenant's order is never judged: a well-shaped proposal for it is NOT_FOUND, nothing else.
          if (decision.decision !== 'rejected_shape') expect(decision.decision === 'rejected_access').toBe(facts.tenant_id !== cedar.actor.tenant_id);
        },
      ),
      { numRuns: 2_000 },
    );
    expect(ready).toBeGreaterThan(0);
  });
});
