// Property: random well-typed (and slightly wrong) kb_search handler outputs either seal as data
// and verify, or are refused with catalogued reasons and seal as a verifiable
// OUTPUT_CONTRACT_VIOLATION. Never a crash. An independent oracle says which.
import type { JsonObject } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { OUTPUT_VIOLATION_RULES } from './output-violation.js';
import { sealResult } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult } from './verify-result.js';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
const digester = createDigester();
const principal = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };
const call = {
  provider: 'anthropic',
  api_family: 'messages',
  response_id: 'msg_prop',
  call_id: 'toolu_prop',
  adapter_revision: 'anthropic-messages-v1',
  operation_id: 'op-prop',
  idempotency_key: null,
};
const args = { query: 'refund' };
const trusted = { registry, tool_name: 'kb_search', principal, call, arguments: args, digester };
const rules = new Set(OUTPUT_VIOLATION_RULES);

const GOOD_SOURCES = ['https://kb.example.com/a/1', 'https://kb.example.com/', 'https://kb.example.com/a?b=c#d'];
const BAD_SOURCES = ['http://kb.example.com/a', 'https://evil.example.net/a', 'https://kb.example.com:444/a', 'not a url', 'https://u:p@kb.example.com/'];
const REVISION = /^[a-z0-9][a-z0-9.-]{0,63}$/;

const text = (max: number) => fc.string({ unit: fc.constantFrom('a', 'Z', ' ', 'é', '"', '\\', '\n', '😀', '<', '{'), maxLength: max });
const hit = fc.record(
  {
    title: text(130),
    snippet: text(1_050),
    source: fc.constantFrom(...GOOD_SOURCES, ...BAD_SOURCES),
    revision: fc.oneof(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,8}$/), fc.constantFrom('', 'UPPER', '-lead', 'x'.repeat(65))),
    extra: fc.option(fc.constantFrom('token', 'status', 'score', 'Authorization'), { nil: undefined }),
  },
  { requiredKeys: ['title', 'snippet', 'source', 'revision'] },
);
const output = fc.record(
  {
    hits: fc.array(hit, { maxLength: 7 }),
    next_page: fc.option(fc.integer({ min: -1, max: 60 }), { nil: undefined }),
    resource_revision: fc.constantFrom('kb-index-r1', 'kb-index-r42', 'kb-index-', 'kb-index-r1x'),
    observed_at: fc.constantFrom('2026-07-19T00:00:00Z', '2026-07-18T23:59:59.999Z', '2026-07-19T00:00:00+00:00', '2030-01-01T00:00:00Z'),
    complete: fc.option(fc.boolean(), { nil: undefined }),
    truncated: fc.option(fc.boolean(), { nil: undefined }),
    envelope_extra: fc.option(fc.constantFrom('status', 'error', 'trust'), { nil: undefined }),
  },
  { requiredKeys: ['hits', 'resource_revision', 'observed_at'] },
);

type Generated = typeof output extends fc.Arbitrary<infer T> ? T : never;

function build(generated: Generated): Record<string, unknown> {
  const hits = generated.hits.map(({ extra, ...fields }) => (extra === undefined ? fields : { ...fields, [extra]: 'x' }));
  const data: Record<string, unknown> = { hits };
  if (generated.next_page !== undefined) data.next_page = generated.next_page;
  const envelope: Record<string, unknown> = { data, resource_revision: generated.resource_revision, observed_at: generated.observed_at };
  if (generated.complete !== undefined) envelope.complete = generated.complete;
  if (generated.truncated !== undefined) envelope.truncated = generated.truncated;
  if (generated.envelope_extra !== undefined) envelope[generated.envelope_extra] = 'succeeded';
  return envelope;
}

/** Independent oracle, written from kb-search.json, not from the implementation. */
function expectedValid(generated: Generated): boolean {
  const hitsOk = generated.hits.length <= 5 && generated.hits.every((entry) =>
    entry.extra === undefined &&
    // JSON Schema lengths count code points; the guard's string limit counts UTF-16 units.
    Array.from(entry.title).length >= 1 && Array.from(entry.title).length <= 120 &&
    entry.snippet.length <= 1000 &&
    GOOD_SOURCES.includes(entry.source) &&
    REVISION.test(entry.revision),
  );
  const pageOk = generated.next_page === undefined || (generated.next_page >= 2 && generated.next_page <= 50);
  const revisionOk = /^kb-index-r[0-9]{1,9}$/.test(generated.resource_revision);
  const timeOk = generated.observed_at === '2026-07-19T00:00:00Z' || generated.observed_at === '2026-07-18T23:59:59.999Z';
  const flagsOk = !(generated.truncated === true && generated.complete !== false);
  // maxBytes bounds the encoded data (JSON.stringify writes the same bytes as RFC 8785 here).
  const sizeOk = Buffer.byteLength(JSON.stringify(build(generated).data)) <= 8192;
  return hitsOk && pageOk && revisionOk && timeOk && flagsOk && sizeOk && generated.envelope_extra === undefined;
}

