import { describe, expect, it } from 'vitest';
import { CallAbort, withSignal } from './call-abort.js';

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

describe('withSignal', () => {
  it('adds an own enumerable signal that a spread copies', () => {
    const abort = new CallAbort();
    const input = withSignal({ tool_name: 'get_order', deadline: 5 }, abort);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.keys(input)).toEqual(['tool_name', 'deadline', 'signal']);
    const descriptor = Object.getOwnPropertyDescriptor(input, 'signal');
    expect(descriptor?.enumerable).toBe(true);
    expect(typeof descriptor?.get).toBe('function');
    const copy = { ...input };
    expect(copy.signal).toBeInstanceOf(AbortSignal);
    expect(copy.signal).toBe(abort.signal);
    expect(JSON.parse(JSON.stringify({ ...input, signal: null }))).toEqual({ tool_name: 'get_order', deadline: 5, signal: null });
    abort.abort();
    expect(input.signal.aborted).toBe(true);
  });

  it('answers through a Proxy of the object and for an object inheriting from it, as a getter of its own did', () => {
    const abort = new CallAbort();
    const input = withSignal({ tool_name: 'get_order' }, abort);
    expect(new Proxy(input, {}).signal).toBe(abort.signal);
    expect((Object.create(input) as typeof input).signal).toBe(abort.signal);
  });

  it('keeps each object bound to its own abort, and reads nothing through an unrelated receiver', () => {
    const first = new CallAbort();
    const second = new CallAbort();
    const one = withSignal({}, first);
    const two = withSignal({}, second);
    second.abort();
    expect(one.signal.aborted).toBe(false);
    expect(two.signal.aborted).toBe(true);
    const getter = Object.getOwnPropertyDescriptor(one, 'signal')?.get;
    expect(getter?.call({})).toBeUndefined();
    expect(getter?.call(undefined)).toBeUndefined();
    expect(getter?.call(two)).toBe(second.signal);
    expect(Object.isFrozen(getter)).toBe(true);
  });
});
