// Spec 000, "Practice": five kb_search results, each with its protected audit, and the five
// properties demonstrated on every one of them.
import type { CallContext, JsonObject, SealedResult } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { scanSensitiveKeys } from '@toolseal/guard';
import { describe, expect, it } from 'vitest';
import { copy, loadKbCases, loadToolSpecs, type KbCase } from './__fixtures__/load-fixtures.js';
import { alternativeFor, leavesOf, pathText, withLeaf } from './__fixtures__/leaves.js';
import { OUTPUT_VIOLATION_RULES } from './output-violation.js';
import { sealResult, type SealResultOutput } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult, type TrustedContext } from './verify-result.js';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
const digester = createDigester();
const cases = loadKbCases();
const successOutput = cases.find((entry) => entry.name === 'success-with-hits')?.seal_input.subject;
if (successOutput?.kind !== 'data') throw new Error('fixture success-with-hits must be a data subject');

function seal(entry: KbCase, changes: { call?: CallContext; output?: unknown } = {}): SealResultOutput {
  const input = entry.seal_input;
  return sealResult({
    registry,
    tool_name: input.tool_name,
    principal: input.principal,
    call: changes.call ?? input.call,
    arguments: input.arguments,
    subject: changes.output === undefined ? copy(input.subject) : { kind: 'data', output: changes.output },
    execution: input.execution,
    now: () => input.now,
    digester,
  });
}

function trusted(entry: KbCase, call: CallContext = entry.seal_input.call): TrustedContext {
  const input = entry.seal_input;
  return { registry, tool_name: input.tool_name, principal: input.principal, call, arguments: input.arguments, digester };
}

/** A handler answer for this call: its own output for data cases, else the success case's. */
function handlerOutputFor(entry: KbCase): { data: JsonObject } & Record<string, unknown> {
  const subject = entry.seal_input.subject.kind === 'data' ? entry.seal_input.subject : successOutput;
  return copy((subject as { output: { data: JsonObject } & Record<string, unknown> }).output);
}

it('has the five practice cases', () => {
  expect(cases.map((entry) => entry.name)).toEqual(['success-with-hits', 'empty', 'unauthorized', 'rate-limited', 'truncated']);
  expect(cases.map((entry) => entry.sealed.model_result.status)).toEqual(['succeeded', 'succeeded', 'failed', 'failed', 'succeeded']);
});

