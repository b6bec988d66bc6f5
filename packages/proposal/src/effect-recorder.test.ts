import { describe, expect, it } from 'vitest';
import { createEffectRecorder } from './effect-recorder.js';

describe('createEffectRecorder', () => {
  it('records attempts in order and performs none', () => {
    const recorder = createEffectRecorder();
    expect(recorder.attempts()).toEqual([]);
    const first = recorder.attempt({ kind: 'create_refund', proposal_sha256: 'a'.repeat(64), rule_version: 'refund-rules-v1' });
    recorder.attempt({ kind: 'send_email', proposal_sha256: 'b'.repeat(64), rule_version: 'email-rules-v1' });
    expect(first).toEqual({ sequence: 1, kind: 'create_refund', proposal_sha256: 'a'.repeat(64), rule_version: 'refund-rules-v1', performed: false });
    expect(recorder.attempts().map((attempt) => [attempt.sequence, attempt.kind, attempt.performed])).toEqual([
      [1, 'create_refund', false],
      [2, 'send_email', false],
    ]);
    expect(recorder.performedCount()).toBe(0);
  });

  it('hands out copies and frozen entries', () => {
    const recorder = createEffectRecorder();
    recorder.attempt({ kind: 'k', proposal_sha256: 'c'.repeat(64), rule_version: 'v' });
    const list = recorder.attempts() as unknown[];
    list.pop();
    expect(recorder.attempts()).toHaveLength(1);
    expect(Object.isFrozen(recorder.attempts()[0])).toBe(true);
  });
});
