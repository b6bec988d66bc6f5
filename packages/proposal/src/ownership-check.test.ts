// Review (Medium): resource ownership was only ever checked by the host's facts lookup. A lookup
// that forgot its tenant filter (`WHERE order_id = ?`) made tenant Maple's ORDER-M9
// `ready_for_review` for a Cedar actor, and its RULE_REJECTED reasons let the model probe Maple's
// amounts. Spec 002: "independently check the authenticated actor, resource ownership, current
// state, and business invariants"; ORDER-M9: "Reject without revealing that order". The rule set's
// `owns` now judges the facts found against the actor: `false` is the lookup's `not_available`, byte
// for byte, and no later rule reads the order.
import type { PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it, vi } from 'vitest';
import { createProposalValidator, DEFAULT_FACTS_TIMEOUT_MS } from './create-proposal-validator.js';
import type { ProposalDecision, ReadyForReview, RecheckOutcome } from './proposal-decision.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { createRefundProposalValidator, REFUND_RULES_V1, type RefundOrderFacts, type RefundOrderSource, type RefundProposal } from './refund-rules.js';
import type { FactsLookup } from './trusted-facts.js';
import { expectHold, settle } from './__fixtures__/outcomes.js';
import { cedar, createCedarOrders } from './__fixtures__/cedar-orders.js';

const digester = createDigester({ key: new Uint8Array(32).fill(9) });
const clock = () => new Date('2026-07-19T00:00:00Z');
const value = (proposal: unknown) => ({ format: 'json_value' as const, value: proposal });
type Rules = ProposalRuleSet<RefundProposal, RefundOrderFacts>;

const baseline = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };
// Maple's ORDER-M9: LINE-1, 3 × 3000, remaining 9000. This proposal matches its facts exactly, so
// judged by the rules it would be ready_for_review.
const m9Ready = { order_id: 'ORDER-M9', amount: 9000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 3 }] };
// The probes: each, judged by the rules, would be RULE_REJECTED with a reason about Maple's order.
const m9Probes = [
  { ...m9Ready, amount: 1000 }, // partial_amount_not_allowed: the lines are worth more
  { ...m9Ready, amount: 9001 }, // amount_mismatch: above the remaining amount
  { ...m9Ready, lines: [{ line_id: 'LINE-1', quantity: 4 }] }, // quantity_exceeds_eligible: tells the eligible quantity
  { ...m9Ready, unit: 'CREDIT_B' }, // unit_mismatch: tells the order's unit
  { ...m9Ready, lines: [{ line_id: 'LINE-2', quantity: 1 }] }, // line_not_eligible: tells the line ids
];

const m9 = cedar.orders.find((entry) => entry.facts.order_id === 'ORDER-M9');
const c7 = cedar.orders.find((entry) => entry.facts.order_id === 'ORDER-C7');
const factsOf = (entry: typeof m9): RefundOrderFacts => structuredClone(entry?.facts as RefundOrderFacts);

/** The review's host bug: the order store is read by order id alone, the tenant filter forgotten. */
function unscopedOrders(): RefundOrderSource & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    loadOrder(_actor, orderId): FactsLookup<RefundOrderFacts> {
      calls.push(orderId);
      const entry = cedar.orders.find((candidate) => candidate.facts.order_id === orderId);
      return entry === undefined ? { status: 'not_available' } : { status: 'found', facts: structuredClone(entry.facts) };
    },
  };
}

/** The rule set with every function watched, so a test can see which ones read the facts. */
function watchedRules(owns: (actor: PrincipalContext, facts: RefundOrderFacts) => unknown = REFUND_RULES_V1.owns) {
  return {
    version: REFUND_RULES_V1.version,
    owns: vi.fn(owns),
    describes: vi.fn(REFUND_RULES_V1.describes),
    statePermits: vi.fn(REFUND_RULES_V1.statePermits),
    check: vi.fn(REFUND_RULES_V1.check),
    snapshot: vi.fn(REFUND_RULES_V1.snapshot),
  };
}