describe.each(cases.map((entry) => [entry.name, entry] as const))('kb_search %s', (_name, entry) => {
  const { sealed, canonical_model_result } = seal(entry);
  const audit = entry.sealed.protected_audit;
  const principal = entry.seal_input.principal;

  it('seals exactly to the fixture, which verifies', () => {
    expect(sealed).toEqual(entry.sealed);
    expect(canonical_model_result).toBe(canonicalize(entry.sealed.model_result));
    expect(verifyResult(entry.sealed, trusted(entry))).toEqual({ ok: true });
  });

  it('1. the model projection has no principal or internal receipt', () => {
    const forbidden = [
      principal.tenant_id,
      principal.subject_id,
      ...principal.roles,
      audit.principal_ref,
      audit.downstream.operation_id,
      audit.binding.request_sha256,
      audit.binding.result_sha256,
      audit.binding.call_binding_sha256,
      ...[audit.downstream.receipt, audit.downstream.status_ref, audit.downstream.idempotency_key].filter((value): value is string => value !== null),
    ];
    for (const value of forbidden) expect(canonical_model_result).not.toContain(value);
    for (const key of ['principal', 'tenant', 'subject', 'receipt', 'status_ref', 'operation', 'idempotency', 'sha256', 'call_id']) {
      expect(canonical_model_result).not.toContain(`"${key}`);
    }
    // The projection's own control vocabulary (provenance.trust; an error's recovery, safe_message
    // and retry_after_ms) is on the scanner's list so that no tool data can carry it: only at its
    // envelope place, and nothing else anywhere.
    const envelope = new Set(['/provenance', '/provenance/trust', '/error/recovery', '/error/safe_message', '/error/retry_after_ms']);
    expect(scanSensitiveKeys(entry.sealed.model_result).filter((hit) => !envelope.has(hit.path))).toEqual([]);
    if (entry.sealed.model_result.data !== null) expect(scanSensitiveKeys(entry.sealed.model_result.data)).toEqual([]);
  });

  it('2. changing any business field (any field of model_result) changes result_sha256', () => {
    const leaves = leavesOf(entry.sealed.model_result);
    expect(leaves.length).toBeGreaterThan(10);
    for (const leaf of leaves) {
      const changed = withLeaf(entry.sealed.model_result, leaf.path, alternativeFor(leaf.value));
      expect(digester.resultDigest(changed), pathText(leaf.path)).not.toBe(audit.binding.result_sha256);
    }
    if (entry.sealed.model_result.data !== null) {
      // A handler answering one business value differently gets a different seal too.
      const output = handlerOutputFor(entry);
      const hits = output.data.hits as JsonObject[];
      output.data.hits = hits.length > 0 ? [{ ...hits[0], title: 'Refund help (v2)' }, ...hits.slice(1)] : [];
      if (hits.length === 0) output.data.next_page = 2;
      const resealed = seal(entry, { output });
      expect(resealed.violations).toEqual([]);
      expect(resealed.sealed.protected_audit.binding.result_sha256).not.toBe(audit.binding.result_sha256);
    }
  });

  it('3. swapping two calls\u2019 projections fails; changing only the idempotency key fails call_binding, request_sha256 still matches', () => {
    for (const other of cases.filter((candidate) => candidate !== entry)) {
      const swapped: SealedResult = { model_result: copy(other.sealed.model_result), protected_audit: copy(audit) };
      const outcome = verifyResult(swapped, trusted(entry));
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.reasons).toEqual(expect.arrayContaining(['result_digest', 'call_binding']));
      const moved = verifyResult(other.sealed, trusted(entry));
      expect(moved.ok).toBe(false);
      if (!moved.ok) expect(moved.reasons).toEqual(expect.arrayContaining(['provider_context', 'downstream', 'call_binding']));
    }
    const rekeyed: CallContext = { ...entry.seal_input.call, idempotency_key: 'idem-kb-retry-2' };
    const resealed = seal(entry, { call: rekeyed }).sealed;
    expect(resealed.protected_audit.binding.request_sha256).toBe(audit.binding.request_sha256);
    expect(resealed.protected_audit.binding.call_binding_sha256).not.toBe(audit.binding.call_binding_sha256);
    expect(verifyResult(entry.sealed, trusted(entry, rekeyed))).toEqual({ ok: false, reasons: ['downstream', 'call_binding'] });
  });

  it('4. a top-level status, a nested token or an extra business field from the handler is rejected', () => {
    const base = handlerOutputFor(entry);
    const firstHit = (base.data.hits as JsonObject[])[0] ?? ((successOutput.output as { data: { hits: JsonObject[] } }).data.hits[0] as JsonObject);
    const attempts: [string, unknown, { rule: string; path: string }][] = [
      ['top-level status', { ...base, status: 'succeeded' }, { rule: 'additional_properties', path: '' }],
      ['nested token', { ...base, data: { ...base.data, hits: [{ ...firstHit, token: 'sk-live-123' }] } }, { rule: 'sensitive_key', path: '/data/hits/0' }],
      // Nesting deeper than kb_search's depth limit (3) is refused by the guard before any scan, at
      // the deepest place the output schema declares (`meta` is the handler's name).
      ['deeper nested token', { ...base, data: { ...base.data, hits: [{ ...firstHit, meta: { auth: { access_token: 'x' } } }] } }, { rule: 'max_depth', path: '/data/hits/0' }],
      ['extra business field', { ...base, data: { ...base.data, relevance: 0.93 } }, { rule: 'additional_properties', path: '/data' }],
      ['business status inside data', { ...base, data: { ...base.data, status: 'succeeded' } }, { rule: 'additional_properties', path: '/data' }],
    ];
    for (const [label, output, expected] of attempts) {
      const { sealed: refused, violations } = seal(entry, { output });
      expect(refused.model_result.error?.code, label).toBe('OUTPUT_CONTRACT_VIOLATION');
      expect(refused.model_result.data, label).toBeNull();
      expect(violations, label).toContainEqual(expected);
      for (const violation of violations) expect(OUTPUT_VIOLATION_RULES).toContain(violation.rule);
      expect(JSON.stringify(refused.model_result), label).not.toMatch(/sk-live|access_token|relevance|0\.93/);
      expect(verifyResult(refused, trusted(entry))).toEqual({ ok: true });
    }
    // The same injections written into the sealed package are caught by verification.
    const injected = [
      (result: Record<string, unknown>) => (result.status_override = 'succeeded'),
      (result: Record<string, unknown>) => (result.status = result.status === 'succeeded' ? 'failed' : 'succeeded'),
      (result: Record<string, unknown>) => (result.data = { ...(result.data as JsonObject | null), token: 'x' }),
      (result: Record<string, unknown>) => ((result.provenance as Record<string, unknown>).token = 'x'),
      (result: Record<string, unknown>) => (result.data = { hits: [], relevance: 1 }),
    ];
    for (const inject of injected) {
      const tampered = copy(entry.sealed);
      inject(tampered.model_result as unknown as Record<string, unknown>);
      expect(verifyResult(tampered, trusted(entry)).ok).toBe(false);
    }
  });

  it('5. the provider-facing serialization contains nothing from protected_audit', () => {
    // Values the projections legitimately share by design: the producer revision (provenance
    // carries it, spec 000) and the short effect word.
    const shared = new Set([audit.tool_contract.producer_revision, audit.tool_contract.effect]);
    const protectedValues = leavesOf(audit)
      .map((leaf) => leaf.value)
      .filter((value): value is string => typeof value === 'string' && !shared.has(value));
    expect(protectedValues.length).toBeGreaterThan(15);
    for (const serialization of [canonical_model_result, JSON.stringify(sealed.model_result)]) {
      for (const value of protectedValues) expect(serialization).not.toContain(value);
      for (const key of ['protected_audit', 'principal_ref', 'provider_context', 'tool_contract', 'downstream', 'binding', 'redactions']) {
        expect(serialization).not.toContain(key);
      }
    }
  });
});

