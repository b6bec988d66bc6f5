import type { ModelError } from '@toolseal/contracts';
import { ERROR_CATALOG, isErrorCode } from './catalog.js';

/** The outcome of comparing an error body with the catalog. */
export type CheckErrorOutcome = { ok: true; error: ModelError } | { ok: false; problems: string[] };

const ERROR_KEYS = ['category', 'code', 'reasons', 'recovery', 'retry_after_ms', 'safe_message'];
const REASON_KEYS = ['field', 'rule'];
const MAX_REASONS = 16;
// A pointer built only from contract-known names and indexes (see ErrorReason.field).
const REASON_FIELD = /^(?:\/(?:[A-Za-z0-9_]{1,64}|[0-9]{1,6})){0,16}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Reflect.ownKeys(value);
  if (own.length !== keys.length) return false;
  for (const key of own) {
    if (typeof key !== 'string' || !keys.includes(key)) return false;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) return false;
  }
  return true;
}

/**
 * Compares an error body with the fixed catalog exactly: the field set, code, category, message
 * text, recovery, the retry-after rule and the allowed reason rules. Used again at verification,
 * so a model or a tampered store cannot rewrite a recovery. Never throws.
 */
export function checkError(error: unknown): CheckErrorOutcome {
  if (!isPlainObject(error)) return { ok: false, problems: ['error is not a plain object'] };
  if (!hasExactKeys(error, ERROR_KEYS)) return { ok: false, problems: ['error fields differ from the catalog shape'] };
  const { code } = error;
  if (!isErrorCode(code)) return { ok: false, problems: ['code is not in the catalog'] };
  const entry = ERROR_CATALOG[code];
  const problems: string[] = [];
  if (error.category !== entry.category) problems.push('category differs from the catalog');
  if (error.safe_message !== entry.safe_message) problems.push('safe_message differs from the catalog');
  if (error.recovery !== entry.recovery) problems.push('recovery differs from the catalog');

  const retry = error.retry_after_ms;
  const rule = entry.retry_after;
  if (retry === null) {
    if (rule.policy === 'required') problems.push('retry_after_ms is required');
  } else if (rule.policy === 'forbidden') {
    problems.push('retry_after_ms is not allowed');
  } else if (typeof retry !== 'number' || !Number.isSafeInteger(retry) || retry < rule.min_ms || retry > rule.max_ms) {
    problems.push(`retry_after_ms must be an integer from ${rule.min_ms} to ${rule.max_ms}`);
  }

  const reasons = error.reasons;
  if (!Array.isArray(reasons)) {
    problems.push('reasons is not an array');
  } else if (reasons.length > MAX_REASONS) {
    problems.push(`more than ${MAX_REASONS} reasons`);
  } else {
    for (let index = 0; index < reasons.length; index++) {
      const reason: unknown = reasons[index];
      if (!isPlainObject(reason) || !hasExactKeys(reason, REASON_KEYS)) {
        problems.push(`reasons/${index} is not {field, rule}`);
        continue;
      }
      if (typeof reason.field !== 'string' || !REASON_FIELD.test(reason.field)) {
        problems.push(`reasons/${index}/field is not a contract-safe pointer`);
      }
      if (typeof reason.rule !== 'string' || !entry.reason_rules.includes(reason.rule)) {
        problems.push(`reasons/${index}/rule is not allowed for ${code}`);
      }
    }
  }
  return problems.length === 0 ? { ok: true, error: error as unknown as ModelError } : { ok: false, problems };
}
