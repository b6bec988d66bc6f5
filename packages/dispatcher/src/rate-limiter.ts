import { DispatcherConfigError } from './dispatcher-config-error.js';
import type { RateLimit } from './dispatcher-tool.js';

/**
 * Most buckets kept at once. When a new one is needed, the least recently used bucket is forgotten,
 * but only once it has refilled to its capacity: forgetting it then changes nothing (it would start
 * full again). While it has not, the new key waits as a spent bucket would (RATE_LIMIT), so that
 * many keys in use at once can never reset a spent bucket by pushing it out.
 */
const DEFAULT_MAX_BUCKETS = 10_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
  /** The bucket's own limit, to tell when it has refilled. */
  capacity: number;
  refillPerSecond: number;
}

/** The answer of `take`: go, or wait this long. */
export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Token buckets keyed by principal reference and tool. A bucket starts full, refills continuously
 * by the dispatcher's clock (only for time after its latest refill; that clock never goes back but
 * after a lasting correction, `DispatcherClock`), and one call takes one token. In process memory:
 * each host replica limits on its own. At most `maxBuckets` are kept (see DEFAULT_MAX_BUCKETS).
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxBuckets: number;

  constructor(maxBuckets = DEFAULT_MAX_BUCKETS) {
    this.#maxBuckets = maxBuckets;
  }

  /** Takes one token from the bucket `key` under `limit` at time `now`. */
  take(key: string, limit: RateLimit, now: number): RateDecision {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.#maxBuckets) {
        const oldest = this.#buckets.entries().next();
        if (oldest.done !== true) {
          const [oldestKey, oldestBucket] = oldest.value;
          const waitMs = msUntilFull(oldestBucket, now);
          // Still refilling: forgetting it would hand its key a full bucket again.
          if (waitMs > 0) return { ok: false, retryAfterMs: Math.min(3_600_000, Math.max(1, waitMs)) };
          this.#buckets.delete(oldestKey);
        }
      }
      bucket = { tokens: limit.capacity, updatedAt: now, capacity: limit.capacity, refillPerSecond: limit.refillPerSecond };
    } else {
      // Refresh the recency order (Map iteration order is insertion order).
      this.#buckets.delete(key);
      // Only time past the last refill counts. A time before it refills nothing and becomes the new
      // reference: the dispatcher's clock holds its time while the host's clock swings
      // (`DispatcherClock`) and steps back only after a lasting correction, which is followed here
      // too, so a glitch far in the future cannot keep the bucket from ever refilling again.
      if (now > bucket.updatedAt) {
        bucket.tokens = Math.min(limit.capacity, bucket.tokens + ((now - bucket.updatedAt) * limit.refillPerSecond) / 1000);
      }
      bucket.updatedAt = now;
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const waitMs = Math.ceil(((1 - bucket.tokens) * 1000) / limit.refillPerSecond);
    return { ok: false, retryAfterMs: Math.min(3_600_000, Math.max(1, waitMs)) };
  }
}

/** How long until `bucket` is full again at `now` (0: full already). */
function msUntilFull(bucket: Bucket, now: number): number {
  const elapsed = Math.max(0, now - bucket.updatedAt);
  const missing = bucket.capacity - Math.min(bucket.capacity, bucket.tokens + (elapsed * bucket.refillPerSecond) / 1000);
  return missing <= 0 ? 0 : Math.ceil((missing * 1000) / bucket.refillPerSecond);
}

/** Checks a rate limit from configuration (start-up); throws a `DispatcherConfigError`. */
export function checkRateLimit(toolName: string | null, where: string, value: unknown): RateLimit {
  if (typeof value !== 'object' || value === null) {
    throw new DispatcherConfigError(toolName, `${where} must be { capacity, refillPerSecond }`);
  }
  const { capacity, refillPerSecond } = value as Partial<RateLimit>;
  if (typeof capacity !== 'number' || !Number.isSafeInteger(capacity) || capacity < 1) {
    throw new DispatcherConfigError(toolName, `${where}.capacity must be a positive integer`);
  }
  if (typeof refillPerSecond !== 'number' || !Number.isFinite(refillPerSecond) || refillPerSecond <= 0) {
    throw new DispatcherConfigError(toolName, `${where}.refillPerSecond must be a positive number`);
  }
  return Object.freeze({ capacity, refillPerSecond });
}
