import { readClock, type Clock } from '@toolseal/audit';

/**
 * How long (real time, from a monotonic clock) the host's clock must keep reading below the held
 * time before the dispatcher follows it back.
 */
export const CLOCK_RESYNC_MS = 60_000;

/**
 * The dispatcher's view of the host's clock. The clock was checked at start-up; a clock that later
 * throws or answers something that is not epoch milliseconds must not turn one call's fallback
 * (the TOOL_ERROR every call can always be answered with) into an exception that rejects the
 * whole turn, so a failed reading is replaced by the last good one.
 *
 * `now()` also does not go below an earlier reading while the clock swings: deadlines, time
 * budgets, approval expiry and rate-limit refill are decided on it, and a clock set back must
 * neither stretch a deadline nor give an approval or a token bucket the same time twice. Held, not
 * forever: once the clock has read below the held time for `CLOCK_RESYNC_MS` of real time, the
 * step back is taken as a correction and followed, so one reading far in the future (a glitch)
 * cannot hold every later call at that time (all approvals expired, every rate limit spent) until
 * real time catches up with it.
 */
export class DispatcherClock {
  readonly #clock: Clock;
  readonly #monotonic: () => number;
  #last: number;
  /** Monotonic time of the first reading below `#last` in the current run of them, else null. */
  #behindSince: number | null = null;

  /**
   * Reads `clock` once; throws (RangeError) when that first reading is not epoch milliseconds.
   * `monotonic` measures how long the clock has read behind (`performance.now` by default).
   */
  constructor(clock: Clock, monotonic: () => number = () => performance.now()) {
    this.#clock = clock;
    this.#monotonic = monotonic;
    this.#last = readClock(clock);
  }

  /** Takes a good reading into account and returns it. */
  #observe(reading: number): number {
    if (reading >= this.#last) {
      this.#last = reading;
      this.#behindSince = null;
      return reading;
    }
    const now = this.#monotonic();
    if (this.#behindSince === null) {
      this.#behindSince = now;
    } else if (now - this.#behindSince >= CLOCK_RESYNC_MS) {
      // Behind for long enough: a real correction, followed.
      this.#last = reading;
      this.#behindSince = null;
    }
    return reading;
  }

  /**
   * Epoch milliseconds, not below an earlier reading unless the clock has read behind for
   * `CLOCK_RESYNC_MS`; the last good reading when the clock fails.
   */
  now(): number {
    try {
      this.#observe(readClock(this.#clock));
    } catch {
      // Keeps the last good reading.
    }
    return this.#last;
  }

  /**
   * The clock's current reading as a `Date`, for sealing and verifying (`observed_at` must not lie
   * in its future beyond the allowed skew): as the clock reads now, even below an earlier reading
   * (a package observed before the clock was set back is then refused, as on any host whose clock
   * runs behind), and the last good reading when the clock fails.
   */
  date(): Date {
    try {
      return new Date(this.#observe(readClock(this.#clock)));
    } catch {
      return new Date(this.#last);
    }
  }
}
