import type { DispatcherStores } from '@toolseal/dispatcher';
import { describeError } from './describe-error.js';

/** A store call that failed, as the demo reports it (exit code 2). */
export interface StoreFailure {
  /** The store method, e.g. `auditLog.append`. */
  operation: string;
  /** One line naming the method and what went wrong, e.g. `auditLog.append: disk I/O error`. */
  message: string;
}

export interface WatchedStores {
  /** The same stores with every method call watched: answers and errors pass through unchanged. */
  stores: DispatcherStores;
  /**
   * The first store call that threw, rejected or went unanswered for `answerWithinMs`; else the
   * first one still waiting for an answer; else `null`. Ask when none of the demo's own store calls
   * is running, e.g. right after a dispatch: the dispatcher awaits every store call it makes, up to
   * its `storeTimeoutMs`, so a call still waiting then is one it stopped waiting for.
   */
  failure(): StoreFailure | null;
}

export interface WatchOptions {
  /**
   * A call unanswered for this long (ms) is a failure, even if its answer comes later: keep it
   * below the dispatcher's `storeTimeoutMs`. The dispatcher stops waiting after that (1x to 1.25x
   * of it) and carries on (a retry, a minimal audit entry, TIMEOUT_BEFORE_EXECUTE), and the late
   * answer can land before the turn ends: a PostgreSQL row lock released after 18 s answered the
   * first appends and their retries at once, and every call of the turn looked sealed and audited.
   * `auditLog.verifyChain`, which the dispatcher never calls and whose time grows with the log,
   * gets `VERIFY_MS_PER_ENTRY` more per entry the watch has seen (the highest sequence of an
   * `append` or `head` answer: call `head` first for a log that holds earlier runs), and is the one
   * call whose promise the watch ends: unanswered by then, it rejects with that failure, so that
   * the demo stops waiting for it.
   */
  answerWithinMs: number;
}

/** What the chain verification may take per entry (ms), on top of `answerWithinMs`: some 30 times what one takes on a slow store. */
export const VERIFY_MS_PER_ENTRY = 1;

/**
 * Watches the calls made to `stores`. The dispatcher answers a store failure as a value (a TOOL_ERROR
 * or TIMEOUT_BEFORE_EXECUTE for that call, sometimes after a retry that works): right for a host
 * serving a model, but the demo shows the scenario on a working store, so it must hear of every
 * failure, even one the dispatcher recovered from.
 */
export function watchStores(stores: DispatcherStores, options: WatchOptions): WatchedStores {
  const { answerWithinMs } = options;
  let failed: StoreFailure | null = null;
  const waiting = new Map<number, string>();
  let nextCall = 0;
  const fail = (operation: string, error: unknown): void => {
    failed ??= { operation, message: `${operation}: ${describeError(error)}` };
  };
  /** The highest entry sequence an `append` or `head` answered (what `verifyChain` will walk). */
  let knownEntries = 0;
  const noteEntries = (operation: string, result: unknown): void => {
    if (operation !== 'auditLog.append' && operation !== 'auditLog.head') return;
    const sequence: unknown = typeof result === 'object' && result !== null ? Reflect.get(result, 'sequence') : undefined;
    if (typeof sequence === 'number' && Number.isSafeInteger(sequence) && sequence > knownEntries) knownEntries = sequence;
  };
  const unanswered = (operation: string, withinMs = answerWithinMs): StoreFailure => ({ operation, message: `${operation} did not answer within ${withinMs} ms` });
  const watch = <Store extends object>(store: Store, name: string): Store =>
    new Proxy(store, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const operation = `${name}.${property}`;
        return (...args: unknown[]): unknown => {
          let answer: unknown;
          try {
            answer = Reflect.apply(value, target, args);
          } catch (error) {
            fail(operation, error);
            throw error;
          }
          if (!isThenable(answer)) return answer;
          const call = nextCall++;
          waiting.set(call, operation);
          const verifying = operation === 'auditLog.verifyChain';
          const withinMs = verifying ? answerWithinMs + VERIFY_MS_PER_ENTRY * knownEntries : answerWithinMs;
          let stopWaiting: ((failure: StoreFailure) => void) | undefined;
          const timer = setTimeout(() => {
            const failure = unanswered(operation, withinMs);
            failed ??= failure;
            stopWaiting?.(failure);
          }, withinMs).unref();
          const settled = (): void => {
            clearTimeout(timer);
            waiting.delete(call);
          };
          const answered = Promise.resolve(answer).then(
            (result: unknown) => {
              settled();
              noteEntries(operation, result);
              return result;
            },
            (error: unknown) => {
              settled();
              fail(operation, error);
              throw error;
            },
          );
          if (!verifying) return answered;
          // The one call the watch stops waiting for: a chain verification that never answers
          // would hold the demo open forever (the dispatcher's own calls it times itself).
          const gaveUp = new Promise<never>((_, reject) => {
            stopWaiting = (failure) => {
              waiting.delete(call);
              reject(new Error(failure.message));
            };
          });
          return Promise.race([answered, gaveUp]);
        };
      },
    });
  return {
    stores: { auditLog: watch(stores.auditLog, 'auditLog'), idempotencyStore: watch(stores.idempotencyStore, 'idempotencyStore') },
    failure: () => {
      if (failed !== null) return failed;
      const operation = waiting.values().next().value;
      return operation === undefined ? null : unanswered(operation);
    },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof Reflect.get(value, 'then') === 'function';
}
