import type { PrincipalContext } from '@toolseal/contracts';
// Review 6: the catalog's pointer pattern allows 16 segments of 64 characters, but
// `ErrorReason.field` has maxLength 256 (schemas/model-error.json). A closed contract of five
// nested objects with 64-character names made the validator answer a shape reason 262 characters
// long, an error the published schema refuses. Shape reasons are now cut to the longest declared
// prefix that fits (at a segment boundary), and a rule reason naming a longer field holds.
import { createDigester } from '@toolseal/digests';
import { checkError, makeError, MAX_REASON_FIELD_LENGTH } from '@toolseal/errors';
import { describe, expect, it } from 'vitest';
import { createProposalValidator } from './create-proposal-validator.js';
import type { ProposalRuleSet } from './proposal-rule-set.js';
import { expectHold, settle } from './__fixtures__/outcomes.js';
import { cedar } from './__fixtures__/cedar-orders.js';

const digester = createDigester({ key: new Uint8Array(32).fill(3) });
const clock = () => new Date('2026-07-19T00:00:00Z');
const name = 'a'.repeat(64);

/** Five nested closed objects: `/a…a/a…a/a…a/a…a/x` is a declared field of 4 × 65 + 2 = 262 characters. */
function deepSchema(): object {
  let schema: object = { type: 'object', additionalProperties: false, required: ['x'], properties: { x: { type: 'integer' } } };
  for (let level = 0; level < 4; level += 1) schema = { type: 'object', additionalProperties: false, required: [name], properties: { [name]: schema } };
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema };
}

function validator(check: ProposalRuleSet<unknown, unknown>['check'] = () => []) {
  return createProposalValidator<unknown, unknown>({
    contractId: 'deep',
    schema: deepSchema(),
    digester,
    clock,
    facts: { lookup: () => ({ status: 'found', facts: { tenant_id: 'cedar' } }) },
    rules: { version: 'v', owns: (actor: PrincipalContext) => actor.tenant_id === 'cedar', describes: () => true, statePermits: () => true, check, snapshot: () => 'facts' },
  });
}

describe('reason fields never exceed 256 characters', () => {
  it('a shape reason at a deep declared field is cut to its longest declared prefix that fits', async () => {
    const decision = await validator().validate(cedar.actor, { format: 'json_value', value: { [name]: { [name]: { [name]: { [name]: {} } } } } });
    expect(decision.decision).toBe('rejected_shape');
    if (decision.ok) return;
    const expected = `/${name}/${name}/${name}`; // /…/…/…/… would be 260
    expect(decision.error.reasons).toEqual([{ field: expected, rule: 'required' }]);
    expect(decision.record.reasons).toEqual([{ field: expected, rule: 'required' }]);
    for (const reason of decision.error.reasons) expect(reason.field.length).toBeLessThanOrEqual(MAX_REASON_FIELD_LENGTH);
    expect(checkError(decision.error).ok).toBe(true);
  });

  it('a guard violation or a schema reason deeper in such a contract is cut the same way, and a short field is kept as it is', async () => {
    const typed = await validator().validate(cedar.actor, { format: 'json_value', value: { [name]: { [name]: { [name]: { [name]: { x: 1.5 } } } } } });
    if (typed.ok) throw new Error('must be refused');
    expect(typed.error.reasons).toEqual([{ field: `/${name}/${name}/${name}`, rule: 'type' }]);
    // The guard names the object holding a duplicate key: `/a…a/a…a/a…a/a…a`, 260 characters.
    const text = `{"${name}":{"${name}":{"${name}":{"${name}":{"x":1,"x":2}}}}}`;
    const duplicate = await validator().validate(cedar.actor, { format: 'json_text', text });
    if (duplicate.ok) throw new Error('must be refused');
    expect(duplicate.error.reasons).toEqual([{ field: `/${name}/${name}/${name}`, rule: 'duplicate_key' }]);
    const shallow = await validator().validate(cedar.actor, { format: 'json_value', value: { [name]: 'no object' } });
    if (shallow.ok) throw new Error('must be refused');
    expect(shallow.error.reasons).toEqual([{ field: `/${name}`, rule: 'type' }]);
  });

  it('a rule reason naming a declared field longer than 256 characters holds (the catalog refuses it), one within it is kept', async () => {
    const proposal = { format: 'json_value' as const, value: { [name]: { [name]: { [name]: { [name]: { x: 1 } } } } } };
    const long = `/${name}/${name}/${name}/${name}/x`;
    expect(long).toHaveLength(262);
    expectHold(await settle(() => validator(() => [{ field: long, rule: 'amount_mismatch' }]).validate(cedar.actor, proposal)), 'long rule field');
    const fits = `/${name}/${name}/${name}`;
    const decision = await validator(() => [{ field: fits, rule: 'amount_mismatch' }]).validate(cedar.actor, proposal);
    expect(decision.ok ? null : decision.error).toEqual(makeError('RULE_REJECTED', { reasons: [{ field: fits, rule: 'amount_mismatch' }] }));
  });
});
