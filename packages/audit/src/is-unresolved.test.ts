import { describe, expect, it } from 'vitest';
import type { IdempotencyRecord, IdempotencyState } from './idempotency-store.js';
import { isUnresolved } from './is-unresolved.js';

function record(state: IdempotencyState, lease_expires_at: number): IdempotencyRecord {
  return {
    key: 'k',
    request_sha256: 'a'.repeat(64),
    intent_sha256: null,
    state,
    owner: 'host-1',
    fencing_token: 1,
    lease_expires_at,
    created_at: 0,
    updated_at: 0,
    result: null,
  };
}

describe('isUnresolved', () => {
  it('is true exactly where a write may be running or may have run without a known outcome', () => {
    const now = 100;
    expect(isUnresolved(record('started', 200), now)).toBe(true);
    expect(isUnresolved(record('started', 50), now)).toBe(true);
    expect(isUnresolved(record('unknown', 50), now)).toBe(true);
    expect(isUnresolved(record('claimed', 101), now)).toBe(true);
    expect(isUnresolved(record('claimed', 100), now)).toBe(false);
    expect(isUnresolved(record('completed', 200), now)).toBe(false);
    expect(isUnresolved(record('released', 200), now)).toBe(false);
  });
});
