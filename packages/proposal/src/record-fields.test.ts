// Review 2, F4 (script p4-record-extra.mjs): `record_sha256` covers the known fields of a record
// only, and recheck did not look at which fields a stored decision held. Adding
// `record.approved_by: 'cfo'`, `record.approval_limit` or `decision.approved: true` to a stored
// ready decision still rechecked as `ready_for_review`, so a host reading such a field after a
// passing recheck read data nobody authenticated. The README ("Rechecking a stored decision") says
// any altered decision is STATE_CHANGED, nothing looked up: one with fields added is altered too.
import type { ErrorReason, PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import type { ReadyForReview, RecheckOutcome } from './proposal-decision.js';
import { createRefundProposalValidator, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import type { FactsLookup } from './trusted-facts.js';

const clock = () => new Date('2026-07-19T00:00:00Z');
const actor: PrincipalContext = { tenant_id: 'cedar', subject_id: 'drafter-1', roles: ['support_drafter'] };
const facts: RefundOrderFacts = {
  tenant_id: 'cedar',
  order_id: 'ORDER-C7',
  unit: 'CREDIT_A',
  state: 'eligible',
  revision: 'r1',
  remaining_eligible_amount: 6000,
  lines: [{ line_id: 'LINE-1', eligible_quantity: 1, unit_amount: 6000 }],
};
const text = '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}]}';

function setUp() {
  let lookups = 0;
  const validator = createRefundProposalValidator({
    digester: createDigester({ key: new Uint8Array(32).fill(1) }),
    clock,
    orders: {
      loadOrder: () => {
        lookups += 1;
        return { status: 'found', facts: structuredClone(facts) };
      },
    },
  });
  const found = (): FactsLookup<RefundOrderFacts> => ({ status: 'found', facts: structuredClone(facts) });
  return { validator, found, lookups: () => lookups };
}

/** What a host storing decisions keeps: JSON, rebuilt later (never the validator's own object). */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function expectStateChanged(outcome: RecheckOutcome, label: string): void {
  expect(outcome.decision, label).toBe('refresh_required');
  if (!outcome.ok) expect(outcome.error, label).toEqual(makeError('STATE_CHANGED'));
}

type Stored = ReadyForReview<RefundProposal> & { record: Record<string, unknown> } & Record<string | symbol, unknown>;

async function readyStored(validator: ReturnType<typeof setUp>['validator']): Promise<Stored> {
  const decision = await validator.validate(actor, { format: 'json_text', text });
  if (!decision.ok) throw new Error('the baseline must be ready');
  return stored(decision) as Stored;
}

/** Every recheck entry point refuses `decision` as altered (STATE_CHANGED), looking nothing up. */
async function expectRefusedEverywhere(setup: ReturnType<typeof setUp>, decision: ReadyForReview<RefundProposal>, label: string): Promise<void> {
  const before = setup.lookups();
  expectStateChanged(setup.validator.recheck(decision, setup.found()), `${label}: recheck`);
  expectStateChanged(setup.validator.recheck(decision, setup.found(), actor), `${label}: recheck with the actor`);
  expectStateChanged(await setup.validator.recheckCurrent(actor, decision), `${label}: recheckCurrent`);
  expect(setup.lookups(), `${label}: nothing looked up`).toBe(before);
}

describe('a stored decision holds exactly the fields the validator gave it (review 2, F4)', () => {
  it("refuses the review's additions: record.approved_by, record.approval_limit, decision.approved, each alone and together", async () => {
    const setup = setUp();
    const kept = await readyStored(setup.validator);
    // Unaltered, the stored decision still holds (the additions below are all that differs).
    expect(setup.validator.recheck(kept, setup.found()).decision).toBe('ready_for_review');
    expect((await setup.validator.recheckCurrent(actor, kept)).decision).toBe('ready_for_review');

    const additions: [string, Stored][] = [
      ['record.approved_by', { ...kept, record: { ...kept.record, approved_by: 'cfo' } }],
      ['record.approval_limit', { ...kept, record: { ...kept.record, approval_limit: 1_000_000 } }],
      ['decision.approved', { ...kept, approved: true }],
      ['all three', { ...kept, approved: true, record: { ...kept.record, approved_by: 'cfo', approval_limit: 1_000_000 } }],
      // A refusal's `error` beside a ready record: not a field a ready decision has.
      ['decision.error', { ...kept, error: null }],
    ];
    for (const [label, decision] of additions) await expectRefusedEverywhere(setup, decision, label);
  });

  it('refuses fields added where a host would not look for them: a symbol or non-enumerable key, an inherited field, a property of the empty reasons list', async () => {
    const setup = setUp();
    const kept = await readyStored(setup.validator);
    const nonEnumerable = { ...kept, record: { ...kept.record } };
    Object.defineProperty(nonEnumerable.record, 'approved_by', { value: 'cfo', enumerable: false });
    const inherited = { ...kept, record: Object.assign(Object.create({ approved_by: 'cfo' }) as object, kept.record) };
    const inheritedDecision = Object.assign(Object.create({ approved: true }) as object, kept) as Stored;
    const reasons = Object.assign([], { approved: true });
    const onReasons = { ...kept, record: { ...kept.record, reasons } };
    const reasonsPrototype = Object.setPrototypeOf([], { approved: true }) as ErrorReason[];
    const inheritedOnReasons = { ...kept, record: { ...kept.record, reasons: reasonsPrototype } };
    const cases: [string, Stored][] = [
      ['a symbol key on the record', { ...kept, record: { ...kept.record, [Symbol('approved_by')]: 'cfo' } }],
      ['a symbol key on the decision', { ...kept, [Symbol('approved')]: true }],
      ['a non-enumerable record field', nonEnumerable],
      ['a record field inherited from its prototype', inherited as Stored],
      ['a decision field inherited from its prototype', inheritedDecision],
      ['a property of the reasons list', onReasons],
      ['a property inherited by the reasons list', inheritedOnReasons],
    ];
    for (const [label, decision] of cases) await expectRefusedEverywhere(setup, decision, label);
  });

  it('refuses a record with a field missing, and a record or decision whose keys cannot be listed, without throwing', async () => {
    const setup = setUp();
    const kept = await readyStored(setup.validator);
    const { decided_at: _decidedAt, ...missing } = kept.record;
    await expectRefusedEverywhere(setup, { ...kept, record: missing } as Stored, 'decided_at left out');
    const listingThrows = <T extends object>(target: T): T =>
      new Proxy(target, {
        ownKeys: () => {
          throw new Error('trap');
        },
      });
    await expectRefusedEverywhere(setup, { ...kept, record: listingThrows({ ...kept.record }) }, 'a record whose ownKeys trap throws');
    await expectRefusedEverywhere(setup, listingThrows({ ...kept }), 'a decision whose ownKeys trap throws');
  });

  it('still accepts the decision as the validator made it, stored as JSON, and rebuilt without a prototype', async () => {
    const setup = setUp();
    const decision = await setup.validator.validate(actor, { format: 'json_text', text });
    if (!decision.ok) throw new Error('the baseline must be ready');
    // The validator's own (frozen) object, as the dispatcher hands it back.
    expect(setup.validator.recheck(decision, setup.found()).decision).toBe('ready_for_review');
    expect((await setup.validator.recheckCurrent(actor, decision)).decision).toBe('ready_for_review');
    // Stored with its keys in another order, and with a null prototype (`Object.create(null)`, as
    // some stores build rows): the same fields, nothing inherited.
    const kept = stored(decision) as Stored;
    const reordered = Object.fromEntries(Object.entries(kept).reverse()) as Stored;
    const bare = Object.assign(Object.create(null) as object, { ...kept, record: Object.assign(Object.create(null) as object, kept.record) }) as Stored;
    for (const [label, value] of [['reordered', reordered], ['null prototype', bare]] as const) {
      expect(setup.validator.recheck(value, setup.found()).decision, label).toBe('ready_for_review');
      expect((await setup.validator.recheckCurrent(actor, value)).decision, label).toBe('ready_for_review');
    }
    // The recheck's own record has exactly the fields of a validate record.
    expect(Object.keys(setup.validator.recheck(kept, setup.found()).record).sort()).toEqual(Object.keys(decision.record).sort());
  });
});

describe('a stored decision whose reads throw (review 6, L1)', () => {
  it('is STATE_CHANGED, not thrown at the caller: a throwing getter on the decision or the record, a revoked Proxy', async () => {
    const { validator, found, lookups } = setUp();
    // Boxed: awaiting a revoked Proxy itself would read its `then` and throw in the test.
    const throwing = async (alter: (decision: Stored) => unknown): Promise<{ value: unknown }> => ({ value: alter(await readyStored(validator)) });
    const variants: [string, { value: unknown }][] = [
      [
        'a getter on the record that throws',
        await throwing((decision) => {
          Object.defineProperty(decision.record, 'rule_version', { get: () => { throw new Error('boom'); }, enumerable: true });
          return decision;
        }),
      ],
      [
        'a getter on the decision that throws',
        await throwing((decision) => {
          Object.defineProperty(decision, 'proposal', { get: () => { throw new Error('boom'); }, enumerable: true });
          return decision;
        }),
      ],
      [
        'a record behind a Proxy whose get trap throws',
        await throwing((decision) => ({ ...decision, record: new Proxy(decision.record, { get: () => { throw new Error('boom'); } }) })),
      ],
      [
        'a revoked Proxy of the decision',
        await throwing((decision) => {
          const { proxy, revoke } = Proxy.revocable(decision, {});
          revoke();
          return proxy;
        }),
      ],
    ];
    const before = lookups();
    for (const [label, { value }] of variants) {
      expectStateChanged(validator.recheck(value as Stored, found(), actor), `recheck: ${label}`);
      expectStateChanged(await validator.recheckCurrent(actor, value as Stored), `recheckCurrent: ${label}`);
    }
    expect(lookups()).toBe(before);
  });
});
