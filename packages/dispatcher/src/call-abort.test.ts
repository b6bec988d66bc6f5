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
    // JSON sees the members and the signal (an AbortSignal has no enumerable members), nothing else.
    expect(JSON.stringify(input)).toBe('{"tool_name":"get_order","deadline":5,"signal":{}}');
    abort.abort();
    expect(input.signal.aborted).toBe(true);
  });

  it('answers through a Proxy of the object and for an object inheriting from it, as a getter of its own did', () => {
    const abort = new CallAbort();
    const input = withSignal({ tool_name: 'get_order' }, abort);
    expect(new Proxy(input, {}).signal).toBe(abort.signal);
    expect((Object.create(input) as typeof input).signal).toBe(abort.signal);
  });

  it('leaves beside the signal nothing a check or handler could abort with, and nothing that reaches another call', () => {
    const abort = new CallAbort();
    const input = withSignal({ tool_name: 'get_order' }, abort);
    const symbols = Object.getOwnPropertySymbols(input);
    expect(symbols).toHaveLength(1);
    const key = symbols[0] as symbol;
    const source: unknown = (input as unknown as Record<symbol, unknown>)[key];
    expect(source).not.toBeInstanceOf(CallAbort);
    expect(Object.getOwnPropertyNames(source)).toEqual([]);
    expect(Object.getOwnPropertyNames(Object.getPrototypeOf(source))).toEqual(['constructor']);
    // A changed prototype of the source changes nothing: the getter reads its private field.
    Object.setPrototypeOf(source as object, { get signal() { return 'forged'; } });
    expect(input.signal).toBe(abort.signal);
    // A handler replacing it on its own input changes only what that input answers.
    const other = new CallAbort();
    const mine = withSignal({}, other);
    (input as unknown as Record<symbol, unknown>)[key] = (mine as unknown as Record<symbol, unknown>)[key];
    expect(input.signal).toBe(other.signal);
    abort.abort();
    expect(other.signal.aborted).toBe(false);
  });

  it('defines the source as an own member even where Object.prototype has a read-only member for its key', () => {
    const key = Object.getOwnPropertySymbols(withSignal({}, new CallAbort()))[0] as symbol;
    Object.defineProperty(Object.prototype, key, { configurable: true, writable: false, value: 'inherited' });
    try {
      const abort = new CallAbort();
      const input = withSignal({}, abort);
      expect(Object.hasOwn(input, key)).toBe(true);
      expect(input.signal).toBe(abort.signal);
    } finally {
      delete (Object.prototype as Record<symbol, unknown>)[key];
    }
  });

  it('defines the source on each new object even where Object.prototype has an accessor for its key', () => {
    const key = Object.getOwnPropertySymbols(withSignal({}, new CallAbort()))[0] as symbol;
    const captured: unknown[] = [];
    Object.defineProperty(Object.prototype, key, {
      configurable: true,
      set(value: unknown) {
        captured.push(value);
      },
      get() {
        return captured[0];
      },
    });
    try {
      const first = new CallAbort();
      const second = new CallAbort();
      const one = withSignal({}, first);
      const two = withSignal({}, second);
      expect(captured).toEqual([]);
      second.abort();
      expect(two.signal).toBe(second.signal);
      expect(two.signal.aborted).toBe(true);
      expect(one.signal.aborted).toBe(false);
    } finally {
      delete (Object.prototype as Record<symbol, unknown>)[key];
    }
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
