import { describe, expect, it } from 'vitest';
import { CallAbort } from './call-abort.js';
import { runWithDeadline } from './run-with-deadline.js';

describe('runWithDeadline', () => {
  it('returns a synchronous answer synchronously, without a timer', () => {
    const run = runWithDeadline((value: number) => value + 1, 1, new CallAbort(), 10);
    expect(run).toEqual({ kind: 'returned', value: 2 });
  });

  it('maps a synchronous throw and a rejection to threw, dropping the exception', async () => {
    expect(runWithDeadline(() => { throw new Error('secret'); }, null, new CallAbort(), 10)).toEqual({ kind: 'threw' });
    expect(await runWithDeadline(() => Promise.reject(new Error('secret')), null, new CallAbort(), 10)).toEqual({ kind: 'threw' });
  });

  it('maps a thenable whose then throws to threw', async () => {
    const hostile = { then: () => { throw new Error('boom'); } };
    expect(await runWithDeadline(() => hostile, null, new CallAbort(), 10)).toEqual({ kind: 'threw' });
  });

  it('times out a promise that never settles and aborts the signal', async () => {
    const abort = new CallAbort();
    const run = await runWithDeadline(() => new Promise(() => undefined), null, abort, 5);
    expect(run).toEqual({ kind: 'timed_out' });
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
  });

  it('ends as timed_out when the call is aborted from outside, and ignores a later answer', async () => {
    const abort = new CallAbort();
    let settle: (value: string) => void = () => undefined;
    const pending = runWithDeadline(() => new Promise<string>((resolve) => { settle = resolve; }), null, abort, 10_000);
    abort.abort();
    settle('late');
    expect(await pending).toEqual({ kind: 'timed_out' });
  });

  it('answers timed_out at once when the call is already aborted', async () => {
    const abort = new CallAbort();
    abort.abort();
    expect(await runWithDeadline(() => new Promise(() => undefined), null, abort, 10_000)).toEqual({ kind: 'timed_out' });
  });

  it('handles the rejection of a promise it stopped waiting for (review: an unhandled rejection ended the host process)', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      // Aborted before the answer came back, then the answer rejects; and out of time, then it rejects.
      const aborted = new CallAbort();
      const late = runWithDeadline(
        () => {
          aborted.abort();
          return new Promise((_resolve, reject) => setTimeout(() => reject(new Error('facts source down: password=hunter2')), 5));
        },
        null,
        aborted,
        10_000,
      );
      expect(await late).toEqual({ kind: 'timed_out' });
      const slow = runWithDeadline(() => new Promise((_resolve, reject) => setTimeout(() => reject(new Error('too late')), 20)), null, new CallAbort(), 1);
      expect(await slow).toEqual({ kind: 'timed_out' });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('treats a deadline beyond the timer range as far away, not as 1 ms', async () => {
    const run = runWithDeadline(() => new Promise((resolve) => setTimeout(() => resolve('late but fine'), 20)), null, new CallAbort(), Number.POSITIVE_INFINITY);
    expect(await run).toEqual({ kind: 'returned', value: 'late but fine' });
  });

  it('returns a promise answer that beats the deadline', async () => {
    expect(await runWithDeadline(async () => 'ok', null, new CallAbort(), 1_000)).toEqual({ kind: 'returned', value: 'ok' });
  });
});
