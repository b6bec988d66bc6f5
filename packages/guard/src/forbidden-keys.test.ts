import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_KEYS, isForbiddenKey } from './forbidden-keys.js';

describe('FORBIDDEN_KEYS', () => {
  it('holds every own name of Object.prototype, so no key of a value shadows an inherited member', () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) expect(isForbiddenKey(name), name).toBe(true);
    expect(FORBIDDEN_KEYS).toContain('prototype');
    expect(isForbiddenKey('tostring')).toBe(false);
  });

  it("is what the contracts' JsonObject schema rules out as property names", () => {
    const require = createRequire(import.meta.url);
    const schema = JSON.parse(readFileSync(require.resolve('@toolseal/contracts/schemas/model-result.json'), 'utf8')) as {
      $defs: { JsonObject: { propertyNames: { not: { enum: string[] } } } };
    };
    expect([...schema.$defs.JsonObject.propertyNames.not.enum].sort()).toEqual([...FORBIDDEN_KEYS].sort());
  });
});
