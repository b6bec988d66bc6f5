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

  it('the review: refills only for time after its latest refill, so a clock swinging back and forth adds nothing', () => {
    const limiter = new RateLimiter();
    const hourly = { capacity: 1, refillPerSecond: 1 / 3600 };
    const hour = 3_600_000;
    // Back an hour and forth again, no time passing in total: one token, then nothing.
    expect([0, -hour, 0, -hour, 0].map((now) => limiter.take('k', hourly, now).ok)).toEqual([true, false, false, false, false]);
    // Only real progress beyond the latest refill counts.
    expect(limiter.take('k', hourly, hour - 1).ok).toBe(false);
    expect(limiter.take('k', hourly, hour).ok).toBe(true);
  });

  it('never lets more calls through than capacity plus refill up to the latest time, whatever the clock does (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.integer({ min: -200, max: 200 }), { minLength: 1, maxLength: 60 }),
        (capacity, refillPerSecond, steps) => {
          const limiter = new RateLimiter();
          const first = steps[0] ?? 0;
          let now = 0;
          let latest = first;
          let allowed = 0;
          for (const step of steps) {
            now += step;
            latest = Math.max(latest, now);
            if (limiter.take('k', { capacity, refillPerSecond }, now).ok) allowed += 1;
          }
          // The bucket starts full at the first reading: refill covers at most [first, latest].
          expect(allowed).toBeLessThanOrEqual(capacity + Math.floor(((latest - first) * refillPerSecond) / 1000));
        },
      ),
    );
  });

  it('keeps a bounded number of buckets', () => {
    const limiter = new RateLimiter(2);
    const limit = { capacity: 1, refillPerSecond: 1 };
    limiter.take('a', limit, 0);
    limiter.take('b', limit, 0);
    limiter.take('c', limit, 0);
    // "a" was evicted: it starts full again.
    expect(limiter.take('a', limit, 0)).toEqual({ ok: true });
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