function validatorOver(lookup: (actor: PrincipalContext, proposal: RefundProposal) => FactsLookup<RefundOrderFacts>, rules: Rules = REFUND_RULES_V1) {
  return createProposalValidator<RefundProposal, RefundOrderFacts>({
    contractId: REFUND_PROPOSAL_CONTRACT_ID,
    schema: REFUND_PROPOSAL_SCHEMA,
    facts: { lookup },
    rules,
    digester,
    clock,
  });
}

/** What the model and the record see of a decision: everything, serialized. */
const bytes = (decision: ProposalDecision<unknown> | RecheckOutcome): string => JSON.stringify(decision);

function expectNotFound(decision: ProposalDecision<unknown> | RecheckOutcome, label: string, category = 'access'): void {
  expect(decision.decision, label).toBe('rejected_access');
  expect(decision.ok, label).toBe(false);
  if (!decision.ok) expect(decision.error, label).toEqual(makeError('NOT_FOUND'));
  expect(decision.record.failure_category, label).toBe(category);
  expect(decision.record.facts_sha256, label).toBeNull();
  expect(decision.record.reasons, label).toEqual([]);
}

describe('the fixture names each order\'s owner in its facts', () => {
  it('facts.tenant_id is the tenant whose store row holds the order', () => {
    expect(cedar.orders.length).toBeGreaterThan(1);
    for (const entry of cedar.orders) expect(entry.facts.tenant_id, entry.facts.order_id).toBe(entry.tenant_id);
    expect(m9?.tenant_id).toBe('maple');
    expect(c7?.tenant_id).toBe(cedar.actor.tenant_id);
  });
});

describe('validate: a lookup without its tenant filter still answers another tenant\'s order NOT_FOUND', () => {
  it('a proposal the rules would find ready: the same bytes as not_available, decision and record alike', async () => {
    const unscoped = createRefundProposalValidator({ orders: unscopedOrders(), digester, clock });
    const scoped = createRefundProposalValidator({ orders: createCedarOrders().source, digester, clock });
    const leaked = await unscoped.validate(cedar.actor, value(m9Ready));
    const absent = await scoped.validate(cedar.actor, value(m9Ready));
    expectNotFound(leaked, 'unscoped lookup');
    expectNotFound(absent, 'scoped lookup');
    expect(bytes(leaked)).toBe(bytes(absent));
    if (!leaked.ok && !absent.ok) expect(JSON.stringify(leaked.error)).toBe(JSON.stringify(absent.error));
    // And like an order that exists nowhere.
    const nowhere = await unscoped.validate(cedar.actor, value({ ...m9Ready, order_id: 'ORDER-X1' }));
    if (!leaked.ok && !nowhere.ok) expect(JSON.stringify(leaked.error)).toBe(JSON.stringify(nowhere.error));
    // The actor's own order still passes through the same lookup.
    expect((await unscoped.validate(cedar.actor, value(baseline))).decision).toBe('ready_for_review');
  });

  it('the probe: proposals the rules would reject say nothing of the order, each the same bytes as not_available', async () => {
    const unscoped = createRefundProposalValidator({ orders: unscopedOrders(), digester, clock });
    const scoped = createRefundProposalValidator({ orders: createCedarOrders().source, digester, clock });
    for (const probe of m9Probes) {
      const label = JSON.stringify(probe);
      const leaked = await unscoped.validate(cedar.actor, value(probe));
      const absent = await scoped.validate(cedar.actor, value(probe));
      expectNotFound(leaked, label);
      expect(bytes(leaked), label).toBe(bytes(absent));
      if (!leaked.ok && !absent.ok) expect(JSON.stringify(leaked.error), label).toBe(JSON.stringify(absent.error));
    }
  });

  it('no rule after owns reads another tenant\'s facts, and owns judges the validator\'s frozen copies', async () => {
    const rules = watchedRules();
    const validator = validatorOver((_actor, proposal) => {
      const entry = cedar.orders.find((candidate) => candidate.facts.order_id === proposal.order_id);
      return entry === undefined ? { status: 'not_available' } : { status: 'found', facts: structuredClone(entry.facts) };
    }, rules as unknown as Rules);
    for (const proposal of [m9Ready, ...m9Probes]) expectNotFound(await validator.validate(cedar.actor, value(proposal)), JSON.stringify(proposal));
    expect(rules.owns).toHaveBeenCalledTimes(1 + m9Probes.length);
    for (const unused of [rules.describes, rules.statePermits, rules.check, rules.snapshot]) expect(unused).not.toHaveBeenCalled();
    const [actor, facts] = rules.owns.mock.calls[0] ?? [];
    expect(actor).not.toBe(cedar.actor);
    expect(actor).toEqual(cedar.actor);
    expect(Object.isFrozen(actor)).toBe(true);
    expect(facts).toEqual(m9?.facts);
    expect(Object.isFrozen(facts)).toBe(true);
  });

  it('facts without a readable owner are NOT_FOUND too, never judged (a hold would tell that the order exists)', async () => {
    const absent = await validatorOver(() => ({ status: 'not_available' })).validate(cedar.actor, value(baseline));
    const { tenant_id: _owner, ...ownerless } = factsOf(c7);
    const cases: [string, unknown][] = [
      ['no tenant_id', ownerless],
      ['tenant_id null', { ...ownerless, tenant_id: null }],
      ['tenant_id 7', { ...ownerless, tenant_id: 7 }],
      ['tenant_id in other case', { ...ownerless, tenant_id: 'CEDAR' }],
      ['tenant_id as a list', { ...ownerless, tenant_id: ['cedar'] }],
      ['facts null', null],
      ['facts a string', 'cedar'],
    ];
    for (const [label, facts] of cases) {
      const decision = await validatorOver(() => ({ status: 'found', facts: facts as RefundOrderFacts })).validate(cedar.actor, value(baseline));
      expectNotFound(decision, label);
      expect(bytes(decision), label).toBe(bytes(absent));
    }
  });
});

