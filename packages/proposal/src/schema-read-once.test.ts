import type { PrincipalContext } from '@toolseal/contracts';
// The proposal schema is the validator's own: copied once at start-up, and the closure proof, the
// compile and the declared fields all read that copy. Before, each read the host's object again: a
// schema compiled (and cached) while still open, then closed, passed the proof with its open
// validator, and a getter keyword could answer `additionalProperties: false` to the proof and
// something else to Ajv; either way a model's `approved: true` came back ready_for_review.
// A validator that throws instead of answering (Ajv's recursion out of stack on a proposal the
// host's wide limits admit) holds the proposal, like a rule set that throws.
import { createDigester } from '@toolseal/digests';
import { compileSchema } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { createProposalValidator } from './create-proposal-validator.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';

const digester = createDigester({ key: new Uint8Array(32).fill(7) });
const actor = { tenant_id: 'cedar', subject_id: 'drafter-1', roles: ['support_drafter'] };
const passRules: ProposalRuleSet<unknown, unknown> = Object.freeze({
  version: 'r1',
  owns: (actor: PrincipalContext) => actor.tenant_id === 'cedar',
  describes: () => true,
  statePermits: () => true,
  check: () => [],
  snapshot: (facts: unknown) => facts as never,
});
const facts = { lookup: () => ({ status: 'found' as const, facts: { ok: true } }) };

function validatorFor(schema: object, limits?: Record<string, number>) {
  return createProposalValidator({ contractId: 'probe', schema, facts, rules: passRules, digester, ...(limits === undefined ? {} : { limits }) });
}

const amountOnly = () => ({
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'integer', minimum: 1, maximum: 10 } },
});
const smuggled = { format: 'json_text' as const, text: '{"amount":5,"approved":true,"tenant_id":"other"}' };

describe('the proposal schema is read once, into a private copy', () => {
  it('the review: a schema compiled while open and closed afterwards is judged and compiled closed', async () => {
    const schema: Record<string, unknown> = amountOnly();
    compileSchema(schema); // other host code compiled it first, while it was open
    schema['additionalProperties'] = false;
    const decision = await validatorFor(schema).validate(actor, smuggled);
    expect(decision.decision).toBe('rejected_shape');
    expect(decision.ok).toBe(false);
  });

  it('the review: a getter keyword is read once, and the value read is the one compiled', async () => {
    let reads = 0;
    const schema = amountOnly();
    Object.defineProperty(schema, 'additionalProperties', {
      enumerable: true,
      get: () => {
        reads += 1;
        return reads === 1 ? false : true;
      },
    });
    const validator = validatorFor(schema);
    expect(reads).toBe(1);
    expect((await validator.validate(actor, smuggled)).decision).toBe('rejected_shape');
    expect((await validator.validate(actor, { format: 'json_text', text: '{"amount":5}' })).decision).toBe('ready_for_review');
    expect(reads).toBe(1);
  });

  it('changing the host\'s schema after start-up changes nothing', async () => {
    const schema: Record<string, unknown> = { ...amountOnly(), additionalProperties: false };
    const validator = validatorFor(schema);
    schema['additionalProperties'] = true;
    (schema['properties'] as Record<string, unknown>)['approved'] = { type: 'boolean' };
    expect((await validator.validate(actor, smuggled)).decision).toBe('rejected_shape');
  });

  it('refuses a schema that is not data (a function) with a TypeError at start-up', () => {
    const schema = { ...amountOnly(), additionalProperties: false, description: () => 'x' };
    expect(() => validatorFor(schema)).toThrow(TypeError);
    expect(() => validatorFor(schema)).toThrow(/schema must be JSON data/);
  });
});

describe('a shape validator that throws instead of answering', () => {
  it('holds the proposal (FACTS_UNAVAILABLE): never a throw at the caller', async () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['tree'],
      properties: { tree: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'array', maxItems: 1, items: { $ref: '#/$defs/node' } } },
    };
    const validator = validatorFor(schema, { maxDepth: 50_000, maxBytes: 1_048_576, maxTotalNodes: 60_000, maxArrayItems: 4 });
    expect((await validator.validate(actor, { format: 'json_text', text: '{"tree":[[]]}' })).decision).toBe('ready_for_review');
    const depth = 40_000;
    const deep = await validator.validate(actor, { format: 'json_text', text: `{"tree":${'['.repeat(depth)}${']'.repeat(depth)}}` });
    expect(deep.ok).toBe(false);
    expect(deep.decision).toBe('hold');
    if (!deep.ok) {
      expect(deep.error.code).toBe('FACTS_UNAVAILABLE');
      expect(deep.record.decision).toBe('hold');
    }
  });
});
