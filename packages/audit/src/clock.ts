/**
 * The time source of a store. Every lease, retention and `recorded_at` decision reads `now()` from
 * the injected clock, never from `Date.now()` or the database clock, so tests can move time and
 * many hosts agree on one rule (see the README on clock skew).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch, a non-negative safe integer. */
  now(): number;
}

/** The wall clock of this process. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to: for tests and simulations. */
export class ManualClock implements Clock {
  #now: number;

  constructor(start: number) {
    this.#now = checkEpochMs(start);
  }

  now(): number {
    return this.#now;
  }

  /** Moves the clock forward by `milliseconds` (a non-negative safe integer). */
  advance(milliseconds: number): number {
    if (!Number.isSafeInteger(milliseconds) || milliseconds < 0) {
      throw new RangeError('ManualClock.advance needs a non-negative safe integer');
    }
    this.#now = checkEpochMs(this.#now + milliseconds);
    return this.#now;
  }

  /** Sets the clock to `epochMs`; moving backwards is allowed, to model skew between hosts. */
  set(epochMs: number): void {
    this.#now = checkEpochMs(epochMs);
  }
}

/** Reads `clock.now()` and fails loudly (misconfiguration) when it is not a usable epoch. */
export function readClock(clock: Clock): number {
  return checkEpochMs(clock.now());
}

function checkEpochMs(value: number): number {
  // 8.64e15 is the largest instant a JavaScript Date can represent.
  if (!Number.isSafeInteger(value) || value < 0 || value > 8_640_000_000_000_000) {
    throw new RangeError('clock time must be a non-negative safe integer of epoch milliseconds');
  }
  return value;
}
