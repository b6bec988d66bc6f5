import { createDigester } from '@toolseal/digests';
import type { ErrorReason } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { createProposalValidator, type ProposalValidatorOptions } from './create-proposal-validator.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { createRefundProposalValidator, REFUND_RULES_V1, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import { cedar } from './__fixtures__/cedar-orders.js';

// Review 4 §7: `clock` and `schema` were read several times (checked, then read again to be used),
// so a getter or Proxy option could pass the start-up check as one value and be used as another
// (a clock that is a string on the third read threw a raw TypeError on every validate).
// Each option must be read exactly once, and that value is the one checked and used.

const digester = createDigester({ key: new Uint8Array(32).fill(5) });
const baseline = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
const text = (value: unknown) => ({ format: 'json_text' as const, text: JSON.stringify(value) });
const found = () => ({ status: 'found' as const, facts: structuredClone(cedar.orders[0]?.facts as RefundOrderFacts) });
const FIXED = new Date('2026-07-19T00:00:00Z');

type Options = ProposalValidatorOptions<RefundProposal, RefundOrderFacts>;

/** `target` behind a Proxy that counts the reads (`get`) of each key. */
function counted<T extends object>(target: T): { proxy: T; reads: Map<PropertyKey, number> } {
  const reads = new Map<PropertyKey, number>();
  const proxy = new Proxy(target, {
    get(object, key, receiver) {
      reads.set(key, (reads.get(key) ?? 0) + 1);
      return Reflect.get(object, key, receiver) as unknown;
    },
  });
  return { proxy, reads };
}

describe('createProposalValidator reads each option once', () => {
  it('reads every option of a Proxy at most once', () => {
    const { proxy, reads } = counted<Options>({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      facts: { lookup: () => found() },
      rules: REFUND_RULES_V1,
      digester,
      clock: () => FIXED,
      limits: {},
      factsLimits: {},
      factsTimeoutMs: 1_000,
    });
    createProposalValidator(proxy);
    expect([...reads].filter(([, count]) => count > 1)).toEqual([]);
    expect(reads.get('clock')).toBe(1);
    expect(reads.get('schema')).toBe(1);
  });

  it('uses the clock it checked: a getter whose later answer is not a function cannot break validate', async () => {
    let clockReads = 0;
    const options = {
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      facts: { lookup: () => found() },
      rules: REFUND_RULES_V1,
      digester,
      get clock(): unknown {
        clockReads += 1;
        return clockReads === 1 ? () => FIXED : 'not a function';
      },
    } as unknown as Options;
    const validator = createProposalValidator(options);
    const decision = await validator.validate(cedar.actor, text(baseline));
    expect(decision.decision).toBe('ready_for_review');
    expect(decision.record.decided_at).toBe(FIXED.toISOString());
    expect(clockReads).toBe(1);
  });

  it('compiles the schema it checked: a getter cannot pass the closedness proof with one schema and compile another', async () => {
    let schemaReads = 0;
    const open = { type: 'object' };
    const options = {
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      facts: { lookup: () => found() },
      rules: REFUND_RULES_V1,
      digester,
      get schema(): unknown {
        schemaReads += 1;
        return schemaReads === 1 ? REFUND_PROPOSAL_SCHEMA : open;
      },
    } as unknown as Options;
    const validator = createProposalValidator(options);
    expect(schemaReads).toBe(1);
    // The closed contract is the one compiled: a key it does not declare is still refused.
    const decision = await validator.validate(cedar.actor, text({ ...baseline, approved: true }));
    expect(decision.decision).toBe('rejected_shape');
  });

  it('reads rules.version once', () => {
    const { proxy, reads } = counted({ ...REFUND_RULES_V1 });
    const validator = createProposalValidator({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      facts: { lookup: () => found() },
      rules: proxy,
      digester,
    });
    expect(reads.get('version')).toBe(1);
    expect(validator.ruleVersion).toBe(REFUND_RULES_V1.version);
  });
});

describe('createRefundProposalValidator reads each option once', () => {
  it('reads every option of a Proxy at most once', () => {
    const { proxy, reads } = counted({
      orders: { loadOrder: () => found() },
      digester,
      clock: () => FIXED,
      limits: {},
      factsLimits: {},
      factsTimeoutMs: 1_000,
    });
    createRefundProposalValidator(proxy);
    expect([...reads].filter(([, count]) => count > 1)).toEqual([]);
    expect(reads.get('clock')).toBe(1);
  });

  it('passes on the clock it read: a getter whose later answer is not a function cannot break validate', async () => {
    let clockReads = 0;
    const validator = createRefundProposalValidator({
      orders: { loadOrder: () => found() },
      digester,
      get clock(): () => Date {
        clockReads += 1;
        return (clockReads === 1 ? () => FIXED : 'not a function') as () => Date;
      },
    });
    const decision = await validator.validate(cedar.actor, text(baseline));
    expect(decision.record.decided_at).toBe(FIXED.toISOString());
    expect(clockReads).toBe(1);
  });
});

describe('createProposalValidator keeps the rule set and facts source it checked (the review: they were looked up on every call)', () => {
  it('a function swapped on the host rule set or facts object after start-up changes no decision under the same rules.version', async () => {
    const rules = { ...REFUND_RULES_V1, check: (): ErrorReason[] => [{ field: '/unit', rule: 'unit_mismatch' }] };
    const facts = { lookup: () => found() };
    const validator = createProposalValidator<RefundProposal, RefundOrderFacts>({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      facts,
      rules,
      digester,
      clock: () => FIXED,
    });
    expect((await validator.validate(cedar.actor, text(baseline))).decision).toBe('rejected_rule');
    // The host's objects edited afterwards: the check passes everything, the facts say nothing.
    rules.check = () => [];
    facts.lookup = () => ({ status: 'not_found' }) as never;
    const after = await validator.validate(cedar.actor, text(baseline));
    expect(after.decision).toBe('rejected_rule');
    expect(after.record.rule_version).toBe(REFUND_RULES_V1.version);
  });
});

describe('createRefundProposalValidator keeps the order source it checked (the fresh review)', () => {
  it('a loadOrder swapped on the host object after start-up is not called', async () => {
    const orders = { loadOrder: () => found() };
    const validator = createRefundProposalValidator({ orders, digester, clock: () => FIXED });
    expect((await validator.validate(cedar.actor, text(baseline))).decision).toBe('ready_for_review');
    let swappedCalls = 0;
    orders.loadOrder = () => {
      swappedCalls += 1;
      return { status: 'not_found' } as never;
    };
    expect((await validator.validate(cedar.actor, text(baseline))).decision).toBe('ready_for_review');
    expect(swappedCalls).toBe(0);
  });
});
