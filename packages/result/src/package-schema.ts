/**
 * JSON Schemas (2020-12) of the sealed package, kept beside the code that relies on them: the
 * model-visible v2 result and the protected audit. They restate the generated
 * `@toolseal/contracts` schemas (a test runs both on the same samples, every sealed fixture and
 * every single-leaf change of it, and requires the same verdicts) with deliberate differences:
 * `data` is only required to be an object or `null` here, because the tool's exact output schema
 * validates it right after, and walking it twice (the generated schema checks every nested JSON
 * value) would double the cost on large results; and `observed_at` is checked for its form only,
 * as `parseUtcTimestamp` checks the instant right after (a day that does not exist, such as
 * 2026-02-31, and a leap second are refused there; the generated schema's `format: date-time`
 * refuses the first and accepts the second).
 */

import { ERROR_CODES } from '@toolseal/errors';
import { CONTRACT_KEYS, PROVIDER_CONTEXT_KEYS } from './contract-keys.js';
import { REVISION_ALPHABET } from './revision-alphabet.js';

const SHA256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const REVISION = { type: 'string', minLength: 1, maxLength: 64 } as const;

/** `ModelResult` (tool-model-result-v2), with `data` left to the tool's output contract. */
export const MODEL_RESULT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['schema_version', 'status', 'data', 'error', 'execution', 'provenance'],
  properties: {
    schema_version: { type: 'string', const: 'tool-model-result-v2' },
    status: { type: 'string', enum: ['succeeded', 'failed', 'unknown'] },
    data: { anyOf: [{ type: 'null' }, { type: 'object' }] },
    error: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'category', 'safe_message', 'recovery', 'retry_after_ms', 'reasons'],
          properties: {
            code: { type: 'string', enum: [...ERROR_CODES] },
            category: {
              type: 'string',
              enum: ['input', 'access', 'business_rule', 'state', 'approval', 'availability', 'execution', 'conflict', 'contract'],
            },
            safe_message: { type: 'string', maxLength: 300 },
            recovery: {
              type: 'string',
              enum: ['correct_input', 'none', 'request_approval', 'retry_after', 'query_status', 'human_review', 'refresh_state', 'hold'],
            },
            retry_after_ms: { anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0, maximum: 86_400_000 }] },
            reasons: {
              type: 'array',
              maxItems: 16,
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['field', 'rule'],
                properties: {
                  field: { type: 'string', maxLength: 256, pattern: '^(/([A-Za-z0-9_]{1,64}|[0-9]{1,6})){0,16}$' },
                  rule: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
                },
              },
            },
          },
        },
      ],
    },
    execution: {
      type: 'object',
      additionalProperties: false,
      required: ['outcome', 'delivery', 'complete', 'truncated'],
      properties: {
        outcome: { type: 'string', enum: ['not_started', 'committed', 'unknown'] },
        delivery: { type: 'string', enum: ['fresh', 'local_replay', 'receipt_reconciled'] },
        complete: { type: 'boolean' },
        truncated: { type: 'boolean' },
      },
    },
    provenance: {
      type: 'object',
      additionalProperties: false,
      required: ['source_label', 'producer_revision', 'resource_revision', 'observed_at', 'trust'],
      properties: {
        source_label: { type: 'string', minLength: 1, maxLength: 64 },
        producer_revision: REVISION,
        resource_revision: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: 128, pattern: REVISION_ALPHABET.source }] },
        observed_at: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$' },
        trust: { type: 'string', enum: ['untrusted_data', 'trusted_control'] },
      },
    },
  },
} as const;

/** `ProtectedAudit` (tool-protected-audit-v1). */
export const PROTECTED_AUDIT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['schema_version', 'principal_ref', 'provider_context', 'tool_contract', 'downstream', 'binding', 'redactions'],
  properties: {
    schema_version: { type: 'string', const: 'tool-protected-audit-v1' },
    principal_ref: SHA256,
    provider_context: {
      type: 'object',
      additionalProperties: false,
      required: [...PROVIDER_CONTEXT_KEYS],
      properties: {
        provider: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$' },
        api_family: { type: 'string', pattern: '^[a-z][a-z0-9_.-]{0,63}$' },
        response_id: { type: 'string', minLength: 1, maxLength: 256 },
        call_id: { type: 'string', minLength: 1, maxLength: 256 },
        adapter_revision: REVISION,
      },
    },
    tool_contract: {
      type: 'object',
      additionalProperties: false,
      required: [...CONTRACT_KEYS],
      properties: {
        tool_name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' },
        effect: { type: 'string', enum: ['read', 'write'] },
        input_revision: REVISION,
        output_revision: REVISION,
        effect_revision: REVISION,
        handler_revision: REVISION,
        producer_revision: REVISION,
        policy_revision: REVISION,
      },
    },
    downstream: {
      type: 'object',
      additionalProperties: false,
      required: ['operation_id', 'idempotency_key', 'receipt', 'status_ref'],
      properties: {
        operation_id: { type: 'string', minLength: 1, maxLength: 128 },
        idempotency_key: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: 256 }] },
        receipt: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\u0000]*$' }] },
        status_ref: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\u0000]*$' }] },
      },
    },
    binding: {
      type: 'object',
      additionalProperties: false,
      required: ['request_sha256', 'result_sha256', 'call_binding_sha256'],
      properties: { request_sha256: SHA256, result_sha256: SHA256, call_binding_sha256: SHA256 },
    },
    redactions: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'reason'],
        properties: {
          path: { type: 'string', maxLength: 256 },
          reason: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
        },
      },
    },
  },
} as const;
