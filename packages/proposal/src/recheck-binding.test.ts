// Third review (scripts proposal-upgrade.mjs and actor.mjs): a stored decision rebuilt from two
// validator-issued records (a rejected_shape record's proposal digest, another record's facts
// digest) rechecked as ready for a proposal the contract refuses; and a decision made for one
// actor rechecked as ready for another. Expected outcomes come from spec 002 ("Reject shape; never
// infer approval"; "A successful check describes a particular actor") and the README ("any other
// altered or stale decision is STATE_CHANGED").
import type { PrincipalContext } from '@toolseal/contracts';
import { createDigester, type Digester } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import {
  createProposalValidator,
  PROPOSAL_DIGEST_DOMAIN,
  PROPOSAL_FACTS_DIGEST_DOMAIN,
  PROPOSAL_RECORD_DIGEST_DOMAIN,
  PROPOSAL_REJECTED_SHAPE_DIGEST_DOMAIN,
} from './create-proposal-validator.js';
import { PROPOSAL_DECISION_SCHEMA_VERSION, type ProposalDecisionRecord, type ReadyForReview, type RecheckOutcome } from './proposal-decision.js';
import { REFUND_PROPOSAL_CONTRACT_ID, REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { createRefundProposalValidator, REFUND_RULES_V1, type RefundOrderFacts, type RefundProposal } from './refund-rules.js';
import type { FactsLookup } from './trusted-facts.js';

const clock = () => new Date('2026-07-19T00:00:00Z');
const drafter: PrincipalContext = { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: ['support_drafter'] };
const colleague: PrincipalContext = { tenant_id: 'cedar', subject_id: 'someone-else', roles: [] };

// The review's facts: the order's eligible amount is above the contract's maximum (10000), so the
// rules alone accept the amount the schema refuses; only the structural contract stands in the way.
const bigOrder: RefundOrderFacts = {
  tenant_id: 'cedar',
  order_id: 'ORDER-C7',
  unit: 'CREDIT_A',
  state: 'eligible',
  revision: 'r1',
  remaining_eligible_amount: 20000,
  lines: [{ line_id: 'LINE-1', eligible_quantity: 1, unit_amount: 20000 }],
};
const smallOrder: RefundOrderFacts = { ...bigOrder, remaining_eligible_amount: 6000, lines: [{ line_id: 'LINE-1', eligible_quantity: 1, unit_amount: 6000 }] };

const contractBreaking = '{"order_id":"ORDER-C7","amount":20000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}],"approved":true}';
const sameOrder = '{"order_id":"ORDER-C7","amount":5000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}]}';
const baseline = '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}]}';

function setUp(digester: Digester, facts: RefundOrderFacts) {
  const lookups: PrincipalContext[] = [];
  const validator = createRefundProposalValidator({
    digester,
    clock,
    orders: {
      loadOrder: (principal, orderId) => {
        lookups.push(principal);
        return principal.tenant_id === 'cedar' && orderId === 'ORDER-C7' ? { status: 'found', facts: structuredClone(facts) } : { status: 'not_available' };
      },
    },
  });
  return { validator, lookups, found: (): FactsLookup<RefundOrderFacts> => ({ status: 'found', facts: structuredClone(facts) }) };
}

function expectStateChanged(outcome: RecheckOutcome, label: string): void {
  expect(outcome.decision, label).toBe('refresh_required');
  if (!outcome.ok) expect(outcome.error, label).toEqual(makeError('STATE_CHANGED'));
}

/** What a host storing decisions keeps: JSON, rebuilt later (never the validator's own object). */
function stored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

describe('a stored decision cannot be assembled from digests of other records', () => {
  it("refuses the review's forgery: a rejected_shape record's proposal digest plus another record's facts digest", async () => {
    const { validator, lookups, found } = setUp(createDigester({ key: new Uint8Array(32).fill(7) }), bigOrder);
    const bad = await validator.validate(drafter, { format: 'json_text', text: contractBreaking });
    expect(bad.decision).toBe('rejected_shape');
    const other = await validator.validate(drafter, { format: 'json_text', text: sameOrder });
    expect(other.decision).toBe('rejected_rule');
    expect(other.record.facts_sha256).not.toBeNull();
    lookups.length = 0;

    const forged = {
      ok: true,
      decision: 'ready_for_review',
      proposal: JSON.parse(contractBreaking) as RefundProposal,
      record: { ...bad.record, decision: 'ready_for_review', facts_sha256: other.record.facts_sha256 },
    } as unknown as ReadyForReview<RefundProposal>;
    expectStateChanged(validator.recheck(forged, found()), 'recheck');
    expectStateChanged(validator.recheck(forged, found(), drafter), 'recheck with the actor');
    expectStateChanged(await validator.recheckCurrent(drafter, forged), 'recheckCurrent');
    // A stale decision is refused as it is: nothing is looked up for it.
    expect(lookups).toEqual([]);
  });

  it('re-runs the structural contract on a proposal it did not issue, even when every digest of the record fits (a plain digester)', async () => {
    // With a plain (unkeyed) digester anyone who can write the stored decision can compute every
    // digest in it: the contract is checked again all the same.
    const digester = createDigester();
    const forge = (proposalText: string, facts: RefundOrderFacts): ReadyForReview<RefundProposal> => {
      const proposal = JSON.parse(proposalText) as RefundProposal;
      const body: Omit<ProposalDecisionRecord, 'record_sha256'> = {
        schema_version: PROPOSAL_DECISION_SCHEMA_VERSION,
        stage: 'validate',
        contract_id: REFUND_PROPOSAL_CONTRACT_ID,
        rule_version: REFUND_RULES_V1.version,
        decision: 'ready_for_review',
        code: null,
        failure_category: 'none',
        reasons: [],
        actor_ref: digester.principalRef(drafter),
        proposal_sha256: digester.digestTagged(PROPOSAL_DIGEST_DOMAIN, { contract_id: REFUND_PROPOSAL_CONTRACT_ID, proposal }),
        facts_sha256: digester.digestTagged(PROPOSAL_FACTS_DIGEST_DOMAIN, {
          contract_id: REFUND_PROPOSAL_CONTRACT_ID,
          rule_version: REFUND_RULES_V1.version,
          snapshot: REFUND_RULES_V1.snapshot(facts),
        }),
        decided_at: '2026-07-19T00:00:00.000Z',
      };
      const record = { ...body, record_sha256: digester.digestTagged(PROPOSAL_RECORD_DIGEST_DOMAIN, body) };
      return { ok: true, decision: 'ready_for_review', proposal, record };
    };
    const small = setUp(digester, smallOrder);
    // The forgery itself is well made: for a proposal the contract and the rules accept, it is
    // exactly the record the validator makes, so it passes.
    expect(small.validator.recheck(forge(baseline, smallOrder), small.found()).decision).toBe('ready_for_review');
    // The review's proposal (amount above the contract's 10000, an `approved` flag), on facts whose
    // rules accept 20000.
    const big = setUp(digester, bigOrder);
    const forged = forge(contractBreaking, bigOrder);
    expectStateChanged(big.validator.recheck(forged, big.found()), 'recheck');
    expectStateChanged(await big.validator.recheckCurrent(drafter, forged), 'recheckCurrent');
    expect(big.lookups).toEqual([]);
    // One rule of the contract broken at a time (the rules ignore properties they do not know).
    const cases: [string, string, RefundOrderFacts, ReturnType<typeof setUp>][] = [
      ['amount above the maximum', '{"order_id":"ORDER-C7","amount":20000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}]}', bigOrder, big],
      ['approved: true', '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}],"approved":true}', smallOrder, small],
      ['a tenant_id', '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1}],"tenant_id":"cedar"}', smallOrder, small],
      ['an unknown line field', '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A","lines":[{"line_id":"LINE-1","quantity":1,"role":"admin"}]}', smallOrder, small],
    ];
    for (const [label, proposalText, facts, { validator, found }] of cases) {
      expectStateChanged(validator.recheck(forge(proposalText, facts), found()), label);
      expectStateChanged(await validator.recheckCurrent(drafter, forge(proposalText, facts)), `${label}, recheckCurrent`);
    }
  });

  it('records a proposal the contract refused under its own digest domain, never the reviewed-proposal one', async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const { validator } = setUp(digester, bigOrder);
    const bad = await validator.validate(drafter, { format: 'json_text', text: contractBreaking });
    expect(bad.decision).toBe('rejected_shape');
    const proposal = JSON.parse(contractBreaking) as unknown as Record<string, unknown>;
    // Still useful for audit: it identifies the refused value, keyed.
    expect(bad.record.proposal_sha256).toBe(digester.digestTagged(PROPOSAL_REJECTED_SHAPE_DIGEST_DOMAIN, { contract_id: REFUND_PROPOSAL_CONTRACT_ID, proposal }));
    expect(bad.record.proposal_sha256).not.toBe(digester.digestTagged(PROPOSAL_DIGEST_DOMAIN, { contract_id: REFUND_PROPOSAL_CONTRACT_ID, proposal }));
    // A proposal the contract accepted keeps the reviewed-proposal digest, whatever the later stage decided.
    const other = await validator.validate(drafter, { format: 'json_text', text: sameOrder });
    expect(other.decision).toBe('rejected_rule');
    expect(other.record.proposal_sha256).toBe(
      digester.digestTagged(PROPOSAL_DIGEST_DOMAIN, { contract_id: REFUND_PROPOSAL_CONTRACT_ID, proposal: JSON.parse(sameOrder) as unknown as Record<string, unknown> }),
    );
  });

  it('binds every field of a record together: a field rewritten or taken from another record is STATE_CHANGED', async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const { validator, found } = setUp(digester, smallOrder);
    const mine = await validator.validate(drafter, { format: 'json_text', text: baseline });
    const theirs = await validator.validate(colleague, { format: 'json_text', text: baseline });
    if (!mine.ok || !theirs.ok) throw new Error('baseline must be ready');
    const kept = stored(mine);
    // Unaltered, the stored decision still holds.
    expect(validator.recheck(kept, found()).decision).toBe('ready_for_review');
    expect((await validator.recheckCurrent(drafter, kept)).decision).toBe('ready_for_review');

    const { record_sha256: _dropped, ...withoutDigest } = kept.record;
    const rewrites: [string, Record<string, unknown>][] = [
      // The colleague's actor reference on the drafter's record: each digest genuine, not of one record.
      ['actor_ref from another record', { ...kept.record, actor_ref: theirs.record.actor_ref }],
      ['record_sha256 from another record', { ...kept.record, record_sha256: theirs.record.record_sha256 }],
      ['decided_at', { ...kept.record, decided_at: '2030-01-01T00:00:00.000Z' }],
      ['stage', { ...kept.record, stage: 'recheck' }],
      ['no record_sha256', withoutDigest],
      // A record stored before this version: nothing shows its digests came from one decision.
      ['a v1 record', { ...withoutDigest, schema_version: 'toolseal-proposal-decision-v1' }],
    ];
    for (const [label, record] of rewrites) {
      const decision = { ...kept, record } as unknown as ReadyForReview<RefundProposal>;
      expectStateChanged(validator.recheck(decision, found()), label);
      expectStateChanged(await validator.recheckCurrent(drafter, decision), `${label}, recheckCurrent`);
    }
    // With the colleague's actor reference, the colleague gets nothing either.
    const borrowed = { ...kept, record: { ...kept.record, actor_ref: theirs.record.actor_ref } };
    expectStateChanged(await validator.recheckCurrent(colleague, borrowed), 'borrowed actor_ref, as the colleague');
  });

  it('gives every record, refusals and rechecks included, a record_sha256 over its other fields', async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(7) });
    const { validator, found } = setUp(digester, smallOrder);
    const ready = await validator.validate(drafter, { format: 'json_text', text: baseline });
    if (!ready.ok) throw new Error('baseline must be ready');
    const records: ProposalDecisionRecord[] = [
      ready.record,
      (await validator.validate(drafter, { format: 'json_text', text: contractBreaking })).record,
      (await validator.validate(drafter, { format: 'json_text', text: '{' })).record,
      (await validator.validate(drafter, { format: 'json_text', text: sameOrder })).record,
      validator.recheck(ready, found()).record,
      validator.recheck(ready, { status: 'lookup_failed' }).record,
    ];
    for (const record of records) {
      const { record_sha256, ...body } = record;
      expect(record.schema_version).toBe('toolseal-proposal-decision-v2');
      expect(record_sha256, record.decision).toBe(digester.digestTagged(PROPOSAL_RECORD_DIGEST_DOMAIN, body));
    }
  });
});

