import type { CallAbort } from './call-abort.js';

/** How a handler (or status query) ended. */
export type DeadlineRun =
  /** It answered: the value is untrusted and still has to be read. */
  | { kind: 'returned'; value: unknown }
  /** It threw or its promise rejected. The exception itself is dropped: it never reaches the model. */
  | { kind: 'threw' }
  /** It did not answer before the deadline, or the host aborted the turn. */
  | { kind: 'timed_out' };

const THREW: DeadlineRun = Object.freeze({ kind: 'threw' });
/** The longest delay `setTimeout` honours (a longer one fires after 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;
const TIMED_OUT: DeadlineRun = Object.freeze({ kind: 'timed_out' });

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs `operation(input)` under a deadline `remainingMs` from now. A synchronous answer comes back
 * synchronously (no timer, no promise). An asynchronous one races a timer: when the timer fires,
 * or `abort` is aborted by the host, `abort` is aborted (the handler's `signal`) and the run ends as
 * `timed_out`; whatever the handler settles with later is ignored.
 *
 * Never throws and never rejects.
 */
export function runWithDeadline<TInput>(
  operation: (input: TInput) => unknown,
  input: TInput,
  abort: CallAbort,
  remainingMs: number,
): DeadlineRun | Promise<DeadlineRun> {
  let answer: unknown;
  try {
    answer = operation(input);
    if (!isThenable(answer)) return { kind: 'returned', value: answer };
  } catch {
    return THREW;
  }
  const pending = answer;
  return new Promise<DeadlineRun>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopListening = (): void => {};
    let settled = false;
    const finish = (run: DeadlineRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stopListening();
      // Out of time or aborted by the host: the handler's signal says so.
      if (run === TIMED_OUT) abort.abort();
      resolve(run);
    };
    // Handlers first, whatever happens next: a run that stops waiting (already aborted, or later
    // out of time) leaves the promise to settle on its own, and a rejection nobody handles ends
    // the host process under Node's defaults.
    try {
      Promise.resolve(pending).then(
        (value) => finish({ kind: 'returned', value }),
        () => finish(THREW),
      );
    } catch {
      // A thenable whose `then` getter throws on the second read.
      finish(THREW);
      return;
    }
    if (abort.aborted) {
      finish(TIMED_OUT);
      return;
    }
    timer = setTimeout(() => finish(TIMED_OUT), Math.min(MAX_TIMER_MS, Math.max(0, remainingMs)));
    stopListening = abort.onAbort(() => finish(TIMED_OUT));
  });
}