describe('recheck: an order that changed hands since review is NOT_FOUND, never ready', () => {
  async function reviewed() {
    let owner = 'cedar';
    let lookup: 'owner-filter-forgotten' | 'scoped' = 'owner-filter-forgotten';
    const validator = createRefundProposalValidator({
      digester,
      clock,
      orders: {
        loadOrder: (actor, orderId) => {
          if (orderId !== 'ORDER-C7') return { status: 'not_available' };
          if (lookup === 'scoped' && actor.tenant_id !== owner) return { status: 'not_available' };
          return { status: 'found', facts: { ...factsOf(c7), tenant_id: owner } };
        },
      },
    });
    const decision = await validator.validate(cedar.actor, value(baseline));
    if (!decision.ok) throw new Error('baseline must be ready');
    return {
      validator,
      decision,
      moveTo(tenant: string, how: typeof lookup) {
        owner = tenant;
        lookup = how;
      },
    };
  }
  const moved = (): FactsLookup<RefundOrderFacts> => ({ status: 'found', facts: { ...factsOf(c7), tenant_id: 'maple' } });

  it('recheckCurrent: the same bytes as a lookup that answers not_available', async () => {
    const { validator, decision, moveTo } = await reviewed();
    expect((await validator.recheckCurrent(cedar.actor, decision)).decision).toBe('ready_for_review');
    moveTo('maple', 'owner-filter-forgotten');
    const leaked = await validator.recheckCurrent(cedar.actor, decision);
    moveTo('maple', 'scoped');
    const absent = await validator.recheckCurrent(cedar.actor, decision);
    expectNotFound(leaked, 'unscoped');
    expectNotFound(absent, 'scoped');
    expect(bytes(leaked)).toBe(bytes(absent));
    expect(leaked.record.stage).toBe('recheck');
  });

  it('recheck with the actor: the same bytes as not_available', async () => {
    const { validator, decision } = await reviewed();
    const leaked = validator.recheck(decision, moved(), cedar.actor);
    const absent = validator.recheck(decision, { status: 'not_available' }, cedar.actor);
    expectNotFound(leaked, 'moved');
    expect(bytes(leaked)).toBe(bytes(absent));
  });

  it('recheck without an actor cannot ask owns (nobody to ask about): the owner is in the snapshot, so it is STATE_CHANGED', async () => {
    const { validator, decision } = await reviewed();
    const outcome = validator.recheck(decision, moved());
    expect(outcome.decision).toBe('refresh_required');
    if (!outcome.ok) expect(outcome.error).toEqual(makeError('STATE_CHANGED'));
    expect(REFUND_RULES_V1.snapshot({ ...factsOf(c7), tenant_id: 'maple' })).not.toEqual(REFUND_RULES_V1.snapshot(factsOf(c7)));
    // Unchanged facts still pass, and owns is not called without an actor.
    const owns = vi.fn(() => {
      throw new Error('not to be called');
    });
    const watched = validatorOver(() => ({ status: 'found', facts: factsOf(c7) }), { ...REFUND_RULES_V1, owns } as unknown as Rules);
    expect(watched.recheck(decision, { status: 'found', facts: factsOf(c7) }).decision).toBe('ready_for_review');
    expect(owns).not.toHaveBeenCalled();
  });
});