describe('a decision describes the actor it was made for', () => {
  it("refuses recheckCurrent by another principal of the same tenant (the review's actor.mjs), without a lookup", async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(1) });
    const { validator, lookups } = setUp(digester, smallOrder);
    const decision = await validator.validate(drafter, { format: 'json_text', text: baseline });
    if (!decision.ok) throw new Error('baseline must be ready');
    lookups.length = 0;
    const outcome = await validator.recheckCurrent(colleague, decision);
    expectStateChanged(outcome, 'another principal');
    // Recorded for the principal that asked, never the one the decision names.
    expect(outcome.record.actor_ref).toBe(digester.principalRef(colleague));
    expect(lookups).toEqual([]);
    // Stored and rebuilt, too.
    expectStateChanged(await validator.recheckCurrent(colleague, stored(decision)), 'another principal, stored');
    expect(lookups).toEqual([]);
    // The actor the decision describes still passes (roles and other fields are not part of the reference).
    expect((await validator.recheckCurrent({ ...drafter, roles: [] }, stored(decision))).decision).toBe('ready_for_review');
    expect(lookups).toHaveLength(1);
  });

  it('refuses recheck given another principal, and keeps recording the decision actor when none is given', async () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(1) });
    const { validator, found } = setUp(digester, smallOrder);
    const decision = await validator.validate(drafter, { format: 'json_text', text: baseline });
    if (!decision.ok) throw new Error('baseline must be ready');
    const refused = validator.recheck(decision, found(), colleague);
    expectStateChanged(refused, 'another principal');
    expect(refused.record.actor_ref).toBe(digester.principalRef(colleague));
    const same = validator.recheck(stored(decision), found(), drafter);
    expect(same.decision).toBe('ready_for_review');
    expect(same.record.actor_ref).toBe(digester.principalRef(drafter));
    const unnamed = validator.recheck(decision, found());
    expect(unnamed.decision).toBe('ready_for_review');
    expect(unnamed.record.actor_ref).toBe(decision.record.actor_ref);
    // A malformed actor is a host bug, as for validate.
    expect(() => validator.recheck(decision, found(), { tenant_id: 'cedar', subject_id: '', roles: [] })).toThrow(/^recheck: actor\.subject_id must be a string of 1 to 128 characters/);
  });
});

describe('what every record digest covers is checked at start-up', () => {
  it('refuses a contractId or rule version UTF-8 cannot encode with a TypeError', () => {
    const digester = createDigester({ key: new Uint8Array(32).fill(1) });
    const lone = String.fromCharCode(0xd800);
    const options = { contractId: REFUND_PROPOSAL_CONTRACT_ID, schema: REFUND_PROPOSAL_SCHEMA, facts: { lookup: () => ({ status: 'not_available' as const }) }, rules: REFUND_RULES_V1, digester };
    expect(() => createProposalValidator({ ...options, contractId: `refund${lone}` })).toThrow(/^contractId holds a lone surrogate/);
    expect(() => createProposalValidator({ ...options, rules: { ...REFUND_RULES_V1, version: `v${lone}` } })).toThrow(/^rules\.version holds a lone surrogate/);
    expect(createProposalValidator(options).contractId).toBe(REFUND_PROPOSAL_CONTRACT_ID);
  });
});
