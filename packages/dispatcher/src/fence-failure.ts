import type { FenceFailure } from '@toolseal/audit';

const FENCE_FAILURES: ReadonlySet<unknown> = new Set<FenceFailure>(['not_found', 'fenced', 'wrong_state', 'lease_expired', 'conflict']);

/**
 * A store's reason for refusing a fenced write, as far as the dispatcher believes it: one of the
 * store contract's `FenceFailure`s, or `unexpected` for anything else. Only this goes into the
 * audit notes: a store (or a wrapper around one) could put error text, a connection string, or a
 * megabyte in `reason`, and the log must hold neither (nor lose the call's entry to its size).
 */
export function fenceFailureOf(reason: unknown): FenceFailure | 'unexpected' {
  return FENCE_FAILURES.has(reason) ? (reason as FenceFailure) : 'unexpected';
}
