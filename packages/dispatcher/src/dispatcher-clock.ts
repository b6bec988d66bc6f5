import { readClock, type Clock } from '@toolseal/audit';

/**
 * The dispatcher's view of the host's clock. The clock was checked at start-up; a clock that later
 * throws or answers something that is not epoch milliseconds must not turn one call's fallback
 * (the TOOL_ERROR every call can always be answered with) into an exception that rejects the
 * whole turn, so a failed reading is replaced by the last good one.
 *
 * `now()` also never goes below an earlier reading: deadlines, time budgets, approval expiry and
 * rate-limit refill are decided on it, and a clock set back must neither stretch a deadline nor
 * give an approval or a token bucket the same time twice.
 */
export class DispatcherClock {
  readonly #clock: Clock;
  #last: number;

  /** Reads `clock` once; throws (RangeError) when that first reading is not epoch milliseconds. */
  constructor(clock: Clock) {
    this.#clock = clock;
    this.#last = readClock(clock);
  }

  /** Epoch milliseconds, never below an earlier reading; the last good reading when the clock fails. */
  now(): number {
    try {
      const reading = readClock(this.#clock);
      if (reading > this.#last) this.#last = reading;
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
      const reading = readClock(this.#clock);
      if (reading > this.#last) this.#last = reading;
      return new Date(reading);
    } catch {
      return new Date(this.#last);
    }
  }
}
