import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES, checkError, errorCatalogDocument, isErrorCode, makeError } from './index.js';

// Expected rows written from spec 000's table ("An error catalog expresses the recovery protocol")
// and spec 002's decisions, before the catalog was written.
const SPEC_TABLE = {
  UNKNOWN_TOOL: ['not_started', 'correct_input'],
  INVALID_ARGUMENTS: ['not_started', 'correct_input'],
  NOT_FOUND: ['not_started', 'none'],
  APPROVAL_REQUIRED: ['not_started', 'request_approval'],
  APPROVAL_INVALID: ['not_started', 'request_approval'],
  TIMEOUT_BEFORE_EXECUTE: ['not_started', 'retry_after'],
  RATE_LIMIT: ['not_started', 'retry_after'],
  OUTCOME_UNKNOWN: ['unknown', 'query_status'],
  IDEMPOTENCY_CONFLICT: ['not_started', 'human_review'],
  STATUS_CONFLICT: ['unknown', 'human_review'],
  OUTPUT_CONTRACT_VIOLATION: ['unknown', 'human_review'],
  TOOL_ERROR: ['unknown', 'human_review'],
  // Spec 002: business-rule rejection, hold when facts are unavailable, refresh when state changed.
  RULE_REJECTED: ['not_started', 'correct_input'],
  FACTS_UNAVAILABLE: ['not_started', 'hold'],
  STATE_CHANGED: ['not_started', 'refresh_state'],
  MALFORMED_TOOL_CALL: ['not_started', 'correct_input'],
} as const;

describe('ERROR_CATALOG', () => {
  it('holds exactly the codes of the specification table plus the proposal codes', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(SPEC_TABLE).sort());
  });

  it.each(Object.entries(SPEC_TABLE))('%s has the outcome and recovery the specification gives', (code, [outcome, recovery]) => {
    const entry = ERROR_CATALOG[code as keyof typeof SPEC_TABLE];
    expect(entry.code).toBe(code);
    expect(entry.outcome).toBe(outcome);
    expect(entry.recovery).toBe(recovery);
    // A status that says more than the outcome knows would be a lie: unknown outcome ⇔ unknown or failed status.
    if (entry.outcome === 'not_started') expect(entry.status).toBe('failed');
    expect(entry.safe_message.length).toBeGreaterThan(10);
    expect(entry.safe_message.length).toBeLessThanOrEqual(300);
  });

  it('NOT_FOUND does not distinguish a missing resource from one the actor may not use', () => {
    const message = ERROR_CATALOG.NOT_FOUND.safe_message.toLowerCase();
    for (const word of ['exist', 'permission', 'authoriz', 'tenant', 'owner', 'forbidden', 'denied']) {
      expect(message).not.toContain(word);
    }
  });

  it('only the retry_after codes may carry retry_after_ms, and RATE_LIMIT must', () => {
    for (const code of ERROR_CODES) {
      const policy = ERROR_CATALOG[code].retry_after.policy;
      if (ERROR_CATALOG[code].recovery === 'retry_after') expect(policy).not.toBe('forbidden');
      else expect(policy).toBe('forbidden');
    }
    expect(ERROR_CATALOG.RATE_LIMIT.retry_after.policy).toBe('required');
  });

  it('is frozen, so a host cannot rewrite a recovery at run time', () => {
    expect(Object.isFrozen(ERROR_CATALOG)).toBe(true);
    expect(Object.isFrozen(ERROR_CATALOG.NOT_FOUND)).toBe(true);
    expect(() => {
      (ERROR_CATALOG.NOT_FOUND as { recovery: string }).recovery = 'retry_after';
    }).toThrow(TypeError);
  });

  it('every exported object or array of the package is frozen at every level', async () => {
    const api: Record<string, unknown> = await import('./index.js');
    const seen = new Set<object>();
    const walk = (value: unknown, path: string): void => {
      if (typeof value !== 'object' || value === null || seen.has(value)) return;
      seen.add(value);
      expect(Object.isFrozen(value), `${path} is frozen`).toBe(true);
      for (const key of Reflect.ownKeys(value)) {
        const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
        if (descriptor !== undefined && 'value' in descriptor) walk(descriptor.value, `${path}.${String(key)}`);
      }
    };
    let exported = 0;
    for (const [name, value] of Object.entries(api)) {
      if (typeof value === 'function') continue;
      exported += 1;
      walk(value, name);
    }
    // ERROR_CATALOG, ERROR_CODES, the four rule lists and MAX_REASON_FIELD_LENGTH (a number).
    expect(exported).toBe(7);
    expect(seen.has(ERROR_CATALOG.NOT_FOUND.retry_after)).toBe(true);
    expect(seen.has(ERROR_CATALOG.RATE_LIMIT.retry_after)).toBe(true);
  });

  it('a nested write (retry_after of a shared policy) throws and changes nothing', () => {
    const before = checkError({ ...makeError('OUTCOME_UNKNOWN'), retry_after_ms: 1 });
    expect(() => {
      (ERROR_CATALOG.NOT_FOUND.retry_after as { policy: string }).policy = 'optional';
    }).toThrow(TypeError);
    expect(() => {
      (ERROR_CATALOG.RATE_LIMIT.retry_after as { max_ms: number }).max_ms = Number.MAX_SAFE_INTEGER;
    }).toThrow(TypeError);
    expect(() => {
      (ERROR_CATALOG.RULE_REJECTED.reason_rules as string[]).push('anything');
    }).toThrow(TypeError);
    expect(() => {
      (ERROR_CODES as string[]).push('ANYTHING');
    }).toThrow(TypeError);
    expect(ERROR_CATALOG.NOT_FOUND.retry_after).toEqual({ policy: 'forbidden' });
    expect(ERROR_CATALOG.OUTCOME_UNKNOWN.retry_after).toEqual({ policy: 'forbidden' });
    expect(ERROR_CATALOG.RATE_LIMIT.retry_after).toEqual({ policy: 'required', min_ms: 1, max_ms: 3_600_000 });
    expect(ERROR_CATALOG.RULE_REJECTED.reason_rules).not.toContain('anything');
    expect(checkError({ ...makeError('OUTCOME_UNKNOWN'), retry_after_ms: 1 })).toEqual(before);
    expect(before).toEqual({ ok: false, problems: ['retry_after_ms is not allowed'] });
    expect(() => makeError('RATE_LIMIT', { retryAfterMs: Number.MAX_SAFE_INTEGER })).toThrow(TypeError);
  });

  it('isErrorCode accepts own codes only', () => {
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    for (const value of ['toString', '__proto__', 'constructor', 'not_found', '', 42, null, undefined]) {
      expect(isErrorCode(value)).toBe(false);
    }
  });

  it('matches the committed schemas/error-catalog.json exactly (run `pnpm schemas` after a change)', () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', '..', 'schemas', 'error-catalog.json'), 'utf8'),
    );
    expect(committed).toEqual(errorCatalogDocument());
  });

  it('is a data document, not a schema: no $id or $schema a validator could register it under', () => {
    const document = errorCatalogDocument();
    expect(Object.keys(document)).toEqual(['catalog_id', 'catalog_version', 'codes']);
    expect(document.catalog_id).toBe('https://toolseal.dev/catalogs/error-catalog.json');
  });
});
