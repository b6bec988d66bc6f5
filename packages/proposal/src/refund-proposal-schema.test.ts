import { compileSchema } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { REFUND_PROPOSAL_SCHEMA } from './refund-proposal-schema.js';
import { readJson } from './__fixtures__/cedar-orders.js';

const baseline = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }] };

describe('REFUND_PROPOSAL_SCHEMA', () => {
  it('is the contract kept in fixtures/proposal/refund-proposal.schema.json', () => {
    expect(REFUND_PROPOSAL_SCHEMA).toEqual(readJson('proposal/refund-proposal.schema.json'));
  });

  it('compiles under the pinned Ajv and accepts the baseline', () => {
    expect(compileSchema(REFUND_PROPOSAL_SCHEMA)(baseline)).toBe(true);
  });

  it('enforces the bounds the specification states', () => {
    const validate = compileSchema(REFUND_PROPOSAL_SCHEMA);
    const line = { line_id: 'LINE-1', quantity: 1 };
    const invalid: unknown[] = [
      { ...baseline, amount: 0 },
      { ...baseline, amount: 10_001 },
      { ...baseline, amount: 60.5 },
      { ...baseline, unit: 'CREDIT_C' },
      { ...baseline, order_id: '' },
      { ...baseline, order_id: 'x'.repeat(65) },
      { ...baseline, lines: [] },
      { ...baseline, lines: [line, line, line, line, line] },
      { ...baseline, lines: [{ ...line, quantity: 0 }] },
      { ...baseline, lines: [{ ...line, quantity: 11 }] },
      { ...baseline, lines: [{ ...line, approved: true }] },
      { ...baseline, approved: true },
      { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A' },
      { amount: 6000, unit: 'CREDIT_A', lines: [line] },
    ];
    for (const value of invalid) expect(validate(value)).toBe(false);
    for (const value of [
      { ...baseline, amount: 1 },
      { ...baseline, amount: 10_000, unit: 'CREDIT_B' },
      { ...baseline, lines: [line, line, line, line] },
      { ...baseline, lines: [{ ...line, quantity: 10 }] },
    ]) {
      expect(validate(value)).toBe(true);
    }
  });

  it('the review: identifiers are printable ASCII, so no control, invisible, bidirectional or look-alike character reaches the order lookup', () => {
    const validate = compileSchema(REFUND_PROPOSAL_SCHEMA);
    const line = { line_id: 'LINE-1', quantity: 1 };
    for (const id of [
      'ORDER-C7\u0000',
      'ORDER-C7\u200b',
      '\u202eORDER-C7',
      'ORDER-C7 ',
      'ORDER C7',
      'ORDER-\u0421\u0437', // Cyrillic look-alikes of C and 3
      '\u{1f600}'.repeat(16),
      'ORDER-C7\n',
    ]) {
      expect(validate({ ...baseline, order_id: id }), JSON.stringify(id)).toBe(false);
      expect(validate({ ...baseline, lines: [{ ...line, line_id: id }] }), JSON.stringify(id)).toBe(false);
    }
    for (const id of ['ORDER-C7', 'order_c7.v2', '!', '~'.repeat(64)]) {
      expect(validate({ ...baseline, order_id: id, lines: [{ ...line, line_id: id }] }), id).toBe(true);
    }
  });

  it('is frozen all the way down', () => {
    expect(Object.isFrozen(REFUND_PROPOSAL_SCHEMA)).toBe(true);
    expect(Object.isFrozen(REFUND_PROPOSAL_SCHEMA.properties.lines.items.properties.quantity)).toBe(true);
  });
});
