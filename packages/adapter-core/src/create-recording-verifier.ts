import type { ResultVerifier, SealedResult, ToolCall, VerifyOutcome } from '@toolseal/contracts';

/** A verifier that records every call it gets and answers as `decide` says. */
export interface RecordingVerifier {
  /** Pass this as `verify`. */
  readonly verify: ResultVerifier;
  /** Every `(sealed, call)` pair `verify` was called with, in order. */
  readonly seen: ReadonlyArray<{ sealed: SealedResult; call: ToolCall }>;
}

/**
 * A fake `verify` for adapter tests: accepts everything by default, or answers with `decide`.
 * Pair it with `fakeSealedResult`, whose digests a real verifier would refuse.
 */
export function createRecordingVerifier(
  decide: (sealed: SealedResult, call: ToolCall) => VerifyOutcome = () => ({ ok: true }),
): RecordingVerifier {
  const seen: Array<{ sealed: SealedResult; call: ToolCall }> = [];
  return {
    verify: (sealed, call) => {
      seen.push({ sealed, call });
      return decide(sealed, call);
    },
    seen,
  };
}
