import type { ResultVerifier, SealedResult, ToolCall, VerifyOutcome } from '@toolseal/contracts';

/** One call of a recording verifier. */
export interface RecordedVerification {
  /** The package the adapter presented. */
  readonly sealed: SealedResult;
  /** The call it was presented for. */
  readonly call: ToolCall;
  /** The text the adapter said it will send (`options.canonical_model_result`), or `null`. */
  readonly canonical_model_result: string | null;
}

/** A verifier that records every call it gets and answers as `decide` says. */
export interface RecordingVerifier {
  /** Pass this as `verify`. */
  readonly verify: ResultVerifier;
  /** Every call `verify` got, in order. */
  readonly seen: ReadonlyArray<RecordedVerification>;
}

/**
 * A fake `verify` for adapter tests: accepts everything by default, or answers with `decide`.
 * Pair it with `fakeSealedResult`, whose digests a real verifier would refuse.
 */
export function createRecordingVerifier(
  decide: (sealed: SealedResult, call: ToolCall) => VerifyOutcome = () => ({ ok: true }),
): RecordingVerifier {
  const seen: RecordedVerification[] = [];
  return {
    verify: (sealed, call, options) => {
      seen.push({ sealed, call, canonical_model_result: options?.canonical_model_result ?? null });
      return decide(sealed, call);
    },
    seen,
  };
}
