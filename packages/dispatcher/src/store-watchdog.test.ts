// The one timer that bounds every store call of a dispatcher (README, "Store calls that do not
// answer"): a call that has not settled after between 1x and 1.25x the timeout fails as if it had
// thrown, an abort of the call ends the wait at once, and the timer keeps the process alive only
// while something is pending.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallAbort } from './call-abort.js';
import { StoreWaitEnded, StoreWatchdog } from './store-watchdog.js';

const never = (): Promise<never> => new Promise<never>(() => undefined);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Timers keeping this process alive right now (an unref'd timer is not listed). */
const liveTimers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

async function failureOf(pending: Promise<unknown>): Promise<unknown> {
  try {
    await pending;
  } catch (error) {
    return error;
  }
  throw new Error('the wait did not fail');
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('StoreWatchdog', () => {
  it('passes a store answer, a rejection and a synchronous throw through unchanged', async () => {
    const watchdog = new StoreWatchdog(1_000);
    expect(await watchdog.watch(() => Promise.resolve('answer'))).toBe('answer');
    expect(await watchdog.watch(() => 'synchronous')).toBe('synchronous');
    const refused = new Error('connection refused');
    expect(await failureOf(watchdog.watch(() => Promise.reject(refused)))).toBe(refused);
    const thrown = new Error('thrown');
    expect(
      await failureOf(
        watchdog.watch(() => {
          throw thrown;
        }),
      ),
    ).toBe(thrown);
    expect(watchdog.pending).toBe(0);
  });

  it('the review: fails a call that never settles between 1x and 1.25x the timeout, as timed_out', async () => {
    const watchdog = new StoreWatchdog(80);
    const began = performance.now();
    const error = await failureOf(watchdog.watch(never));
    const waited = performance.now() - began;
    expect(error).toBeInstanceOf(StoreWaitEnded);
    expect((error as StoreWaitEnded).reason).toBe('timed_out');
    expect(waited).toBeGreaterThanOrEqual(79);
    // 1.25x is 100 ms; the rest is slack for a busy test machine.
    expect(waited).toBeLessThan(100 + 400);
    expect(watchdog.pending).toBe(0);
  });

  it('fails a call that began just before a tick after at least the whole timeout, not three ticks', async () => {
    const watchdog = new StoreWatchdog(80);
    // The first call starts the timer; the second begins 15 ms before its first tick (at 20 ms).
    const first = failureOf(watchdog.watch(never));
    await sleep(5);
    const began = performance.now();
    const second = await failureOf(watchdog.watch(never));
    const waited = performance.now() - began;
    expect(second).toBeInstanceOf(StoreWaitEnded);
    expect(waited).toBeGreaterThanOrEqual(79);
    await first;
  });

  it('answers a store promise that Promise.resolve cannot read (a throwing constructor getter) as a throw (the review)', async () => {
    const watchdog = new StoreWatchdog(10_000);
    const hostile = new Promise<never>(() => undefined);
    Object.defineProperty(hostile, 'constructor', {
      get() {
        throw new Error('constructor getter');
      },
    });
    const error = await failureOf(watchdog.watch(() => hostile));
    expect((error as Error).message).toBe('constructor getter');
    expect(watchdog.pending).toBe(0);
  });

  it('uses one timer for all pending calls, and none per call', async () => {
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const watchdog = new StoreWatchdog(10_000);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => watchdog.watch(() => Promise.resolve(index))));
    expect(answers).toHaveLength(50);
    for (let index = 0; index < 50; index += 1) await watchdog.watch(() => Promise.resolve(index));
    expect(setTimer).toHaveBeenCalledTimes(1);
  });

  it('ends the wait at once when the call is aborted, before or during it; what the store says later is ignored', async () => {
    const watchdog = new StoreWatchdog(60_000);
    const abort = new CallAbort();
    let settle: (value: string) => void = () => undefined;
    const pending = watchdog.watch(() => new Promise<string>((resolve) => (settle = resolve)), abort);
    const began = performance.now();
    setTimeout(() => abort.abort(), 10);
    const error = await failureOf(pending);
    expect(performance.now() - began).toBeLessThan(1_000);
    expect((error as StoreWaitEnded).reason).toBe('aborted');
    settle('late');
    expect(watchdog.pending).toBe(0);

    const late = watchdog.watch(() => Promise.reject(new Error('late failure')), abort);
    expect(((await failureOf(late)) as StoreWaitEnded).reason).toBe('aborted');
    // Without an abort, a call's wait is not ended by another call's abort.
    expect(await watchdog.watch(() => Promise.resolve('own'))).toBe('own');
  });

  it('keeps the process alive while a call is pending, and not once nothing is', async () => {
    const watchdog = new StoreWatchdog(60_000);
    const before = liveTimers();
    let settle: () => void = () => undefined;
    const pending = watchdog.watch(() => new Promise<void>((resolve) => (settle = resolve)));
    expect(liveTimers()).toBe(before + 1);
    settle();
    await pending;
    // The timer still exists (no new one for the next call) but no longer holds the process.
    expect(liveTimers()).toBe(before);
    let again: () => void = () => undefined;
    const next = watchdog.watch(() => new Promise<void>((resolve) => (again = resolve)));
    expect(liveTimers()).toBe(before + 1);
    again();
    await next;
    expect(liveTimers()).toBe(before);
  });

  it('stops ticking when a tick finds nothing pending', async () => {
    const watchdog = new StoreWatchdog(8);
    await watchdog.watch(() => Promise.resolve(1));
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    // Several ticks would have passed: the first one found the set empty and did not reschedule.
    await sleep(40);
    await watchdog.watch(() => Promise.resolve(2));
    expect(setTimer).toHaveBeenCalledTimes(1 + 1); // sleep's own timer, then a new watchdog timer
  });
});
