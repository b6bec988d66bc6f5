// The specification 002 matrix (fixtures/proposal-matrix.json, expected outcomes written before the
// validator ran) through the whole dispatcher: the proposal arrives as a model's create_refund_draft
// call, and "ready for review" means the approval gate answers next, never that anything ran.
import { describe, expect, it } from 'vitest';
import { BASELINE_REFUND, CEDAR_DRAFTER, createTestHost, readFixture, toolCall, type TestHost } from './__fixtures__/test-host.js';

interface MatrixRow {
  id: string;
  proposal: Record<string, unknown>;
  facts: 'baseline' | 'eligibility_revoked' | 'lookup_unavailable';
  facts_at_execution?: 'baseline' | 'eligibility_revoked';
  same_error_bytes_as?: string;
  expected: {
    shape: 'valid' | 'invalid';
    decision: string;
    code: string | null;
    reasons: { field: string; rule: string }[];
    recheck: { decision: string; code: string | null } | null;
    effect_attempts: number;
  };
}

const matrix = readFixture('proposal-matrix.json') as { rows: MatrixRow[] };

function setFacts(host: TestHost, facts: MatrixRow['facts']): void {
  host.facts.state = facts === 'eligibility_revoked' ? 'revoked' : 'eligible';
  host.facts.lookup = facts === 'lookup_unavailable' ? 'down' : 'up';
}

describe('specification 002 matrix through the dispatcher', () => {
  const errors = new Map<string, string>();

  it.each(matrix.rows.map((row) => [row.id, row] as const))('%s', async (_id, row) => {
    const host = createTestHost();
    setFacts(host, row.facts);
    const context = { principal: CEDAR_DRAFTER };
    const review = (await host.dispatcher.dispatch([toolCall('create_refund_draft', row.proposal)], context)).results[0];
    if (review === undefined) throw new Error('no result');
    const error = review.sealed.model_result.error;

    if (row.expected.code === null) {
      // Ready for review: not approval, not execution. The approval gate answers with a preview.
      expect(review.gate).toBe('approval');
      expect(error?.code).toBe('APPROVAL_REQUIRED');
      expect(review.decision_record?.decision).toBe('ready_for_review');
    } else {
      expect(review.gate).toBe(row.expected.shape === 'invalid' ? 'input_schema' : 'trusted_checks');
      expect(error?.code).toBe(row.expected.code);
      // The matrix lists the validator's reasons; the model gets them sorted by field, then rule
      // (README, "Reason fields"), and the decision record keeps the validator's own order.
      expect(error?.reasons).toEqual(
        [...row.expected.reasons].sort((left, right) => (left.field < right.field ? -1 : left.field > right.field ? 1 : left.rule < right.rule ? -1 : 1)),
      );
      if (row.expected.shape === 'valid') {
        expect(review.decision_record?.decision).toBe(row.expected.decision);
        expect(review.decision_record?.reasons).toEqual(row.expected.reasons);
      }
      errors.set(row.id, JSON.stringify(error));
    }
    if (row.same_error_bytes_as !== undefined) {
      expect(JSON.stringify(error)).toBe(errors.get(row.same_error_bytes_as));
    }

    if (row.expected.recheck !== null) {
      const preview = review.approval_request;
      if (preview === null) throw new Error('no approval preview');
      // A change between review and execution lands after this call's own validation, when its key
      // is claimed: the recheck right before the effect is what must catch it.
      const atExecution = row.facts_at_execution;
      if (atExecution === undefined) {
        setFacts(host, row.facts);
      } else {
        const store = host.stores.idempotencyStore;
        const claim = store.claim.bind(store);
        store.claim = async (input) => {
          setFacts(host, atExecution);
          return claim(input);
        };
      }
      const executed = (
        await host.dispatcher.dispatch([toolCall('create_refund_draft', row.proposal)], {
          ...context,
          approvals: [
            {
              request_sha256: preview.request_sha256,
              tool_name: preview.tool_name,
              idempotency_key: `matrix-${row.id}`,
              approved_by: 'supervisor-1',
              expires_at: host.clock.now() + 60_000,
            },
          ],
        })
      ).results[0];
      if (row.expected.recheck.code === null) {
        expect(executed?.sealed.model_result.status).toBe('succeeded');
      } else {
        expect(executed?.sealed.model_result.error?.code).toBe(row.expected.recheck.code);
        if (atExecution !== undefined) expect(executed?.gate).toBe('recheck');
      }
    }
    expect(host.calls['create_refund_draft']).toBe(row.expected.effect_attempts);
  });
});

// Review: ownership was only ever checked by the host's lookup. One that forgets its tenant filter
// found Maple's ORDER-M9 for the Cedar drafter: ready for review, and RULE_REJECTED reasons that
// told the model its amounts. The rule set's `owns` answers it NOT_FOUND, as if absent.
describe("another tenant's order through a lookup that forgets its tenant filter", () => {
  const m9Ready = { order_id: 'ORDER-M9', amount: 9000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 3 }] };
  const proposals = [
    m9Ready, // matches Maple's facts: the rules would find it ready
    { ...m9Ready, amount: 1000 }, // the probes: each would be RULE_REJECTED with a reason about ORDER-M9
    { ...m9Ready, amount: 9001 },
    { ...m9Ready, lines: [{ line_id: 'LINE-1', quantity: 4 }] },
    { ...m9Ready, unit: 'CREDIT_B' },
  ];

  it.each(proposals.map((proposal) => [JSON.stringify(proposal), proposal] as const))('%s: NOT_FOUND, the same model_result bytes as a scoped lookup', async (_label, proposal) => {
    const answers: string[] = [];
    for (const ordersLookup of ['tenant_filter_forgotten', 'scoped'] as const) {
      const host = createTestHost({ ordersLookup });
      const result = (await host.dispatcher.dispatch([toolCall('create_refund_draft', proposal, { callId: 'call-m9', responseId: 'response-m9' })], { principal: CEDAR_DRAFTER })).results[0];
      expect(result?.gate, ordersLookup).toBe('trusted_checks');
      expect(result?.sealed.model_result.error?.code, ordersLookup).toBe('NOT_FOUND');
      expect(result?.decision_record?.decision, ordersLookup).toBe('rejected_access');
      expect(host.calls['create_refund_draft'], ordersLookup).toBe(0);
      answers.push(JSON.stringify(result?.sealed.model_result));
    }
    expect(answers[0]).toBe(answers[1]);
    // The drafter's own order still passes through that lookup.
    const host = createTestHost({ ordersLookup: 'tenant_filter_forgotten' });
    const own = (await host.dispatcher.dispatch([toolCall('create_refund_draft', BASELINE_REFUND)], { principal: CEDAR_DRAFTER })).results[0];
    expect(own?.decision_record?.decision).toBe('ready_for_review');
  });
});