describe('seal and verify, property-based', () => {
  it('random kb_search outputs seal and verify as data, or are refused with catalogued reasons; never a crash', () => {
    fc.assert(
      fc.property(output, (generated) => {
        const handlerOutput = build(generated);
        const { sealed, violations, canonical_model_result } = sealResult({
          registry,
          tool_name: 'kb_search',
          principal,
          call,
          arguments: args,
          subject: { kind: 'data', output: handlerOutput },
          execution: { delivery: 'fresh' },
          now: () => '2026-07-19T00:00:01Z',
          digester,
        });
        expect(verifyResult(sealed, trusted)).toEqual({ ok: true });
        expect(JSON.parse(canonical_model_result)).toEqual(sealed.model_result);
        if (expectedValid(generated)) {
          expect(violations).toEqual([]);
          expect(sealed.model_result.status).toBe('succeeded');
          expect(sealed.model_result.data).toEqual(handlerOutput.data as JsonObject);
        } else {
          expect(violations.length).toBeGreaterThan(0);
          for (const violation of violations) {
            expect(rules.has(violation.rule)).toBe(true);
            expect(violation.path).toMatch(/^(\/([A-Za-z0-9_]{1,64}|[0-9]{1,6})){0,17}$/);
          }
          expect(sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
          expect(sealed.model_result.data).toBeNull();
        }
      }),
      { numRuns: 400 },
    );
  });

  it('arbitrary JavaScript values as handler output never crash the seal', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }),
        fc.boolean(),
        (value, wrap) => {
          const handlerOutput = wrap ? { data: value, resource_revision: 'kb-index-r1', observed_at: '2026-07-19T00:00:00Z' } : value;
          const { sealed, violations } = sealResult({
            registry,
            tool_name: 'kb_search',
            principal,
            call,
            arguments: args,
            subject: { kind: 'data', output: handlerOutput },
            execution: { delivery: 'fresh' },
            now: () => '2026-07-19T00:00:01Z',
            digester,
          });
          if (sealed.model_result.status === 'succeeded') expect(violations).toEqual([]);
          else for (const violation of violations) expect(rules.has(violation.rule)).toBe(true);
          expect(verifyResult(sealed, trusted)).toEqual({ ok: true });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a random single-leaf change to a sealed package always fails verification', () => {
    const base = sealResult({
      registry,
      tool_name: 'kb_search',
      principal,
      call,
      arguments: args,
      subject: { kind: 'data', output: { data: { hits: [{ title: 't', snippet: 's', source: GOOD_SOURCES[0], revision: 'r1' }], next_page: 2 }, resource_revision: 'kb-index-r1', observed_at: '2026-07-19T00:00:00Z', complete: false } },
      execution: { delivery: 'fresh' },
      now: () => '2026-07-19T00:00:01Z',
      digester,
    }).sealed;
    const boundPaths: string[][] = [
      ['model_result', 'status'],
      ['model_result', 'data', 'next_page'],
      ['model_result', 'execution', 'complete'],
      ['model_result', 'provenance', 'observed_at'],
      ['protected_audit', 'principal_ref'],
      ['protected_audit', 'provider_context', 'call_id'],
      ['protected_audit', 'tool_contract', 'policy_revision'],
      ['protected_audit', 'downstream', 'operation_id'],
      ['protected_audit', 'binding', 'result_sha256'],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...boundPaths), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.stringMatching(/^[0-9a-f]{64}$/)), (path, value) => {
        const draft = structuredClone(base) as unknown as Record<string, Record<string, unknown>>;
        let parent: Record<string, unknown> = draft;
        for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
        const last = path[path.length - 1] as string;
        fc.pre(JSON.stringify(parent[last]) !== JSON.stringify(value));
        parent[last] = value;
        expect(verifyResult(draft, trusted).ok).toBe(false);
      }),
      { numRuns: 400 },
    );
  });
});
