/**
 * The abort state of one call: aborted when its deadline passes or the host aborts the turn. The
 * `AbortSignal` handed to checks and handlers is made only when one of them reads it (an
 * `AbortController` costs more than a whole synchronous trusted check): a signal made after the
 * abort is aborted already, so every reader sees the same state at any time.
 */
export class CallAbort {
  #aborted = false;
  #controller: AbortController | null = null;
  #listeners: (() => void)[] | null = null;

  /** Whether the call was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The call's `AbortSignal`, made on first read. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Aborts the call once: the signal (if anyone read it), then the dispatcher's own listeners. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort();
    const listeners = this.#listeners;
    this.#listeners = null;
    if (listeners !== null) for (const listener of listeners) listener();
  }

  /** Calls `listener` on abort (never if already aborted); returns the function that removes it. */
  onAbort(listener: () => void): () => void {
    (this.#listeners ??= []).push(listener);
    return () => {
      const listeners = this.#listeners;
      if (listeners === null) return;
      const index = listeners.indexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    };
  }
}

/** Gives a plain object an own private slot for its call's abort, without changing its prototype. */
class AbortSlot {
  constructor(target: object) {
    // A base constructor that returns an object makes it `this` of the derived constructor below,
    // which then adds its private field to that object.
    return target;
  }
}

let signalProperty: PropertyDescriptor;

class SignalSlot extends AbortSlot {
  readonly #abort: CallAbort;

  constructor(target: object, abort: CallAbort) {
    super(target);
    this.#abort = abort;
  }

  static {
    signalProperty = {
      get(this: unknown): AbortSignal | undefined {
        return typeof this === 'object' && this !== null && #abort in this ? (this as SignalSlot).#abort.signal : undefined;
      },
      enumerable: true,
      configurable: true,
    };
  }
}

/**
 * Adds `signal` to `target` (a plain object the dispatcher just made): an own enumerable accessor,
 * so a spread of the object copies the signal, that reads `abort.signal`, made on first read.
 * One getter shared by every call: an object literal with `get signal()` made a closure and a
 * new hidden class per call (about 0.9 µs each here, twice per sealed call), this about 0.15 µs.
 */
export function withSignal<T extends object>(target: T, abort: CallAbort): T & { readonly signal: AbortSignal } {
  new SignalSlot(target, abort);
  Object.defineProperty(target, 'signal', signalProperty);
  return target as T & { readonly signal: AbortSignal };
}
