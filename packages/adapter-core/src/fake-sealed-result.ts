import type { ModelResult, ProtectedAudit, SealedResult, ToolCall } from '@toolseal/contracts';

/** What `fakeSealedResult` may vary. */
export interface FakeSealedResultOverrides {
  /** `model_result.status`; `failed` and `unknown` also set a catalogued-looking error. Default `succeeded`. */
  status?: ModelResult['status'];
  /** `model_result.data` when `status` is `succeeded`. Default `{ "echo": <call_id> }`. */
  data?: ModelResult['data'];
  /** Overrides of `protected_audit.provider_context`. Default: the call's. */
  providerContext?: Partial<ProtectedAudit['provider_context']>;
}

function hex(seed: string, salt: string): string {
  // Deterministic, distinctive 64-hex filler: fake digests must not collide with real payload text.
  let state = 0x811c9dc5;
  let out = '';
  const source = `${salt}:${seed}`;
  while (out.length < 64) {
    for (let index = 0; index < source.length; index++) {
      state = Math.imul(state ^ source.charCodeAt(index), 0x01000193) >>> 0;
    }
    state = Math.imul(state ^ out.length, 0x01000193) >>> 0;
    out += state.toString(16).padStart(8, '0');
  }
  return out.slice(0, 64);
}

/**
 * A well-formed but UNSEALED result for `call`: its digests are filler, so a real verifier refuses
 * it. For adapter tests that pair it with a fake `verify` (see `createRecordingVerifier`); the
 * conformance kit uses real `sealResult` instead. Every protected value is distinctive (prefix
 * `protected-`/hex filler) so `findProtectedValues` can spot it in a payload.
 */
export function fakeSealedResult(call: ToolCall, overrides: FakeSealedResultOverrides = {}): SealedResult {
  const status = overrides.status ?? 'succeeded';
  const succeeded = status === 'succeeded';
  const model_result: ModelResult = {
    schema_version: 'tool-model-result-v2',
    status,
    data: succeeded ? (overrides.data ?? { echo: call.call_id }) : null,
    error: succeeded
      ? null
      : {
          code: status === 'unknown' ? 'OUTCOME_UNKNOWN' : 'NOT_FOUND',
          category: status === 'unknown' ? 'execution' : 'access',
          safe_message: 'fake error for adapter tests',
          recovery: status === 'unknown' ? 'query_status' : 'none',
          retry_after_ms: null,
          reasons: [],
        },
    execution: {
      outcome: status === 'unknown' ? 'unknown' : succeeded ? 'committed' : 'not_started',
      delivery: 'fresh',
      complete: true,
      truncated: false,
    },
    provenance: {
      source_label: 'fake-source',
      producer_revision: 'fake-producer-r1',
      resource_revision: succeeded ? 'fake-resource-r1' : null,
      observed_at: '2026-07-19T00:00:00Z',
      trust: succeeded ? 'untrusted_data' : 'trusted_control',
    },
  };
  const protected_audit: ProtectedAudit = {
    schema_version: 'tool-protected-audit-v1',
    principal_ref: hex(call.call_id, 'principal'),
    provider_context: {
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      call_id: call.call_id,
      adapter_revision: call.adapter_revision,
      ...overrides.providerContext,
    },
    tool_contract: {
      tool_name: /^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(call.tool_name) ? call.tool_name : 'fake_tool',
      effect: 'write',
      input_revision: 'protected-input-r1',
      output_revision: 'protected-output-r1',
      effect_revision: 'protected-effect-r1',
      handler_revision: 'protected-handler-r1',
      producer_revision: 'fake-producer-r1',
      policy_revision: 'protected-policy-r1',
    },
    downstream: {
      operation_id: `protected-operation-${hex(call.call_id, 'operation').slice(0, 16)}`,
      idempotency_key: `protected-idempotency-${hex(call.call_id, 'key').slice(0, 16)}`,
      receipt: `protected-receipt-${hex(call.call_id, 'receipt').slice(0, 16)}`,
      status_ref: `protected-status-${hex(call.call_id, 'status').slice(0, 16)}`,
    },
    binding: {
      request_sha256: hex(call.call_id, 'request'),
      result_sha256: hex(call.call_id, 'result'),
      call_binding_sha256: hex(call.call_id, 'binding'),
    },
    redactions: [],
  };
  return { model_result, protected_audit };
}