it('unauthorized is neutral: "not yours" and "does not exist" give the same model projection', () => {
  const unauthorized = cases.find((entry) => entry.name === 'unauthorized') as KbCase;
  const notYours = seal(unauthorized);
  const missing = sealResult({
    registry,
    tool_name: 'kb_search',
    principal: { tenant_id: 'tenant-other', subject_id: 'someone-else', roles: [] },
    call: { ...unauthorized.seal_input.call, call_id: 'call_other', operation_id: 'op-other' },
    arguments: { query: 'a collection that does not exist' },
    subject: { kind: 'error', code: 'NOT_FOUND' },
    execution: { delivery: 'fresh' },
    now: () => unauthorized.seal_input.now,
    digester,
  });
  expect(missing.canonical_model_result).toBe(notYours.canonical_model_result);
});

it('rate-limited carries retry_after_ms from the 429 and recovery retry_after', () => {
  const limited = cases.find((entry) => entry.name === 'rate-limited') as KbCase;
  expect(limited.sealed.model_result.error).toMatchObject({ code: 'RATE_LIMIT', recovery: 'retry_after', retry_after_ms: 30_000 });
  expect(limited.sealed.model_result.execution.outcome).toBe('not_started');
});

it('truncated sets complete: false and truncated: true, and stays within the tool limits', () => {
  const truncated = cases.find((entry) => entry.name === 'truncated') as KbCase;
  expect(truncated.sealed.model_result.execution).toMatchObject({ complete: false, truncated: true });
  expect(Buffer.byteLength(JSON.stringify(truncated.sealed.model_result.data))).toBeLessThanOrEqual(8192);
  const hits = (truncated.sealed.model_result.data as { hits: unknown[] }).hits;
  expect(hits).toHaveLength(5);
});
