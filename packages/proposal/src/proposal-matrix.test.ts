import { createDigester } from '@toolseal/digests';
import { makeError, type MakeErrorOptions } from '@toolseal/errors';
import type { ErrorCode, ErrorReason } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { createEffectRecorder } from './effect-recorder.js';
import { createRefundProposalValidator } from './refund-rules.js';
import { cedar, createCedarOrders, readJson, type FactsMode } from './__fixtures__/cedar-orders.js';

interface MatrixRow {
  id: string;
  variation: string;
  from_specification: boolean;
  same_error_bytes_as?: string;
  proposal: Record<string, unknown>;
  facts: FactsMode;
  facts_at_execution?: FactsMode;
  expected: {
    shape: 'valid' | 'invalid';
    decision: string;
    code: ErrorCode | null;
    reasons: ErrorReason[];
    recheck: { decision: string; code: ErrorCode | null } | null;
    effect_attempts: number;
    effects_performed: number;
  };
}

// The stage each decision stops at (spec 002 check order: shape, access, state, business rules).
const CATEGORY_OF: Readonly<Record<string, string>> = {
  ready_for_review: 'none',
  rejected_shape: 'shape',
  rejected_access: 'access',
  refresh_required: 'state',
  rejected_rule: 'business_rule',
  hold: 'facts_unavailable',
};

const matrix = readJson<{ rule_version: string; baseline: Record<string, unknown>; rows: MatrixRow[] }>('proposal-matrix.json');
const digester = createDigester({ key: new Uint8Array(32).fill(7) });
const clock = () => new Date('2026-07-19T00:00:00Z');

/** Reviews one row, then (for a ready decision) rechecks and attempts the effect on a recorder. */
async function runRow(row: MatrixRow) {
  const orders = createCedarOrders(row.facts);
  const validator = createRefundProposalValidator({ orders: orders.source, digester, clock });
  const recorder = createEffectRecorder();
  const decision = await validator.validate(cedar.actor, { format: 'json_text', text: JSON.stringify(row.proposal) });
  let recheck = null;
  if (decision.ok && row.facts_at_execution !== undefined) {
    orders.setMode(row.facts_at_execution);
    recheck = await validator.recheckCurrent(cedar.actor, decision);
    if (recheck.ok) {
      recorder.attempt({ kind: 'create_refund', proposal_sha256: decision.record.proposal_sha256 ?? '', rule_version: decision.record.rule_version });
    }
  }
  return { decision, recheck, recorder, orders };
}

describe('the specification 002 matrix (fixtures/proposal-matrix.json)', () => {
  it('has the baseline, its 7 variations, lookup unavailable and the state change, from the specification', () => {
    const fromSpecification = matrix.rows.filter((row) => row.from_specification).map((row) => row.id);
    expect(fromSpecification).toEqual([
      'baseline',
      'other_tenant_order',
      'amount_exceeds_remaining',
      'unit_mismatch',
      'quantity_exceeds_eligible',
      'partial_amount',
      'eligibility_revoked',
      'unknown_field_approved',
      'lookup_unavailable',
      'state_changes_before_execution',
    ]);
    expect(matrix.rule_version).toBe('refund-rules-v1');
  });

  it('changes only the stated fields of the baseline in each row', () => {
    const changed = (row: MatrixRow) =>
      [...new Set([...Object.keys(row.proposal), ...Object.keys(matrix.baseline)])]
        .filter((key) => JSON.stringify(row.proposal[key]) !== JSON.stringify(matrix.baseline[key]))
        .sort();
    const byId = Object.fromEntries(matrix.rows.map((row) => [row.id, changed(row)]));
    expect(byId).toEqual({
      baseline: [],
      other_tenant_order: ['order_id'],
      amount_exceeds_remaining: ['amount'],
      unit_mismatch: ['unit'],
      quantity_exceeds_eligible: ['lines'],
      partial_amount: ['amount'],
      eligibility_revoked: [],
      unknown_field_approved: ['approved'],
      lookup_unavailable: [],
      state_changes_before_execution: [],
      nonexistent_order: ['order_id'],
    });
  });

  for (const row of matrix.rows) {
    it(`${row.id}: ${row.variation}`, async () => {
      const { decision, recheck, recorder, orders } = await runRow(row);
      const { expected } = row;

      expect(decision.decision).toBe(expected.decision);
      expect(decision.record.code).toBe(expected.code);
      expect(decision.record.reasons).toEqual(expected.reasons);
      expect(decision.record.failure_category).toBe(CATEGORY_OF[expected.decision]);
      expect(decision.record.rule_version).toBe(matrix.rule_version);
      if (expected.code === null) {
        expect(decision.ok).toBe(true);
        if (decision.ok) expect(decision.proposal).toEqual(row.proposal); // never repaired
      } else {
        const options: MakeErrorOptions = { reasons: expected.reasons };
        expect(decision.ok).toBe(false);
        if (!decision.ok) expect(decision.error).toEqual(makeError(expected.code, options));
      }

      // Shape-invalid proposals never reach the trusted lookup; every other row asks for the
      // authenticated actor only.
      if (expected.shape === 'invalid') expect(orders.calls).toEqual([]);
      for (const call of orders.calls) expect(call.actor).toEqual(cedar.actor);

      if (expected.recheck === null) {
        expect(recheck).toBeNull();
      } else {
        expect(recheck?.decision).toBe(expected.recheck.decision);
        expect(recheck?.record.code).toBe(expected.recheck.code);
      }
      expect(recorder.attempts()).toHaveLength(expected.effect_attempts);
      expect(recorder.performedCount()).toBe(expected.effects_performed);
      expect(recorder.attempts().every((attempt) => !attempt.performed)).toBe(true);
    });
  }

  it('answers another tenant\'s order and a missing order with the same bytes', async () => {
    const paired = matrix.rows.filter((entry) => entry.same_error_bytes_as !== undefined);
    expect(paired.length).toBeGreaterThan(0);
    for (const row of paired) {
      const other = matrix.rows.find((entry) => entry.id === row.same_error_bytes_as);
      expect(other).toBeDefined();
      if (other === undefined) continue;
      const [first, second] = await Promise.all([runRow(row), runRow(other)]);
      expect(first.decision.ok || second.decision.ok).toBe(false);
      if (first.decision.ok || second.decision.ok) continue;
      expect(JSON.stringify(first.decision.error)).toBe(JSON.stringify(second.decision.error));
      expect(first.decision.record.failure_category).toBe(second.decision.record.failure_category);
      expect(first.decision.record.facts_sha256).toBeNull();
      expect(second.decision.record.facts_sha256).toBeNull();
    }
  });

  it('records no executed effect in any row', async () => {
    let attempts = 0;
    for (const row of matrix.rows) {
      const { recorder } = await runRow(row);
      expect(recorder.performedCount()).toBe(0);
      attempts += recorder.attempts().length;
    }
    expect(attempts).toBe(1); // only the baseline reached an attempt, and it was recorded, not performed
  });
});
