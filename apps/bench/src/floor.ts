// The floor (issue 8, item 3): the work a sealed `get_order` call cannot avoid, with no framework
// around it: JSON.parse of the arguments, one input and one output validation with the pinned Ajv,
// the canonical JSON of the result, and the SHA-256 digests of the protected audit (principal
// reference, request, result, call binding).
import type { JsonObject, ModelResult, ToolContract } from '@toolseal/contracts';
import { canonicalize, createDigester, type HashBackend } from '@toolseal/digests';
import { compileSchema } from '@toolseal/guard';
import type { ToolSpec } from '@toolseal/result';
import { GET_ORDER_ARGUMENTS_TEXT, PRINCIPAL, getOrderOutput, openAICallContext } from './bench-tools.js';

export interface FloorDigests {
  principal_ref: string;
  request_sha256: string;
  result_sha256: string;
  call_binding_sha256: string;
}

/** Builds the floor for `get_order` once; each call of the returned function is one call's work. */
export function createFloor(spec: ToolSpec, backend: HashBackend): () => FloorDigests {
  const validateInput = compileSchema<{ order_id: string }>(spec.input_schema);
  const validateOutput = compileSchema<JsonObject>(spec.output_schema);
  const digester = createDigester({ backend });
  const contract: ToolContract = spec.contract;
  const call = openAICallContext('call_floor', 'op-floor');

  return () => {
    const args = JSON.parse(GET_ORDER_ARGUMENTS_TEXT) as unknown;
    if (!validateInput(args)) throw new Error('floor: input rejected');
    const output = getOrderOutput(args.order_id);
    if (!validateOutput(output.data)) throw new Error('floor: output rejected');
    const modelResult: ModelResult = {
      schema_version: 'tool-model-result-v2',
      status: 'succeeded',
      data: output.data,
      error: null,
      execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
      provenance: {
        source_label: spec.source_label,
        producer_revision: contract.producer_revision,
        resource_revision: output.resource_revision,
        observed_at: output.observed_at,
        trust: 'untrusted_data',
      },
    };
    const canonical = canonicalize(modelResult);
    const principal_ref = digester.principalRef(PRINCIPAL);
    const request_sha256 = digester.requestDigest({
      tenant_id: PRINCIPAL.tenant_id,
      subject_id: PRINCIPAL.subject_id,
      tool_name: contract.tool_name,
      arguments: args,
      input_revision: contract.input_revision,
      output_revision: contract.output_revision,
      effect_revision: contract.effect_revision,
    });
    const result_sha256 = digester.resultDigestFromCanonical(canonical);
    const call_binding_sha256 = digester.callBindingDigest({
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      call_id: call.call_id,
      operation_id: call.operation_id,
      idempotency_key: call.idempotency_key,
      adapter_revision: call.adapter_revision,
      tool_contract: contract,
      request_sha256,
      result_sha256,
    });
    return { principal_ref, request_sha256, result_sha256, call_binding_sha256 };
  };
}
