/** One effect a test asked for: recorded, never performed. */
export interface AttemptedEffect {
  /** 1 for the first attempt, then 2, 3... */
  readonly sequence: number;
  /** What kind of effect was attempted (e.g. `create_refund`). */
  readonly kind: string;
  /** The proposal digest the attempt was for. */
  readonly proposal_sha256: string;
  /** The rule version the proposal was judged under. */
  readonly rule_version: string;
  /** Always false: the recorder performs nothing. */
  readonly performed: false;
}

/**
 * A test double standing in for an effect API (a refund endpoint, a mailer): it records each
 * attempted effect and performs none (spec 002: "an adapter that records attempted effects without
 * performing them").
 */
export interface EffectRecorder {
  /** Records an attempt and returns the entry. Performs nothing. */
  attempt(effect: { kind: string; proposal_sha256: string; rule_version: string }): AttemptedEffect;
  /** Every attempt so far, oldest first (a copy). */
  attempts(): readonly AttemptedEffect[];
  /** How many effects were performed: always 0. */
  performedCount(): number;
}

/** Creates an empty recorder. */
export function createEffectRecorder(): EffectRecorder {
  const entries: AttemptedEffect[] = [];
  return Object.freeze({
    attempt(effect: { kind: string; proposal_sha256: string; rule_version: string }): AttemptedEffect {
      const entry: AttemptedEffect = Object.freeze({
        sequence: entries.length + 1,
        kind: effect.kind,
        proposal_sha256: effect.proposal_sha256,
        rule_version: effect.rule_version,
        performed: false as const,
      });
      entries.push(entry);
      return entry;
    },
    attempts: () => [...entries],
    performedCount: () => entries.filter((entry) => entry.performed).length,
  });
}
