import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import type { IdempotencyRecord, IdempotencyState } from './idempotency-store.js';
import { isPurgeable } from './is-purgeable.js';
import { createMemoryStores } from './memory-stores.js';

const T0 = Date.UTC(2026, 6, 19);
const REQUEST = 'a'.repeat(64);

function record(state: IdempotencyState, fields: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    key: 'k',
    request_sha256: REQUEST,
    intent_sha256: null,
    state,
    owner: 'host-1',
    fencing_token: T0 + 1,
    lease_expires_at: T0 + 10,
    created_at: T0,
    updated_at: T0,
    result: null,
    ...fields,
  };
}

describe('isPurgeable', () => {
  it('purges finished records and expired claims at the cutoff, never started or unknown ones', () => {
    const cutoff = T0 + 10;
    expect(isPurgeable(record('completed'), cutoff)).toBe(true);
    expect(isPurgeable(record('released'), cutoff)).toBe(true);
    expect(isPurgeable(record('claimed'), cutoff)).toBe(true);
    expect(isPurgeable(record('claimed', { lease_expires_at: T0 + 11 }), cutoff)).toBe(false);
    expect(isPurgeable(record('completed', { updated_at: T0 + 11 }), cutoff)).toBe(false);
    expect(isPurgeable(record('started', { lease_expires_at: T0 }), cutoff)).toBe(false);
    expect(isPurgeable(record('unknown'), cutoff)).toBe(false);
  });

  it('decides by state and times alone: a fencing token ahead of the clock does not hold a record back', () => {
    // The token floor keeps purged tokens from coming back; a token condition only delayed
    // retention (for a whole store once one purge raised the floor far ahead: review of the fix).
    for (const state of ['completed', 'released', 'claimed'] as const) {
      expect(isPurgeable(record(state, { fencing_token: T0 + 365 * 86_400_000 }), T0 + 10)).toBe(true);
    }
  });
});

describe('retention and fencing tokens (in-memory store)', () => {
  it('never hands a token out twice for a key, even when it was claimed more often than milliseconds passed before a purge', async () => {
    const clock = new ManualClock(T0);
    const { idempotencyStore: store } = createMemoryStores({ clock, digester: createDigester() });
    const tokens: number[] = [];
    // Claim and release three times within one millisecond: the token runs ahead of the clock.
    for (let round = 0; round < 3; round += 1) {
      const claim = await store.claim({ key: 'k', request_sha256: REQUEST, owner: `host-${round}`, lease_ms: 1 });
      if (claim.kind !== 'claimed') throw new Error(`round ${round}: ${claim.kind}`);
      tokens.push(claim.fencing_token);
      expect((await store.release({ key: 'k', fencing_token: claim.fencing_token })).ok).toBe(true);
    }
    expect(tokens).toEqual([T0 + 1, T0 + 2, T0 + 3]);
    // Released at T0: purged at once, its token ahead of the clock or not.
    expect(await store.purgeExpired({ older_than_ms: 0 })).toBe(1);
    const next = await store.claim({ key: 'k', request_sha256: REQUEST, owner: 'host-3', lease_ms: 1_000 });
    expect(next).toEqual({ kind: 'claimed', fencing_token: T0 + 4, lease_expires_at: T0 + 1_000, took_over: false });
    // Every earlier owner stays fenced off.
    for (const stale of tokens) {
      expect(await store.markStarted({ key: 'k', fencing_token: stale, lease_ms: 1_000 })).toEqual({ ok: false, reason: 'fenced', state: 'claimed' });
    }
  });
});
