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
