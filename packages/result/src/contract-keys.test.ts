import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from './__fixtures__/load-fixtures.js';
import {
  CONTRACT_KEYS,
  CONTRACT_KEY_LIST,
  CONTRACT_REVISIONS,
  CONTRACT_REVISION_LIST,
  PROVIDER_CONTEXT_KEYS,
  PROVIDER_CONTEXT_KEY_LIST,
} from './contract-keys.js';

const SCHEMAS_DIR = join(FIXTURES_DIR, '..', 'schemas');
const propertiesOf = (name: string): string[] =>
  Object.keys((JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as { properties: object }).properties);

describe('the member lists of the contract types', () => {
  it('name every member of the generated ToolContract and provider context schemas, in declared order', () => {
    expect([...CONTRACT_KEY_LIST]).toEqual(propertiesOf('tool-contract'));
    expect([...PROVIDER_CONTEXT_KEY_LIST]).toEqual(propertiesOf('provider-context'));
    expect(CONTRACT_REVISION_LIST.every((key) => key.endsWith('_revision'))).toBe(true);
    expect(CONTRACT_KEY_LIST.filter((key) => key.endsWith('_revision'))).toEqual([...CONTRACT_REVISION_LIST]);
  });

  it('are exported frozen, equal to the plain lists the package loops over (which never leave it)', () => {
    const pairs = [
      [CONTRACT_KEYS, CONTRACT_KEY_LIST],
      [CONTRACT_REVISIONS, CONTRACT_REVISION_LIST],
      [PROVIDER_CONTEXT_KEYS, PROVIDER_CONTEXT_KEY_LIST],
    ] as const;
    for (const [exported, internal] of pairs) {
      expect(Object.isFrozen(exported)).toBe(true);
      expect(exported).not.toBe(internal);
      expect([...exported]).toEqual([...internal]);
    }
  });
});
