import type { CallAbort } from './call-abort.js';

/**
 * Full ticks a store call may stay pending before it is failed. A tick lasts a quarter of the
 * timeout, so a call fails after four full ticks: between 1x and 1.25x the timeout after it began
 * (it may begin anywhere inside the tick that is running).
 */
const TICKS_BEFORE_FAILURE = 4;

/**
 * Why the watchdog ended the wait for a store call. The dispatcher treats it exactly like a store
 * call that threw: the store may still apply the call later, or may never have received it.
 */
export class StoreWaitEnded extends Error {
  /** `timed_out`: no answer within the store timeout; `aborted`: the call was aborted meanwhile. */
  readonly reason: 'timed_out' | 'aborted';

  constructor(reason: 'timed_out' | 'aborted') {
    super(reason === 'timed_out' ? 'the store did not answer within storeTimeoutMs' : 'the call was aborted while the store was answering');
    this.name = 'StoreWaitEnded';
    this.reason = reason;
  }
}

/** One store call being waited for: the tick it began in, and how to end the wait. */
interface PendingCall {
  readonly startedAt: number;
  readonly fail: (reason: 'timed_out' | 'aborted') => void;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Bounds every store call of one dispatcher with one timer, not one per call (a sealed read makes
 * one store call, its audit append, and a timer per call would cost more than the rest of it).
 * Pending calls are kept in a set with the tick they began in; while the set is not empty, a
 * single timer ticks every quarter of the timeout and fails the calls that have waited four full
 * ticks. A tick that finds the set empty is not rescheduled. The timer keeps the process alive only
 * while something is pending: it is unref'd whenever the set empties and ref'd again when a call
 * begins, so a host with nothing pending can exit.
 */
export class StoreWatchdog {
  readonly #tickMs: number;
  readonly #pending = new Set<PendingCall>();
  #tick = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  /** `timeoutMs`: a whole number of milliseconds, at least 1 (checked by the caller). */
  constructor(timeoutMs: number) {
    this.#tickMs = Math.max(1, Math.ceil(timeoutMs / TICKS_BEFORE_FAILURE));
  }

  /** How many store calls are being waited for (diagnostics and tests). */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Calls `operation` and waits for its answer, at most the timeout. Rejects with `StoreWaitEnded`
   * when it has not settled in time or, when `abort` is given, once the call is aborted; a throw
   * or rejection of the store passes through unchanged. What the store settles with after the
   * wait ended is ignored (never an unhandled rejection).
   */
  watch<T>(operation: () => T | PromiseLike<T>, abort: CallAbort | null = null): Promise<T> {
    let answer: T | PromiseLike<T>;
    try {
      answer = operation();
    } catch (error) {
      return Promise.reject(error);
    }
    if (!isThenable(answer)) return Promise.resolve(answer);
    const pending = answer;
    return new Promise<T>((resolve, reject) => {
      let stopListening: (() => void) | null = null;
      // The set is the single record of whether the wait is still open: whichever comes first
      // (answer, timeout, abort) removes the call, and everything after it does nothing.
      const end = (): boolean => {
        if (!this.#pending.delete(call)) return false;
        stopListening?.();
        if (this.#pending.size === 0) this.#timer?.unref();
        return true;
      };
      const call: PendingCall = {
        startedAt: this.#tick,
        fail: (reason) => {
          if (end()) reject(new StoreWaitEnded(reason));
        },
      };
      this.#begin(call);
      if (abort !== null) {
        if (abort.aborted) call.fail('aborted');
        else stopListening = abort.onAbort(() => call.fail('aborted'));
      }
      try {
        Promise.resolve(pending).then(
          (value) => {
            if (end()) resolve(value);
          },
          (error: unknown) => {
            if (end()) reject(error);
          },
        );
      } catch (error) {
        // `Promise.resolve` threw: a native promise whose `constructor` getter throws, a store
        // answering far outside its contract, handled as a store that threw. No handler can be
        // attached to such a promise (every `then` reads `constructor` too), so its own later
        // rejection, if any, stays the store's unhandled rejection.
        if (end()) reject(error);
      }
    });
  }

  #begin(call: PendingCall): void {
    this.#pending.add(call);
    if (this.#timer === null) {
      this.#timer = setTimeout(this.#onTick, this.#tickMs);
    } else if (this.#pending.size === 1) {
      // The timer was left running unref'd when the set emptied: it must keep the process alive again.
      this.#timer.ref();
    }
  }

  readonly #onTick = (): void => {
    this.#tick += 1;
    for (const call of this.#pending) {
      // Began during tick `startedAt`; full ticks since then: this.#tick - startedAt - 1.
      if (this.#tick - call.startedAt > TICKS_BEFORE_FAILURE) call.fail('timed_out');
    }
    const timer = this.#timer;
    if (this.#pending.size === 0 || timer === null) {
      this.#timer = null;
      return;
    }
    timer.refresh();
  };
}
