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
   * Not applied to `auditLog.verifyChain`, which the dispatcher never calls and whose time grows
   * with the log.
   */
  answerWithinMs: number;
}

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
  const unanswered = (operation: string): StoreFailure => ({ operation, message: `${operation} did not answer within ${answerWithinMs} ms` });
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
          const timer =
            operation === 'auditLog.verifyChain'
              ? undefined
              : setTimeout(() => {
                  failed ??= unanswered(operation);
                }, answerWithinMs).unref();
          const settled = (): void => {
            clearTimeout(timer);
            waiting.delete(call);
          };
          return Promise.resolve(answer).then(
            (result: unknown) => {
              settled();
              return result;
            },
            (error: unknown) => {
              settled();
              fail(operation, error);
              throw error;
            },
          );
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
