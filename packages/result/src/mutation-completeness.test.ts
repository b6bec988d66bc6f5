// Mutation completeness: every leaf of a sealed package, changed alone, must fail verification,
// except the fields listed in UNBOUND, each with the reason it is deliberately not bound.
import type { CallContext, JsonValue, SealedResult, VerifyOutcome } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { copy, loadKbCases, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { alternativeFor, leavesOf, pathText, withLeaf } from './__fixtures__/leaves.js';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult, type TrustedContext } from './verify-result.js';

/**
 * Fields `verifyResult` deliberately does not bind, and why. They are protected-only data: never in
 * `model_result`, never in a digest. The dispatcher learns the receipt and status reference from
 * the downstream system beside the call, and records redactions it made; all three are protected
 * where they are stored, by the audit log's hash chain (`@toolseal/audit`).
 */
const UNBOUND: Readonly<Record<string, string>> = {
  '/protected_audit/downstream/receipt': 'downstream receipt: protected by the audit hash chain, not by the digests',
  '/protected_audit/downstream/status_ref': 'opaque status reference: protected by the audit hash chain, not by the digests',
  '/protected_audit/redactions': 'record of redactions made: protected by the audit hash chain, not by the digests',
};

function isUnbound(path: string): boolean {
  return Object.keys(UNBOUND).some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
const digester = createDigester();
const principal = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };
const writeCall: CallContext = {
  provider: 'gemini',
  api_family: 'interactions',
  response_id: 'interaction-77',
  call_id: 'fc-1',
  adapter_revision: 'gemini-interactions-v1',
  operation_id: 'op-77',
  idempotency_key: 'idem-77',
};
const proposal = { order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }], reason: 'damaged' };

interface Sample {
  name: string;
  sealed: SealedResult;
  trusted: TrustedContext;
}

function sample(name: string, input: Omit<SealResultInput, 'registry' | 'digester' | 'principal' | 'now'>): Sample {
  const { sealed } = sealResult({ registry, digester, principal, now: () => '2026-07-19T00:00:01Z', ...input });
  return { name, sealed, trusted: { registry, digester, principal, tool_name: input.tool_name, call: input.call, arguments: input.arguments } };
}

