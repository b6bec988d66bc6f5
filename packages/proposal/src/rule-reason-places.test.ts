// Review 2, F5 (script p5-rule-index.mjs): with the refund contract (`lines` at most 4 items) and a
// one-line proposal, a rule set answering `/lines/908172/quantity` gave `rejected_rule` with that
// field in the error the model sees: the declared template `/lines/*/quantity` matches any index of
// up to six digits, so a rule set could choose digits for the model to read. Only the dispatcher
// closed this (it holds such a reason, as `sealResult` of @toolseal/result refuses it). A rule
// reason must now name a place the proposal holds, by result's own rule (`namesHeldPlace`), or the
// rule set is broken and the proposal is held, as for a field the contract does not declare.
import type { ErrorReason, JsonValue, PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { createProposalValidator } from './create-proposal-validator.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { REFUND_RULES_V1, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import { holdsPlace as namesHeldPlace } from '@toolseal/guard';
import { expectHold, settle } from './__fixtures__/outcomes.js';
import { cedar } from './__fixtures__/cedar-orders.js';

const digester = createDigester({ key: new Uint8Array(32).fill(1) });
const clock = () => new Date('2026-07-19T00:00:00Z');
const text = (value: unknown) => ({ format: 'json_text' as const, text: JSON.stringify(value) });

describe('rule reasons name places the proposal holds (review 2, F5)', () => {
  // The review's set-up: facts and proposal of one line, the refund contract and rules, and a
  // `check` that answers what the test says (ready while it answers nothing).
  const facts: RefundOrderFacts = {
    tenant_id: 't',
    order_id: 'O',
    unit: 'CREDIT_A',
    state: 'eligible',
    revision: 'r',
    remaining_eligible_amount: 1,
    lines: [{ line_id: 'L', eligible_quantity: 1, unit_amount: 1 }],
  };
  const actor = { tenant_id: 't', subject_id: 's', roles: [] };
  const oneLine = { order_id: 'O', amount: 1, unit: 'CREDIT_A', lines: [{ line_id: 'L', quantity: 1 }] };
  const setUp = () => {
    let answer: ErrorReason[] = [];
    const validator = createProposalValidator<RefundProposal, RefundOrderFacts>({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      digester,
      clock,
      facts: { lookup: () => ({ status: 'found', facts: structuredClone(facts) }) },
      rules: { ...REFUND_RULES_V1, check: () => answer },
    });
    return {
      validator,
      answer: (reasons: ErrorReason[]) => {
        answer = reasons;
      },
    };
  };

  it("holds for the review's /lines/908172/quantity, and the digits appear nowhere in the decision", async () => {
    const { validator, answer } = setUp();
    answer([{ field: '/lines/908172/quantity', rule: 'quantity_exceeds_eligible' }]);
    const outcome = await settle(() => validator.validate(actor, text(oneLine)));
    expectHold(outcome, 'validate');
    expect(JSON.stringify('value' in outcome ? outcome.value : null)).not.toContain('908172');
  });

  it('holds for one item past the last, and for a broken reason among held ones; the held item itself is a rule rejection', async () => {
    const { validator, answer } = setUp();
    const twoLines = { ...oneLine, lines: [{ line_id: 'L', quantity: 1 }, { line_id: 'M', quantity: 1 }] };
    answer([{ field: '/lines/2/quantity', rule: 'quantity_exceeds_eligible' }]);
    expectHold(await settle(() => validator.validate(actor, text(twoLines))), 'one past the last of two lines');
    answer([{ field: '/lines/1/quantity', rule: 'quantity_exceeds_eligible' }]);
    expectHold(await settle(() => validator.validate(actor, text(oneLine))), 'one past the last of one line');
    answer([
      { field: '/amount', rule: 'amount_mismatch' },
      { field: '/lines/3', rule: 'line_not_eligible' },
    ]);
    expectHold(await settle(() => validator.validate(actor, text(oneLine))), 'a broken reason after a held one');
    // The held places pass, exactly as answered.
    const held: ErrorReason[] = [
      { field: '/lines/1/quantity', rule: 'quantity_exceeds_eligible' },
      { field: '/lines/0', rule: 'line_not_eligible' },
      { field: '/lines', rule: 'duplicate_line_id' },
      { field: '', rule: 'amount_mismatch' },
    ];
    answer(held);
    const decision = await validator.validate(actor, text(twoLines));
    expect(decision.decision).toBe('rejected_rule');
    expect(decision.ok ? null : decision.error).toEqual(makeError('RULE_REJECTED', { reasons: held }));
    expect(decision.record.reasons).toEqual(held);
  });

  it('holds at recheck and recheckCurrent too, where a rule rejection would otherwise be STATE_CHANGED', async () => {
    const { validator, answer } = setUp();
    const decision = await validator.validate(actor, text(oneLine));
    if (!decision.ok) throw new Error('the baseline must be ready');
    answer([{ field: '/lines/908172/quantity', rule: 'quantity_exceeds_eligible' }]);
    expectHold(await settle(() => validator.recheck(decision, { status: 'found', facts: structuredClone(facts) })), 'recheck');
    expectHold(await settle(() => validator.recheckCurrent(actor, decision)), 'recheckCurrent');
    // A held place is a rule rejection, which at recheck means the state changed.
    answer([{ field: '/lines/0/quantity', rule: 'quantity_exceeds_eligible' }]);
    expect(validator.recheck(decision, { status: 'found', facts: structuredClone(facts) }).decision).toBe('refresh_required');
  });

  it('the refund rules themselves only name held places (every line they judge is one the proposal has)', async () => {
    const validator = createProposalValidator<RefundProposal, RefundOrderFacts>({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      digester,
      clock,
      facts: { lookup: () => ({ status: 'found', facts: structuredClone(cedar.orders[0]?.facts as RefundOrderFacts) }) },
      rules: REFUND_RULES_V1,
    });
    const over = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 2 }, { line_id: 'LINE-1', quantity: 1 }] };
    const decision = await validator.validate(cedar.actor, text(over));
    expect(decision.decision).toBe('rejected_rule');
    if (decision.ok) return;
    expect(decision.error.reasons?.length).toBeGreaterThan(0);
    for (const reason of decision.error.reasons ?? []) expect(namesHeldPlace(over, reason.field), reason.field).toBe(true);
  });
});

