// Review 6: the actor's `tenant_id` and `subject_id` were measured in UTF-16 units, but the
// `PrincipalContext` schema's maxLength 128 counts characters (code points, as Ajv counts them):
// `'🌲'.repeat(100)` (200 units) passed the schema and was refused by `validate` (and by the
// dispatcher, which uses the same check).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDigester } from '@toolseal/digests';
import { compileSchema } from '@toolseal/guard';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsPrincipalIdLength, MAX_PRINCIPAL_ID_LENGTH } from './copy-principal.js';
import { createRefundProposalValidator } from './refund-rules.js';

const tree = '\u{1F332}';
const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'schemas', 'principal-context.json'), 'utf8')) as {
  properties: { tenant_id: object };
};
const tenantIdSchema = compileSchema<string>({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema.properties.tenant_id });

describe('fitsPrincipalIdLength counts characters as the PrincipalContext schema does', () => {
  it('accepts up to 128 characters of any width, refuses more (and the empty string)', () => {
    expect(MAX_PRINCIPAL_ID_LENGTH).toBe(128);
    const cases: [string, boolean][] = [
      ['', false],
      ['a', true],
      ['a'.repeat(128), true],
      ['a'.repeat(129), false],
      [tree.repeat(100), true], // 200 units
      [tree.repeat(128), true], // 256 units
      [tree.repeat(129), false], // 258 units: refused without counting
      [`${tree.repeat(64)}${'a'.repeat(64)}`, true], // 192 units, 128 characters
      [`${tree.repeat(64)}${'a'.repeat(65)}`, false], // 193 units, 129 characters
      [`a${tree.repeat(128)}`, false], // 257 units
      ['s'.repeat(5000), false],
    ];
    for (const [id, fits] of cases) {
      expect(fitsPrincipalIdLength(id), `${id.length} units`).toBe(fits);
      expect(tenantIdSchema(id), `schema, ${id.length} units`).toBe(fits);
    }
  });

  it('property: agrees with the published schema for strings of ASCII and astral characters', () => {
    const character = fc.oneof(fc.constant('a'), fc.constant(tree), fc.constant('\u00e9'), fc.constant('\u{10FFFF}'));
    fc.assert(
      fc.property(fc.array(character, { maxLength: 300 }), (characters) => {
        const id = characters.join('');
        expect(fitsPrincipalIdLength(id)).toBe(tenantIdSchema(id));
      }),
      { numRuns: 300 },
    );
  });

  it('validate accepts an actor whose ids the schema accepts, and refuses one of 129 characters', async () => {
    const validator = createRefundProposalValidator({ digester: createDigester({ key: new Uint8Array(32).fill(2) }), orders: { loadOrder: () => ({ status: 'not_available' }) } });
    const text = { format: 'json_text' as const, text: '{}' };
    for (const actor of [
      { tenant_id: tree.repeat(100), subject_id: 'support-drafter-1', roles: [] },
      { tenant_id: 'cedar', subject_id: tree.repeat(128), roles: [] },
    ]) {
      expect((await validator.validate(actor, text)).decision).toBe('rejected_shape');
    }
    await expect(validator.validate({ tenant_id: tree.repeat(129), subject_id: 'support-drafter-1', roles: [] }, text)).rejects.toThrow(
      /^validate: actor\.tenant_id must be a string of 1 to 128 characters$/,
    );
    await expect(validator.validate({ tenant_id: 'cedar', subject_id: `${tree.repeat(64)}${'a'.repeat(65)}`, roles: [] }, text)).rejects.toThrow(
      /^validate: actor\.subject_id must be a string of 1 to 128 characters$/,
    );
  });
});
