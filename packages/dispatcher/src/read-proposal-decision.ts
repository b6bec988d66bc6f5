import type { ErrorCode, ErrorReason } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
import { makeError } from '@toolseal/errors';
import { deepFreeze } from '@toolseal/guard';
import { DECISION_CODES, type ProposalDecisionRecord } from '@toolseal/proposal';
import type { DeadlineRun } from './run-with-deadline.js';

/** Codes a proposal validator may refuse with (`DECISION_CODES` of `@toolseal/proposal`). */
export type ProposalErrorCode = 'INVALID_ARGUMENTS' | 'NOT_FOUND' | 'RULE_REJECTED' | 'FACTS_UNAVAILABLE' | 'STATE_CHANGED';

const PROPOSAL_ERROR_CODES: ReadonlySet<string> = new Set<ProposalErrorCode>([
  'INVALID_ARGUMENTS',
  'NOT_FOUND',
  'RULE_REJECTED',
  'FACTS_UNAVAILABLE',
  'STATE_CHANGED',
]);

/**
 * Longest decision record accepted, in UTF-16 code units of its canonical JSON. A genuine record
 * holds digests and finite codes only (well under 2 000); the bound keeps a broken validator from
 * pushing a call's audit entry past the store's limit.
 */
const MAX_RECORD_LENGTH = 16 * 1024;

/** A proposal validator's answer after reading it. */
export type ReadProposalDecision =
  /** Ready: `decision` is the validator's own answer (handed back to `recheckCurrent`), `record` a private copy. */
  | { kind: 'ready'; decision: unknown; record: ProposalDecisionRecord }
  /** A catalogued refusal: code and reasons checked by the catalog, `record` a private copy. */
  | { kind: 'refused'; code: ProposalErrorCode; reasons: readonly ErrorReason[]; record: ProposalDecisionRecord }
  /** A throw, a timeout, or anything outside the shape: the validator is broken (hold). */
  | { kind: 'broken' };

const BROKEN: ReadProposalDecision = Object.freeze({ kind: 'broken' });

/**
 * Reads what `validator.validate` or `validator.recheckCurrent` answered, without trusting it (as
 * `readCheckOutcome` reads a trusted check): `{ ok: true, record }` or `{ ok: false, error: { code,
 * reasons }, record }`, with a code a proposal gate can give, reasons the catalog accepts for it and
 * a record that is a JSON object (canonicalizable, bounded). Anything else, including a getter that
 * throws, is `broken`: the validator is the host's source of trusted facts, and a broken one means
 * the facts are not available (FACTS_UNAVAILABLE, nothing started). Never throws.
 */
export function readProposalDecision(run: DeadlineRun): ReadProposalDecision {
  if (run.kind !== 'returned') return BROKEN;
  try {
    const answer = run.value as { ok?: unknown; error?: unknown; record?: unknown } | null;
    if (typeof answer !== 'object' || answer === null) return BROKEN;
    const { ok } = answer;
    const record = copyRecord(answer.record);
    if (record === null) return BROKEN;
    // The answer and its record must say the same thing: a wrapper that turned a refusal into
    // `ok: true` (or the reverse) is broken, not ready.
    if (ok === true) {
      const ready =
        (answer as { decision?: unknown }).decision === 'ready_for_review' &&
        record['decision'] === 'ready_for_review' &&
        record['code'] === null &&
        record['failure_category'] === 'none' &&
        Array.isArray(record['reasons']) &&
        record['reasons'].length === 0;
      return ready ? { kind: 'ready', decision: answer, record } : BROKEN;
    }
    if (ok !== false) return BROKEN;
    const error = answer.error as { code?: unknown; reasons?: unknown } | null | undefined;
    if (typeof error !== 'object' || error === null) return BROKEN;
    const { code, reasons } = error;
    if (typeof code !== 'string' || !PROPOSAL_ERROR_CODES.has(code)) return BROKEN;
    if (reasons !== undefined && !Array.isArray(reasons)) return BROKEN;
    const copied = ((reasons ?? []) as unknown[]).map((reason): ErrorReason => {
      const { field, rule } = reason as { field?: unknown; rule?: unknown };
      if (typeof field !== 'string' || typeof rule !== 'string') throw new TypeError('reason needs field and rule');
      return { field, rule };
    });
    // The record's decision is the one that code stands for (`DECISION_CODES`), and it keeps the
    // reasons the model is given.
    const decision = record['decision'];
    if (typeof decision !== 'string' || !Object.hasOwn(DECISION_CODES, decision)) return BROKEN;
    if (DECISION_CODES[decision as keyof typeof DECISION_CODES] !== code || record['code'] !== code) return BROKEN;
    if (canonicalize(record['reasons'] ?? null) !== canonicalize(copied)) return BROKEN;
    // The catalog decides whether these reasons are allowed for the code (it throws if not).
    makeError(code as ErrorCode, { reasons: copied });
    return { kind: 'refused', code: code as ProposalErrorCode, reasons: copied, record };
  } catch {
    return BROKEN;
  }
}

/** A private, frozen copy of a decision record that is a bounded JSON object; `null` otherwise. */
function copyRecord(record: unknown): ProposalDecisionRecord | null {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return null;
  const text = canonicalize(record);
  if (text.length > MAX_RECORD_LENGTH) return null;
  return deepFreeze(JSON.parse(text) as unknown) as ProposalDecisionRecord;
}

/**
 * A copy of a record the dispatcher keeps, for a handler to read. Never the kept object itself:
 * that one goes into the audit entry, whose body the stores canonicalize reusing remembered texts
 * (`rememberCanonicalText` of @toolseal/digests), so code holding it could have the log store a
 * text of its choosing for it.
 */
export function componentCopyOf(record: ProposalDecisionRecord): ProposalDecisionRecord {
  return deepFreeze(JSON.parse(canonicalize(record)) as unknown) as ProposalDecisionRecord;
}