describe("the place rule is @toolseal/result's namesHeldPlace", () => {
  // A contract with an optional object (`shipping`) and an item list whose items may be a number
  // or an object, so that each branch of the rule can be reached through the validator.
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['order_id', 'items'],
    properties: {
      order_id: { type: 'string', maxLength: 64 },
      note: { type: 'string', maxLength: 64 },
      shipping: {
        type: 'object',
        additionalProperties: false,
        properties: { city: { type: 'string', maxLength: 64 }, zip: { type: 'string', maxLength: 16 } },
      },
      items: {
        type: 'array',
        maxItems: 4,
        items: {
          anyOf: [
            { type: 'integer', minimum: 1 },
            { type: 'object', additionalProperties: false, required: ['sku'], properties: { sku: { type: 'string', maxLength: 16 } } },
          ],
        },
      },
    },
  };
  const decide = async (proposal: JsonValue, field: string) => {
    const validator = createProposalValidator<unknown, unknown>({
      contractId: 'places.v1',
      schema,
      digester,
      clock,
      facts: { lookup: () => ({ status: 'found', facts: { tenant_id: 'cedar' } }) },
      rules: { version: 'v1', owns: (actor: PrincipalContext) => actor.tenant_id === 'cedar', describes: () => true, statePermits: () => true, snapshot: () => 'facts', check: () => [{ field, rule: 'rule_violation' }] },
    });
    return (await validator.validate(cedar.actor, text(proposal))).decision;
  };
  const withShipping = { order_id: 'O', shipping: { city: 'Oslo' }, items: [5, { sku: 'A' }] };
  const without = { order_id: 'O', items: [5] };

  // [label, proposal, field, held]
  const cases: [string, JsonValue, string, boolean][] = [
    ['the whole proposal', without, '', true],
    ['a present member', withShipping, '/shipping/city', true],
    ['an optional member left out, as the last segment', without, '/note', true],
    ['a member its present parent leaves out, as the last segment', withShipping, '/shipping/zip', true],
    ['below a member left out', without, '/shipping/city', false],
    ['a held item', withShipping, '/items/1', true],
    ['a member of a held item', withShipping, '/items/1/sku', true],
    ['an item past the end', withShipping, '/items/2', false],
    ['below an item past the end', without, '/items/1/sku', false],
    ['six digits past the end', without, '/items/900100/sku', false],
    ['below a number', withShipping, '/items/0/sku', false],
  ];

  it('the validator keeps a reason exactly when its field names a held place', async () => {
    for (const [label, proposal, field, held] of cases) {
      expect(namesHeldPlace(proposal, field), label).toBe(held);
      expect(await decide(proposal, field), label).toBe(held ? 'rejected_rule' : 'hold');
    }
  });

  it('an index the declared template accepts is still checked against the items held (leading zeros never match)', () => {
    expect(namesHeldPlace({ items: [1] }, '/items/0')).toBe(true);
    expect(namesHeldPlace({ items: [1] }, '/items/00')).toBe(false);
    expect(namesHeldPlace({ items: [1] }, '/items/-0')).toBe(false);
    expect(namesHeldPlace('text', '/0')).toBe(false);
    expect(namesHeldPlace(null, '')).toBe(true);
  });
});
