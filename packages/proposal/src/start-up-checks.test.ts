import { createDigester } from '@toolseal/digests';
import { describe, expect, it, vi } from 'vitest';
import { createProposalValidator, type ProposalValidatorOptions } from './create-proposal-validator.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { createRefundProposalValidator, REFUND_RULES_V1, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import { cedar } from './__fixtures__/cedar-orders.js';
import { expectHold, settle } from './__fixtures__/outcomes.js';

// Review: a broken configuration was accepted at start-up, then every call threw a raw error or
// every proposal was held as FACTS_UNAVAILABLE (a config bug disguised as an outage). Each case
// must now throw a TypeError naming the option, before any proposal.

const digester = createDigester({ key: new Uint8Array(32).fill(5) });
const baseline = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
const text = (value: unknown) => ({ format: 'json_text' as const, text: JSON.stringify(value) });
const found = () => ({ status: 'found' as const, facts: structuredClone(cedar.orders[0]?.facts as RefundOrderFacts) });

type Options = ProposalValidatorOptions<RefundProposal, RefundOrderFacts>;
const valid = (): Options => ({
  contractId: REFUND_PROPOSAL_CONTRACT_ID,
  schema: REFUND_PROPOSAL_SCHEMA,
  facts: { lookup: () => found() },
  rules: REFUND_RULES_V1,
  digester,
});