const samples: Sample[] = [
  ...loadKbCases().map((entry) => ({
    name: `kb_search ${entry.name}`,
    sealed: entry.sealed,
    trusted: { registry, digester, principal: entry.seal_input.principal, tool_name: 'kb_search', call: entry.seal_input.call, arguments: entry.seal_input.arguments },
  })),
  sample('refund draft with receipt, key and reason', {
    tool_name: 'create_refund_draft',
    call: writeCall,
    arguments: proposal,
    subject: {
      kind: 'data',
      output: {
        data: { draft_ref: 'DRAFT-C7-1', order_ref: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', reason: 'damaged' },
        resource_revision: 'draft-c7-1-r1',
        observed_at: '2026-07-19T00:00:00.5Z',
        receipt: 'rcpt-77',
        status_ref: 'status-77',
      },
    },
    execution: { delivery: 'receipt_reconciled' },
  }),
  sample('outcome unknown with a status reference', {
    tool_name: 'create_refund_draft',
    call: writeCall,
    arguments: proposal,
    subject: { kind: 'error', code: 'OUTCOME_UNKNOWN', status_ref: 'status-78' },
    execution: { delivery: 'fresh' },
  }),
  sample('invalid arguments with reasons', {
    tool_name: 'create_refund_draft',
    call: writeCall,
    arguments: null,
    subject: { kind: 'error', code: 'INVALID_ARGUMENTS', reasons: [{ field: '/amount', rule: 'maximum' }, { field: '/lines/0/quantity', rule: 'minimum' }] },
    execution: { delivery: 'fresh' },
  }),
  sample('output contract violation with a redaction', {
    tool_name: 'create_refund_draft',
    call: writeCall,
    arguments: proposal,
    subject: { kind: 'data', output: { data: { status: 'succeeded' }, resource_revision: 'draft-c7-1-r1', observed_at: '2026-07-19T00:00:00Z' } },
    execution: { delivery: 'fresh' },
    redactions: [{ path: '/data/internal_note', reason: 'sensitive_key' }],
  }),
];

/**
 * How an adapter verifies (`@toolseal/adapter-core`): it canonicalizes `model_result` once, passes a
 * copy parsed from that text with the text itself, and the dispatcher's trusted context carries the
 * principal reference and request digest it computed from trusted inputs.
 */
function verifyAsAdapter(sealed: SealedResult, trusted: TrustedContext): VerifyOutcome {
  const contract = registry.get(trusted.tool_name)?.contract ?? registry.unregisteredContract;
  const memoized: TrustedContext = {
    ...trusted,
    principal_ref: digester.principalRef(trusted.principal),
    request_sha256: digester.requestDigest({
      tenant_id: trusted.principal.tenant_id,
      subject_id: trusted.principal.subject_id,
      tool_name: contract.tool_name,
      arguments: trusted.arguments,
      input_revision: contract.input_revision,
      output_revision: contract.output_revision,
      effect_revision: contract.effect_revision,
    }),
  };
  const text = canonicalize(sealed.model_result);
  const snapshot = { model_result: JSON.parse(text) as SealedResult['model_result'], protected_audit: sealed.protected_audit };
  return verifyResult(snapshot, memoized, { canonical_model_result: text });
}

describe.each(samples.map((entry) => [entry.name, entry] as const))('mutation completeness: %s', (_name, entry) => {
  it('verifies unchanged', () => {
    expect(verifyResult(entry.sealed, entry.trusted)).toEqual({ ok: true });
    expect(verifyAsAdapter(entry.sealed, entry.trusted)).toEqual({ ok: true });
  });

  it('fails verification when any bound leaf alone changes', () => {
    const leaves = leavesOf(entry.sealed);
    const bound = leaves.filter((leaf) => !isUnbound(pathText(leaf.path)));
    expect(bound.length).toBeGreaterThan(30);
    for (const leaf of bound) {
      const path = pathText(leaf.path);
      // Same kind of value (a string stays a string, a digest stays 64 hex digits) and, where it
      // can, a value the schema still accepts: only the bindings and comparisons can catch it.
      for (const replacement of [alternativeFor(leaf.value), sameShapeAlternative(leaf.value)]) {
        if (replacement === undefined || JSON.stringify(replacement) === JSON.stringify(leaf.value)) continue;
        const changed = withLeaf(entry.sealed, leaf.path, replacement);
        const outcome = verifyResult(changed, entry.trusted);
        expect(outcome.ok, `${path} = ${JSON.stringify(replacement)}`).toBe(false);
        // The adapter's path (hash the sent text, memoized trusted digests) gives the same verdict.
        expect(verifyAsAdapter(changed, entry.trusted), `${path} = ${JSON.stringify(replacement)}`).toEqual(outcome);
      }
    }
  });

  it('does not bind the listed protected-only fields (by design)', () => {
    for (const path of Object.keys(UNBOUND)) {
      const segments = path.slice(1).split('/');
      const changed = path.endsWith('redactions')
        ? withLeaf(entry.sealed, segments, [{ path: '/data', reason: 'truncated' }])
        : withLeaf(entry.sealed, segments, 'changed-reference');
      expect(verifyResult(changed, entry.trusted), path).toEqual({ ok: true });
      expect(verifyAsAdapter(changed, entry.trusted), path).toEqual({ ok: true });
    }
  });
});

it('lists a reason for every unbound field', () => {
  for (const [path, reason] of Object.entries(UNBOUND)) {
    expect(path.startsWith('/protected_audit/')).toBe(true);
    expect(reason.length).toBeGreaterThan(20);
  }
});

function sameShapeAlternative(value: JsonValue): JsonValue | undefined {
  if (typeof value === 'string') return value.length > 1 ? `${value.slice(1)}${value[0]}` : undefined;
  if (typeof value === 'number') return value === 0 ? 1 : value - 1;
  return undefined;
}

it('the leaf walk reaches model_result and every bound part of protected_audit', () => {
  const entry = samples.find((candidate) => candidate.name.startsWith('refund draft')) as Sample;
  const paths = leavesOf(entry.sealed).map((leaf) => pathText(leaf.path));
  for (const prefix of [
    '/model_result/schema_version',
    '/model_result/status',
    '/model_result/data/draft_ref',
    '/model_result/error',
    '/model_result/execution/outcome',
    '/model_result/execution/delivery',
    '/model_result/execution/complete',
    '/model_result/execution/truncated',
    '/model_result/provenance/source_label',
    '/model_result/provenance/producer_revision',
    '/model_result/provenance/resource_revision',
    '/model_result/provenance/observed_at',
    '/model_result/provenance/trust',
    '/protected_audit/schema_version',
    '/protected_audit/principal_ref',
    '/protected_audit/provider_context/provider',
    '/protected_audit/provider_context/api_family',
    '/protected_audit/provider_context/response_id',
    '/protected_audit/provider_context/call_id',
    '/protected_audit/provider_context/adapter_revision',
    '/protected_audit/tool_contract/tool_name',
    '/protected_audit/tool_contract/effect',
    '/protected_audit/tool_contract/input_revision',
    '/protected_audit/tool_contract/output_revision',
    '/protected_audit/tool_contract/effect_revision',
    '/protected_audit/tool_contract/handler_revision',
    '/protected_audit/tool_contract/producer_revision',
    '/protected_audit/tool_contract/policy_revision',
    '/protected_audit/downstream/operation_id',
    '/protected_audit/downstream/idempotency_key',
    '/protected_audit/binding/request_sha256',
    '/protected_audit/binding/result_sha256',
    '/protected_audit/binding/call_binding_sha256',
  ]) {
    expect(paths, prefix).toContain(prefix);
  }
  expect(copy(entry.sealed)).toEqual(entry.sealed);
});
