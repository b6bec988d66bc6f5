import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DispatcherConfigError } from './dispatcher-config-error.js';
import { RateLimiter, checkRateLimit } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('allows a burst of capacity, then answers with the wait until the next token', () => {
    const limiter = new RateLimiter();
    const limit = { capacity: 3, refillPerSecond: 2 };
    expect([0, 0, 0, 0].map((now) => limiter.take('a', limit, now))).toEqual([
      { ok: true },
      { ok: true },
      { ok: true },
      { ok: false, retryAfterMs: 500 },
    ]);
    expect(limiter.take('a', limit, 499)).toEqual({ ok: false, retryAfterMs: 2 });
    expect(limiter.take('a', limit, 500)).toEqual({ ok: true });
    expect(limiter.take('b', limit, 500)).toEqual({ ok: true });
  });

  it('never lets more calls through than capacity plus refill over any window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 60 }),
        (capacity, refillPerSecond, gaps) => {
          const limiter = new RateLimiter();
          let now = 0;
          let allowed = 0;
          for (const gap of gaps) {
            now += gap;
            const decision = limiter.take('k', { capacity, refillPerSecond }, now);
            if (decision.ok) allowed += 1;
            else expect(decision.retryAfterMs).toBeGreaterThanOrEqual(1);
          }
          expect(allowed).toBeLessThanOrEqual(capacity + Math.floor((now * refillPerSecond) / 1000));
        },
      ),
    );
  });

  it('a time before the latest refill refills nothing and becomes the new reference', () => {
    const limiter = new RateLimiter();
    const hourly = { capacity: 1, refillPerSecond: 1 / 3600 };
    const hour = 3_600_000;
    expect(limiter.take('k', hourly, 0).ok).toBe(true);
    // The step back itself adds nothing; the dispatcher's clock holds short swings before they get here.
    expect(limiter.take('k', hourly, -hour).ok).toBe(false);
    expect(limiter.take('k', hourly, -1).ok).toBe(false);
    // A lasting correction is followed: an hour after it, a token.
    expect(limiter.take('k', hourly, 0).ok).toBe(true);
  });

  it('the review: one reading far in the future does not stop refills once the clock is back', () => {
    const limiter = new RateLimiter();
    const perSecond = { capacity: 2, refillPerSecond: 10 };
    const tenYears = 10 * 365 * 86_400_000;
    expect(limiter.take('k', perSecond, 0).ok).toBe(true);
    expect(limiter.take('k', perSecond, tenYears).ok).toBe(true);
    expect(limiter.take('k', perSecond, 60_000).ok).toBe(true);
    expect(limiter.take('k', perSecond, 60_000).ok).toBe(false);
    // Before, the bucket waited for real time to reach the glitch: ten years.
    expect(limiter.take('k', perSecond, 60_100).ok).toBe(true);
  });

  it('never lets more calls through than capacity plus refill over the forward steps of its clock (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: -200, max: 200 }), { minLength: 1, maxLength: 60 }),
        (capacity, refillPerSecond, steps) => {
          const limiter = new RateLimiter();
          let now = 0;
          let forward = 0;
          let allowed = 0;
          steps.forEach((step, index) => {
            now += step;
            // The first reading only creates the (full) bucket; later forward steps refill it.
            if (index > 0 && step > 0) forward += step;
            if (limiter.take('k', { capacity, refillPerSecond }, now).ok) allowed += 1;
          });
          expect(allowed).toBeLessThanOrEqual(capacity + Math.floor((forward * refillPerSecond) / 1000));
        },
      ),
    );
  });

  it('keeps a bounded number of buckets, forgetting one only once it has refilled (review: new keys reset spent buckets)', () => {
    const limiter = new RateLimiter(2);
    const limit = { capacity: 1, refillPerSecond: 1 };
    expect(limiter.take('a', limit, 0)).toEqual({ ok: true });
    expect(limiter.take('b', limit, 0)).toEqual({ ok: true });
    // Both buckets are spent: a third key waits until the oldest has refilled, as a spent one would.
    expect(limiter.take('c', limit, 0)).toEqual({ ok: false, retryAfterMs: 1_000 });
    expect(limiter.take('c', limit, 400)).toEqual({ ok: false, retryAfterMs: 600 });
    // However many keys come, a spent bucket is never pushed out and so never reset.
    for (let index = 0; index < 100; index++) expect(limiter.take(`flood-${index}`, limit, 500).ok).toBe(false);
    expect(limiter.take('a', limit, 500)).toEqual({ ok: false, retryAfterMs: 500 });
    // Refilled, the least recently used bucket ("b") is forgotten for the new key.
    expect(limiter.take('c', limit, 1_000)).toEqual({ ok: true });
    expect(limiter.take('a', limit, 1_000)).toEqual({ ok: true });
    expect(limiter.take('a', limit, 1_000)).toEqual({ ok: false, retryAfterMs: 1_000 });
  });
});

describe('checkRateLimit', () => {
  it.each([null, {}, { capacity: 0, refillPerSecond: 1 }, { capacity: 1.5, refillPerSecond: 1 }, { capacity: 1, refillPerSecond: 0 }])(
    'refuses %j at start-up',
    (value) => {
      expect(() => checkRateLimit('kb_search', 'rateLimit', value)).toThrow(DispatcherConfigError);
    },
  );
});
