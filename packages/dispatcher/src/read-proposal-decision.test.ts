import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readProposalDecision } from './read-proposal-decision.js';

const RECORD = { schema_version: 'toolseal-proposal-decision-v1', stage: 'validate', decision: 'rejected_rule', code: 'RULE_REJECTED', failure_category: 'business_rule', reasons: [] };
const HELD = { ...RECORD, decision: 'hold', code: 'FACTS_UNAVAILABLE', failure_category: 'facts_unavailable' };
const READY = { ...RECORD, decision: 'ready_for_review', code: null, failure_category: 'none' };
const returned = (value: unknown) => readProposalDecision({ kind: 'returned', value });

describe('readProposalDecision', () => {
  it('reads a ready answer and a catalogued refusal, with a private frozen copy of the record', () => {
    const ready = { ok: true, decision: 'ready_for_review', proposal: {}, record: READY };
    const read = returned(ready);
    expect(read).toEqual({ kind: 'ready', decision: ready, record: ready.record });
    if (read.kind !== 'ready') return;
    expect(read.decision).toBe(ready);
    expect(read.record).not.toBe(ready.record);
    expect(Object.isFrozen(read.record) && Object.isFrozen(read.record.reasons)).toBe(true);

    const reasons = [{ field: '/amount', rule: 'amount_mismatch' }];
    const rejected = { ...RECORD, reasons };
    expect(returned({ ok: false, error: { code: 'RULE_REJECTED', reasons }, record: rejected })).toEqual({
      kind: 'refused',
      code: 'RULE_REJECTED',
      reasons,
      record: rejected,
    });
    expect(returned({ ok: false, error: { code: 'FACTS_UNAVAILABLE' }, record: HELD })).toMatchObject({ kind: 'refused', reasons: [] });
  });

  it('calls everything else broken: a throw, a timeout, a missing error or record, a code no proposal gate gives', () => {
    const broken = [
      readProposalDecision({ kind: 'threw' }),
      readProposalDecision({ kind: 'timed_out' }),
      returned(undefined),
      returned({ ok: false, record: RECORD }),
      returned({ ok: true }),
      returned({ ok: true, record: [] }),
      returned({ ok: true, record: { big: 'x'.repeat(20_000) } }),
      returned({ ok: true, record: { when: new Date(0) } }),
      returned({ ok: false, error: { code: 'TOOL_ERROR', reasons: [] }, record: RECORD }),
      returned({ ok: false, error: { code: 'NOT_FOUND', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] }, record: RECORD }),
      returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: [{ field: '/amount' }] }, record: RECORD }),
      returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: {} }, record: RECORD }),
      returned(new Proxy({}, { get: () => { throw new Error('hostile'); } })),
      // The answer and its record disagree (a wrapper turned one into the other): broken, never ready.
      returned({ ok: true, decision: 'ready_for_review', proposal: {}, record: RECORD }),
      returned({ ok: true, proposal: {}, record: READY }),
      returned({ ok: true, decision: 'ready_for_review', proposal: {}, record: { ...READY, code: 'RULE_REJECTED' } }),
      returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: [] }, record: READY }),
      returned({ ok: false, error: { code: 'FACTS_UNAVAILABLE' }, record: RECORD }),
      // A refusal whose record stands for another decision, or keeps other reasons (review).
      returned({ ok: false, error: { code: 'NOT_FOUND' }, record: { ...RECORD, decision: 'refresh_required', code: 'NOT_FOUND' } }),
      returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'amount_mismatch' }] }, record: RECORD }),
      returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: [] }, record: { ...RECORD, reasons: [{ field: '/unit', rule: 'unit_mismatch' }] } }),
      // A ready answer whose record carries a failure category or reasons (review).
      returned({ ok: true, decision: 'ready_for_review', proposal: {}, record: { ...READY, failure_category: 'business_rule' } }),
      returned({ ok: true, decision: 'ready_for_review', proposal: {}, record: { ...READY, reasons: [{ field: '/amount', rule: 'amount_mismatch' }] } }),
    ];
    for (const [index, read] of broken.entries()) expect(read, `case ${index}`).toEqual({ kind: 'broken' });
  });

  it('never throws, and reads any value as ready, refused or broken (property)', () => {
    fc.assert(
      fc.property(fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withNullPrototype: true }), (value) => {
        const read = returned(value);
        expect(['ready', 'refused', 'broken']).toContain(read.kind);
        const wrapped = returned({ ok: false, error: { code: 'RULE_REJECTED', reasons: value }, record: value });
        expect(['refused', 'broken']).toContain(wrapped.kind);
      }),
      { numRuns: 300 },
    );
  });
});
