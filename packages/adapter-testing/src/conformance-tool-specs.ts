import type { ToolSpec } from '@toolseal/result';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** A read tool: looks one item up. Its output echoes the id and carries free (untrusted) text. */
export const KIT_LOOKUP_SPEC: ToolSpec = {
  contract: {
    tool_name: 'kit_lookup',
    effect: 'read',
    input_revision: 'kit-lookup-input-r1',
    output_revision: 'kit-lookup-output-r1',
    effect_revision: 'kit-lookup-effect-r1',
    handler_revision: 'kit-lookup-handler-r1',
    producer_revision: 'kit-catalog-r1',
    policy_revision: 'kit-lookup-policy-r1',
  },
  source_label: 'kit-catalog',
  input_schema: {
    $schema: SCHEMA,
    type: 'object',
    additionalProperties: false,
    required: ['item_id'],
    properties: { item_id: { type: 'string', minLength: 1, maxLength: 64 } },
  },
  output_schema: {
    $schema: SCHEMA,
    type: 'object',
    additionalProperties: false,
    required: ['item_id', 'note'],
    properties: {
      item_id: { type: 'string', minLength: 1, maxLength: 64 },
      note: { type: 'string', maxLength: 512 },
    },
  },
  echo: { '/item_id': '/item_id' },
  resource_revision: { pattern: '^kit-item-r[0-9]{1,9}$' },
};

/** A write tool: drafts a change. Sealed with an idempotency key and a downstream receipt. */
export const KIT_WRITE_SPEC: ToolSpec = {
  contract: {
    tool_name: 'kit_write',
    effect: 'write',
    input_revision: 'kit-write-input-r1',
    output_revision: 'kit-write-output-r1',
    effect_revision: 'kit-write-effect-r1',
    handler_revision: 'kit-write-handler-r1',
    producer_revision: 'kit-ledger-r1',
    policy_revision: 'kit-write-policy-r1',
  },
  source_label: 'kit-ledger',
  input_schema: {
    $schema: SCHEMA,
    type: 'object',
    additionalProperties: false,
    required: ['item_id', 'amount'],
    properties: {
      item_id: { type: 'string', minLength: 1, maxLength: 64 },
      amount: { type: 'integer', minimum: 1, maximum: 10000 },
    },
  },
  output_schema: {
    $schema: SCHEMA,
    type: 'object',
    additionalProperties: false,
    required: ['item_id', 'draft_ref', 'amount'],
    properties: {
      item_id: { type: 'string', minLength: 1, maxLength: 64 },
      draft_ref: { type: 'string', minLength: 1, maxLength: 64 },
      amount: { type: 'integer', minimum: 1, maximum: 10000 },
    },
  },
  echo: { '/item_id': '/item_id', '/amount': '/amount' },
  resource_revision: { pattern: '^kit-ledger-r[0-9]{1,9}$' },
};

/**
 * `kit_lookup` under a name in mixed case, `Kit_Lookup` (registry names are case-sensitive): the
 * mixed-case format case calls both, so an adapter that folds a name while formatting names the
 * other tool.
 */
export const KIT_LOOKUP_MIXED_CASE_SPEC: ToolSpec = {
  ...KIT_LOOKUP_SPEC,
  contract: { ...KIT_LOOKUP_SPEC.contract, tool_name: 'Kit_Lookup' },
};