/** NOT_FOUND to the model, as a missing order; the protected record alone says the facts were unreadable. */
function expectNotOwnedUnreadable(decision: ProposalDecision<unknown> | RecheckOutcome, label: string): void {
  expectNotFound(decision, label, 'facts_unavailable');
}

// Review 7: an `owns` that threw on copied facts held (FACTS_UNAVAILABLE) where a missing order is
// NOT_FOUND, so facts of another tenant shaped to make it throw told the model the order existed.
describe('owns fails closed: a throw or anything but a boolean is NOT_FOUND, as a missing order', () => {
  const nonBooleans: [string, () => unknown][] = [
    [
      'a throw',
      () => {
        throw new Error('tenant service down');
      },
    ],
    ['a Promise of true (async owns)', () => Promise.resolve(true)],
    ['a Promise of false', () => Promise.resolve(false)],
    ['a thenable', () => ({ then: (resolve: (answer: boolean) => void) => resolve(true) })],
    ["'yes'", () => 'yes'],
    ["'false'", () => 'false'],
    ['1', () => 1],
    ['0', () => 0],
    ['undefined', () => undefined],
    ['null', () => null],
    ['an object', () => ({})],
  ];

  it('from validate, recheck with an actor and recheckCurrent; no later rule runs', async () => {
    const ready = await validatorOver(() => ({ status: 'found', facts: factsOf(c7) })).validate(cedar.actor, value(baseline));
    if (!ready.ok) throw new Error('baseline must be ready');
    for (const [label, answer] of nonBooleans) {
      const rules = watchedRules(answer);
      const validator = validatorOver(() => ({ status: 'found', facts: factsOf(c7) }), rules as unknown as Rules);
      expectNotOwnedUnreadable(await validator.validate(cedar.actor, value(baseline)), `validate, owns answers ${label}`);
      expectNotOwnedUnreadable(
        validator.recheck(ready as ReadyForReview<RefundProposal>, { status: 'found', facts: factsOf(c7) }, cedar.actor),
        `recheck, owns answers ${label}`,
      );
      expectNotOwnedUnreadable(await validator.recheckCurrent(cedar.actor, ready as ReadyForReview<RefundProposal>), `recheckCurrent, owns answers ${label}`);
      expect(rules.owns, label).toHaveBeenCalledTimes(3);
      for (const unused of [rules.describes, rules.statePermits, rules.check, rules.snapshot]) expect(unused, label).not.toHaveBeenCalled();
    }
  });

  it('answers another tenant\'s order exactly as a missing one (an owns that throws on its row), and leaves no unhandled rejection', async () => {
    const missing = await validatorOver(() => ({ status: 'not_available' })).validate(cedar.actor, value(m9Ready));
    const owns = (actor: { tenant_id: string }, facts: { account: { tenant_id: string } }) => facts.account.tenant_id === actor.tenant_id;
    for (const answer of [owns, () => Promise.reject(new Error('tenant service down')), () => Promise.resolve(false)]) {
      const validator = validatorOver(() => ({ status: 'found', facts: factsOf(m9) }), { ...REFUND_RULES_V1, owns: answer } as unknown as Rules);
      const decision = await validator.validate(cedar.actor, value(m9Ready));
      expectNotOwnedUnreadable(decision, String(answer));
      expect(decision.ok ? null : decision.error).toEqual(missing.ok ? null : missing.error);
    }
    // Vitest fails the run on an unhandled rejection; give any such rejection the chance to surface.
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});

// Review 6 (existence leak): the facts were copied and limit-checked before `owns` ran, and a failed
// copy held. A lookup without its tenant filter returning another tenant's order as an ORM row
// (`closed_at: undefined`, a `Date`), or past `factsLimits`, answered FACTS_UNAVAILABLE where a
// missing order answers NOT_FOUND: the model could tell "exists in another tenant" from "does not
// exist". Facts that cannot be copied are now judged by `owns` as found: only `true` holds.
describe('facts that cannot be copied: another tenant\'s are NOT_FOUND, the actor\'s own hold', () => {
  const m9Row = (extra: Record<string, unknown>) => ({ ...factsOf(m9), ...extra });
  const c7Row = (extra: Record<string, unknown>) => ({ ...factsOf(c7), ...extra });
  const throwingProxy = (target: object) =>
    new Proxy(target, {
      get() {
        throw new Error('row detached');
      },
      ownKeys() {
        throw new Error('row detached');
      },
      getOwnPropertyDescriptor() {
        throw new Error('row detached');
      },
      getPrototypeOf() {
        throw new Error('row detached');
      },
    });
  // Another tenant's order, as a lookup that forgot its tenant filter hands it over.
  const otherTenant: [string, () => unknown][] = [
    ['an ORM row with closed_at: undefined (ORDER-M9)', () => m9Row({ closed_at: undefined })],
    ['an ORM row with a Date column (ORDER-M10)', () => m9Row({ order_id: 'ORDER-M10', created_at: new Date(0) })],
    ['facts past factsLimits', () => m9Row({ note: 'x'.repeat(5_000) })],
    ['a class instance', () => Object.assign(new (class Row {})(), m9Row({}))],
    ['an accessor', () => Object.defineProperty(m9Row({}), 'state', { get: () => 'eligible', enumerable: true })],
    ['a Proxy whose traps throw (owns throws on it)', () => throwingProxy(m9Row({}))],
  ];
  const limited = (lookup: () => FactsLookup<RefundOrderFacts>) =>
    createProposalValidator<RefundProposal, RefundOrderFacts>({
      contractId: REFUND_PROPOSAL_CONTRACT_ID,
      schema: REFUND_PROPOSAL_SCHEMA,
      facts: { lookup },
      rules: REFUND_RULES_V1,
      digester,
      clock,
      factsLimits: { maxBytes: 4_096 },
    });
  /** What the model reads of a decision: the decision and its catalog error. */
  const modelBytes = (decision: ProposalDecision<unknown> | RecheckOutcome) =>
    JSON.stringify({ decision: decision.decision, error: decision.ok ? null : decision.error });

  it('validate: byte for byte the answer for a missing order (ORDER-NOPE), whatever the facts look like', async () => {
    const missing = await limited(() => ({ status: 'not_available' })).validate(cedar.actor, value(m9Ready));
    expectNotFound(missing, 'missing');
    for (const [label, facts] of otherTenant) {
      const decision = await limited(() => ({ status: 'found', facts: facts() as RefundOrderFacts })).validate(cedar.actor, value(m9Ready));
      expect(decision.decision, label).toBe('rejected_access');
      expect(modelBytes(decision), label).toBe(modelBytes(missing));
      expect(decision.record.code, label).toBe('NOT_FOUND');
      expect(decision.record.facts_sha256, label).toBeNull();
      // `owns` answered false: the whole decision, record included, is the missing order's. Only
      // where ownership could not be established (owns threw) does the host's record say why.
      if (label.startsWith('a Proxy')) expect(decision.record.failure_category, label).toBe('facts_unavailable');
      else expect(bytes(decision), label).toBe(bytes(missing));
    }
  });

  it('the reviewer\'s unscoped store: ORDER-M9 and ORDER-M10 answer exactly what ORDER-NOPE does', async () => {
    const store: Record<string, unknown> = {
      'ORDER-C7': factsOf(c7),
      'ORDER-M9': m9Row({ closed_at: undefined }),
      'ORDER-M10': m9Row({ order_id: 'ORDER-M10', created_at: new Date(0) }),
    };
    const validator = createRefundProposalValidator({
      digester,
      clock,
      orders: { loadOrder: (_actor, id) => (id in store ? { status: 'found', facts: store[id] as RefundOrderFacts } : { status: 'not_available' }) },
    });
    const answers = new Map<string, string>();
    for (const id of ['ORDER-NOPE', 'ORDER-M9', 'ORDER-M10']) {
      answers.set(id, modelBytes(await validator.validate(cedar.actor, value({ ...m9Ready, order_id: id }))));
    }
    expect(answers.get('ORDER-NOPE')).toBe(JSON.stringify({ decision: 'rejected_access', error: makeError('NOT_FOUND') }));
    expect(answers.get('ORDER-M9')).toBe(answers.get('ORDER-NOPE'));
    expect(answers.get('ORDER-M10')).toBe(answers.get('ORDER-NOPE'));
  });

  it('an owns that throws or answers no boolean on such facts of another tenant: NOT_FOUND too, never a hold', async () => {
    const missing = await limited(() => ({ status: 'not_available' })).validate(cedar.actor, value(m9Ready));
    const answers: [string, (actor: PrincipalContext, facts: RefundOrderFacts) => unknown][] = [
      [
        'a throw',
        (actor, facts) => {
          if (facts.tenant_id !== actor.tenant_id) throw new Error('cannot read the row of another tenant');
          return true;
        },
      ],
      ['a Promise', () => Promise.resolve(false)],
      ['undefined', () => undefined],
    ];
    for (const [label, owns] of answers) {
      const rules = watchedRules(owns);
      const validator = validatorOver(() => ({ status: 'found', facts: m9Row({ closed_at: undefined }) }), rules as unknown as Rules);
      const decision = await validator.validate(cedar.actor, value(m9Ready));
      expect(modelBytes(decision), label).toBe(modelBytes(missing));
      expect(decision.record.failure_category, label).toBe('facts_unavailable');
      for (const unused of [rules.describes, rules.statePermits, rules.check, rules.snapshot]) expect(unused, label).not.toHaveBeenCalled();
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('the actor\'s own order with facts that cannot be copied still holds (FACTS_UNAVAILABLE), in validate and in a recheck with the actor', async () => {
    const ready = await validatorOver(() => ({ status: 'found', facts: factsOf(c7) })).validate(cedar.actor, value(baseline));
    if (!ready.ok) throw new Error('baseline must be ready');
    for (const [label, facts] of [
      ['closed_at: undefined', () => c7Row({ closed_at: undefined })],
      ['a Date column', () => c7Row({ created_at: new Date(0) })],
      ['past factsLimits', () => c7Row({ note: 'x'.repeat(5_000) })],
    ] as const) {
      const validator = limited(() => ({ status: 'found', facts: facts() as RefundOrderFacts }));
      expectHold(await settle(() => validator.validate(cedar.actor, value(baseline))), `validate: ${label}`, true);
      expectHold(await settle(() => validator.recheck(ready, { status: 'found', facts: facts() as RefundOrderFacts }, cedar.actor)), `recheck: ${label}`, true);
      expectHold(await settle(() => validator.recheckCurrent(cedar.actor, ready)), `recheckCurrent: ${label}`, true);
    }
  });

  it('recheck with the actor and recheckCurrent: another tenant\'s unreadable facts are the same bytes as not_available', async () => {
    const owner = { facts: factsOf(c7) as unknown };
    const validator = validatorOver(() => ({ status: 'found', facts: owner.facts as RefundOrderFacts }));
    const ready = await validator.validate(cedar.actor, value(baseline));
    if (!ready.ok) throw new Error('baseline must be ready');
    const absent = validator.recheck(ready, { status: 'not_available' }, cedar.actor);
    owner.facts = c7Row({ tenant_id: 'maple', closed_at: undefined });
    expect(bytes(validator.recheck(ready, { status: 'found', facts: owner.facts as RefundOrderFacts }, cedar.actor))).toBe(bytes(absent));
    expect(modelBytes(await validator.recheckCurrent(cedar.actor, ready))).toBe(modelBytes(absent));
  });
});

// Rule-author review F1: an `owns` that does not look at the actor (a misspelt owner field compares
// `undefined` with `undefined`; `() => true` trusts the lookup's tenant filter) made another
// tenant's order ready for review, and its amounts probeable, behind a lookup without that filter.
describe('an owns that answers true whatever the actor proves no ownership', () => {
  const careless: Array<[string, (actor: PrincipalContext, facts: RefundOrderFacts) => unknown]> = [
    ['a misspelt owner field', (actor, facts) => (facts as unknown as { tenantId?: string }).tenantId === (actor as unknown as { tenantId?: string }).tenantId],
    ['() => true', () => true],
  ];

  it('another tenant\'s order behind an unfiltered lookup: NOT_FOUND, the same bytes as a missing order, ready or probed', async () => {
    const missing = await validatorOver(() => ({ status: 'not_available' })).validate(cedar.actor, value(m9Ready));
    for (const [label, owns] of careless) {
      const validator = validatorOver(() => ({ status: 'found', facts: factsOf(m9) }), { ...REFUND_RULES_V1, owns } as unknown as Rules);
      for (const proposal of [m9Ready, ...m9Probes]) {
        const decision = await validator.validate(cedar.actor, value(proposal));
        expectNotFound(decision, `${label}: ${JSON.stringify(proposal)}`, 'facts_unavailable');
        expect(decision.ok ? null : decision.error, label).toEqual(missing.ok ? null : missing.error);
      }
    }
  });

  it('the actor\'s own order is not made ready by such an owns either; a correct owns is', async () => {
    for (const [label, owns] of careless) {
      const validator = validatorOver(() => ({ status: 'found', facts: factsOf(c7) }), { ...REFUND_RULES_V1, owns } as unknown as Rules);
      expectNotFound(await validator.validate(cedar.actor, value(baseline)), label, 'facts_unavailable');
    }
    const correct = validatorOver(() => ({ status: 'found', facts: factsOf(c7) }));
    expect((await correct.validate(cedar.actor, value(baseline))).decision).toBe('ready_for_review');
  });
});

// Rule-author review F2: without `factsTimeoutMs` a lookup that never answered hung validate and
// recheckCurrent for ever.
describe('a lookup that never answers holds the proposal after DEFAULT_FACTS_TIMEOUT_MS', () => {
  it('validate and recheckCurrent hold (FACTS_UNAVAILABLE) once 5,000 ms have passed, not before', async () => {
    expect(DEFAULT_FACTS_TIMEOUT_MS).toBe(5_000);
    const ready = await validatorOver(() => ({ status: 'found', facts: factsOf(c7) })).validate(cedar.actor, value(baseline));
    if (ready.decision !== 'ready_for_review') throw new Error('baseline not ready');
    vi.useFakeTimers();
    try {
      const never = (() => new Promise<never>(() => undefined)) as unknown as () => FactsLookup<RefundOrderFacts>;
      const validator = validatorOver(never);
      for (const start of [() => validator.validate(cedar.actor, value(baseline)), () => validator.recheckCurrent(cedar.actor, ready)]) {
        const pending: Promise<{ decision: string }> = start();
        let settled: { decision: string } | undefined;
        void pending.then((outcome) => {
          settled = outcome;
        });
        await vi.advanceTimersByTimeAsync(DEFAULT_FACTS_TIMEOUT_MS - 1);
        expect(settled).toBeUndefined();
        await vi.advanceTimersByTimeAsync(1);
        expect(settled?.decision).toBe('hold');
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
