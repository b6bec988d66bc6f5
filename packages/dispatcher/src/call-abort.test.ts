import { describe, expect, it } from 'vitest';
import { CallAbort } from './call-abort.js';

describe('CallAbort', () => {
  it('makes its signal on first read, and the same signal after', () => {
    const abort = new CallAbort();
    const signal = abort.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(abort.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    abort.abort();
    expect(signal.aborted).toBe(true);
    expect(abort.aborted).toBe(true);
  });

  it('hands out an aborted signal when read after the abort', () => {
    const abort = new CallAbort();
    abort.abort();
    expect(abort.signal.aborted).toBe(true);
  });

  it('tells its listeners once, after the signal, and never a removed one', () => {
    const abort = new CallAbort();
    const heard: string[] = [];
    abort.signal.addEventListener('abort', () => heard.push('signal'));
    abort.onAbort(() => heard.push('first'));
    const remove = abort.onAbort(() => heard.push('removed'));
    abort.onAbort(() => heard.push('last'));
    remove();
    abort.abort();
    abort.abort();
    expect(heard).toEqual(['signal', 'first', 'last']);
    // Removing after the abort is harmless.
    remove();
  });
});