/** The TypeError `build` throws; fails the test when it throws nothing or anything else. */
function startUpError(build: () => unknown): TypeError {
  let thrown: unknown;
  try {
    build();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(TypeError);
  return thrown as TypeError;
}

describe('createProposalValidator: every option is checked at start-up', () => {
  it('refuses options that are not an object, naming the factory and the options it takes', () => {
    for (const options of [undefined, null, 'options', [valid()]]) {
      const error = startUpError(() => createProposalValidator(options as unknown as Options));
      expect(error.message).toMatch(/^createProposalValidator needs an options object \(\{ contractId, schema, facts, rules, digester, /);
    }
  });

  it('refuses an unknown option key, naming it and the known ones', () => {
    const error = startUpError(() => createProposalValidator({ ...valid(), factsTimeout: 100 } as Options));
    expect(error.message).toBe(
      'createProposalValidator: unknown option "factsTimeout" (known: contractId, schema, facts, rules, digester, limits, clock, factsTimeoutMs, factsLimits)',
    );
  });

  const broken: [string, Partial<Record<keyof Options, unknown>>, RegExp][] = [
    ['rules left out', { rules: undefined }, /^rules must be a ProposalRuleSet object .*, not undefined$/],
    ['rules: null', { rules: null }, /^rules must be a ProposalRuleSet object .*, not null$/],
    ['a rule set without check', { rules: { ...REFUND_RULES_V1, check: undefined } }, /^rules\.check must be a function/],
    ['a rule set without describes', { rules: { ...REFUND_RULES_V1, describes: 'yes' } }, /^rules\.describes must be a function .*not a string$/],
    ['a rule set without statePermits', { rules: { ...REFUND_RULES_V1, statePermits: undefined } }, /^rules\.statePermits must be a function/],
    ['a rule set without snapshot', { rules: { ...REFUND_RULES_V1, snapshot: {} } }, /^rules\.snapshot must be a function/],
    // Review: ownership was only ever checked by the lookup. A rule set written before owns (every
    // other function present) must stop the host at start-up, not hold every proposal later.
    ['a rule set without owns', { rules: { ...REFUND_RULES_V1, owns: undefined } }, /^rules\.owns must be a function \(rules must be a ProposalRuleSet object \(\{ version, owns, describes, statePermits, check, snapshot \}\)\), not undefined$/],
    ['a rule set whose owns is no function', { rules: { ...REFUND_RULES_V1, owns: true } }, /^rules\.owns must be a function .*not a boolean$/],
    ['facts left out', { facts: undefined }, /^facts must be a TrustedFacts object \(\{ lookup \}\), not undefined$/],
    ['facts: {}', { facts: {} }, /^facts\.lookup must be a function/],
    ['digester left out', { digester: undefined }, /^digester must be a Digester \(createDigester of @toolseal\/digests\), not undefined$/],
    ['a digester without principalRef', { digester: { digestTagged: digester.digestTagged } }, /^digester\.principalRef must be a function/],
    ['a digester without digestTagged', { digester: { principalRef: digester.principalRef } }, /^digester\.digestTagged must be a function/],
    ['clock: {}', { clock: {} }, /^clock must be a function returning a Date, or left out/],
    ['clock: a date', { clock: new Date(0) }, /^clock must be a function/],
    ['schema left out', { schema: undefined }, /^schema must be a JSON Schema 2020-12 object$/],
  ];
  it.each(broken)('refuses %s with a TypeError naming the option', (_label, change, message) => {
    expect(startUpError(() => createProposalValidator({ ...valid(), ...change } as Options)).message).toMatch(message);
  });

  it('accepts a clock left out or undefined, and then uses the system clock', async () => {
    const before = Date.now();
    const validator = createProposalValidator({ ...valid(), clock: undefined } as unknown as Options);
    const decision = await validator.validate(cedar.actor, text(baseline));
    expect(decision.decision).toBe('ready_for_review');
    expect(Date.parse(decision.record.decided_at)).toBeGreaterThanOrEqual(before - 1);
  });
});

describe('createRefundProposalValidator: its options are checked at start-up too', () => {
  it('refuses options left out or not an object, naming the factory', () => {
    for (const options of [undefined, null, 7]) {
      const error = startUpError(() => createRefundProposalValidator(options as never));
      expect(error.message).toMatch(/^createRefundProposalValidator needs an options object \(\{ orders, digester, limits, clock, factsTimeoutMs, factsLimits \}\)/);
    }
  });

  it('refuses an order store without loadOrder, and a digester left out, before any order is read', () => {
    expect(startUpError(() => createRefundProposalValidator({ digester } as never)).message).toMatch(/^orders must be a RefundOrderSource object .*not undefined$/);
    expect(startUpError(() => createRefundProposalValidator({ orders: {}, digester } as never)).message).toMatch(/^orders\.loadOrder must be a function/);
    const loadOrder = vi.fn(() => found());
    expect(startUpError(() => createRefundProposalValidator({ orders: { loadOrder } } as never)).message).toMatch(/^digester must be a Digester/);
    expect(loadOrder).not.toHaveBeenCalled();
  });

  it('refuses an unknown option key (a misspelt factsTimeoutMs would leave the lookup unbounded)', () => {
    const error = startUpError(() => createRefundProposalValidator({ orders: { loadOrder: () => found() }, digester, factsTimeout: 50 } as never));
    expect(error.message).toMatch(/^createRefundProposalValidator: unknown option "factsTimeout"/);
  });

  it('still builds a working validator from valid options', async () => {
    const validator = createRefundProposalValidator({ orders: { loadOrder: () => found() }, digester, clock: () => new Date('2026-07-19T00:00:00Z') });
    expect((await validator.validate(cedar.actor, text(baseline))).decision).toBe('ready_for_review');
  });
});

// Review 6: `factsTimeoutMs` of 2^31 or more passed start-up, and Node fires such a timer after
// 1 ms (TimeoutOverflowWarning): every lookup then failed, so every proposal was FACTS_UNAVAILABLE.
describe('factsTimeoutMs: at most the longest timer Node keeps', () => {
  const slowLookup = () => new Promise<ReturnType<typeof found>>((resolve) => setTimeout(() => resolve(found()), 20));

  it('refuses values above 2,147,483,647 at start-up, in both factories', () => {
    for (const factsTimeoutMs of [2 ** 31, 3_000_000_000, Number.MAX_SAFE_INTEGER]) {
      expect(startUpError(() => createProposalValidator({ ...valid(), factsTimeoutMs })).message, String(factsTimeoutMs)).toBe(
        'factsTimeoutMs must be a positive integer of at most 2147483647 (the longest timer Node keeps)',
      );
      expect(startUpError(() => createRefundProposalValidator({ orders: { loadOrder: () => found() }, digester, factsTimeoutMs })).message).toMatch(
        /^factsTimeoutMs must be a positive integer of at most 2147483647/,
      );
    }
  });

  it('accepts 2,147,483,647, which waits for a lookup of 20 ms', async () => {
    const validator = createProposalValidator({ ...valid(), facts: { lookup: slowLookup }, factsTimeoutMs: 2 ** 31 - 1 });
    expect((await validator.validate(cedar.actor, text(baseline))).decision).toBe('ready_for_review');
  });
});

// Review 6: `clock` was only checked to be a function. `Date.now` (a number) or `() => new
// Date(NaN)` made every validate reject with a raw TypeError / RangeError (the README says validate
// never throws on any proposal), and a year past 9999 stamped `+010000-…` as `decided_at`.
describe('clock: read once at start-up, and a later failed reading holds instead of throwing', () => {
  const refused: [string, unknown][] = [
    ['Date.now (a number)', Date.now],
    ['an invalid Date', () => new Date(Number.NaN)],
    ['a year past 9999', () => new Date(Date.UTC(10_000, 0, 1))],
    ['a year before 0000', () => new Date(Date.parse('0000-01-01T00:00:00.000Z') - 1)],
    ['a clock that throws', () => {
      throw new Error('no time source');
    }],
    ['a Date look-alike', () => ({ toISOString: () => '2026-07-19T00:00:00.000Z', getTime: () => 0 })],
    ['a string', () => '2026-07-19T00:00:00.000Z'],
  ];
  it.each(refused)('refuses %s at start-up, with a TypeError naming the clock', (_label, clock) => {
    expect(startUpError(() => createProposalValidator({ ...valid(), clock } as Options)).message).toBe(
      'clock must return a valid Date of a year from 0000 to 9999 (its reading at start-up did not)',
    );
    expect(startUpError(() => createRefundProposalValidator({ orders: { loadOrder: () => found() }, digester, clock } as never)).message).toMatch(/^clock must return a valid Date/);
  });

  it('accepts the first and last instants of years 0000 and 9999, stamped as four-digit years', async () => {
    for (const instant of ['0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
      const validator = createProposalValidator({ ...valid(), clock: () => new Date(instant) });
      expect((await validator.validate(cedar.actor, text(baseline))).record.decided_at).toBe(instant);
    }
  });

  it('a clock that fails after start-up: validate, recheck and recheckCurrent hold (never throw), recorded at the last good reading', async () => {
    let reading: () => unknown = () => new Date('2026-07-19T00:00:00Z');
    const validator = createProposalValidator({ ...valid(), clock: () => reading() as Date });
    const ready = await validator.validate(cedar.actor, text(baseline));
    if (!ready.ok) throw new Error('baseline must be ready');
    reading = () => new Date('2026-07-19T00:00:05Z');
    expect(validator.recheck(ready, found(), cedar.actor).record.decided_at).toBe('2026-07-19T00:00:05.000Z');
    const broken: [string, () => unknown][] = [
      ['a number', () => Date.now()],
      ['an invalid Date', () => new Date(Number.NaN)],
      ['a year past 9999', () => new Date(Date.UTC(10_000, 0, 1))],
      ['a throw', () => {
        throw new Error('no time source');
      }],
    ];
    for (const [label, next] of broken) {
      reading = next;
      for (const [which, outcome] of [
        ['validate, ready', await settle(() => validator.validate(cedar.actor, text(baseline)))],
        ['validate, refused shape', await settle(() => validator.validate(cedar.actor, text({ approved: true })))],
        ['recheck', await settle(() => validator.recheck(ready, found(), cedar.actor))],
        ['recheckCurrent', await settle(() => validator.recheckCurrent(cedar.actor, ready))],
      ] as const) {
        expectHold(outcome, `${label}: ${which}`);
        if ('value' in outcome) expect(outcome.value.record.decided_at, `${label}: ${which}`).toBe('2026-07-19T00:00:05.000Z');
      }
    }
    // Once the clock reads again, decisions are what they were.
    reading = () => new Date('2026-07-19T00:00:09Z');
    const again = await validator.validate(cedar.actor, text(baseline));
    expect(again.decision).toBe('ready_for_review');
    expect(again.record.decided_at).toBe('2026-07-19T00:00:09.000Z');
  });
});
