import { expectTypeOf, test } from 'vitest';
import type { JsonValue } from './json.js';
import type { PrincipalContext } from './principal.js';

test('a principal carries the host\'s further claims as JSON values', () => {
  // Review: the READMEs recommend a `suspended` flag a check reads, which the type refused.
  const principal: PrincipalContext = { tenant_id: 'cedar', subject_id: 's-1', roles: [], suspended: true, region: { code: 'eu' } };
  expectTypeOf(principal.tenant_id).toEqualTypeOf<string>();
  expectTypeOf(principal.roles).toEqualTypeOf<string[]>();
  // `noUncheckedIndexedAccess`: a claim is read as possibly absent.
  expectTypeOf(principal['suspended']).toEqualTypeOf<JsonValue | undefined>();
});

test('the identity fields keep their types, and a claim must be JSON data', () => {
  // @ts-expect-error roles is required
  const withoutRoles: PrincipalContext = { tenant_id: 'cedar', subject_id: 's-1' };
  // @ts-expect-error tenant_id is a string
  const numericTenant: PrincipalContext = { tenant_id: 7, subject_id: 's-1', roles: [] };
  // @ts-expect-error a function is no JSON value
  const withHandler: PrincipalContext = { tenant_id: 'cedar', subject_id: 's-1', roles: [], check: () => true };
  // @ts-expect-error undefined is no JSON value (the runtime copy refuses it)
  const withUndefined: PrincipalContext = { tenant_id: 'cedar', subject_id: 's-1', roles: [], suspended: undefined };
  expectTypeOf([withoutRoles, numericTenant, withHandler, withUndefined]).toBeArray();
});
