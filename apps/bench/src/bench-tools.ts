// The tools, principal and calls every benchmark shares. `get_order` is the repository's shared
// contract (fixtures/tools/get-order.json, loaded the way @toolseal/result's tests load it);
// `list_items` is a bench-only contract with room for 1 MB results, exact at every level like
// every registered tool, so the size-scaling rows run every output gate.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallContext, JsonObject, PrincipalContext } from '@toolseal/contracts';
import type { HandlerData, ToolSpec } from '@toolseal/result';

/** The repository root, from `apps/bench/dist` (built) or `apps/bench/src`. */
export const REPOSITORY_ROOT = join(import.meta.dirname, '..', '..', '..');

function readToolSpec(file: string): ToolSpec {
  return JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'fixtures', 'tools', file), 'utf8')) as ToolSpec;
}

/** The three shared tool specs (fixtures/tools). */
export function loadSharedToolSpecs(): ToolSpec[] {
  return ['get-order.json', 'create-refund-draft.json', 'kb-search.json'].map(readToolSpec);
}

/** The trusted principal of every benchmarked call (spec 002's Cedar drafter). */
export const PRINCIPAL: PrincipalContext = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: ['support_drafter'] };

/** The arguments the model proposes for `get_order`, as JSON text. */
export const GET_ORDER_ARGUMENTS_TEXT = '{"order_id":"ORDER-C7"}';

/** What the `get_order` handler returns for ORDER-C7 (spec 002's trusted fixture facts). */
export function getOrderOutput(orderId: string): HandlerData {
  return {
    data: {
      order_ref: orderId,
      status: 'paid',
      amount: 6000,
      unit: 'CREDIT_A',
      lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }],
    },
    resource_revision: 'order-c7-r3',
    observed_at: '2026-07-19T00:00:00Z',
  };
}

/** An OpenAI Responses call context for sealing (read tool: no idempotency key). */
export function openAICallContext(callId: string, operationId: string): CallContext {
  return {
    provider: 'openai',
    api_family: 'responses',
    response_id: 'resp_bench_0001',
    call_id: callId,
    adapter_revision: 'openai-responses-v1',
    operation_id: operationId,
    idempotency_key: null,
  };
}

/** A fixed clock for sealing: every observed time is in its past. */
export const NOW = (): Date => new Date('2026-07-19T00:00:05Z');

/** A bench-only tool whose results can be 1 MB: a page of catalogue items. */
export const LIST_ITEMS_SPEC: ToolSpec = {
  contract: {
    tool_name: 'list_items',
    effect: 'read',
    input_revision: 'list-items-input-v1',
    output_revision: 'list-items-output-v1',
    effect_revision: 'list-items-effect-v1',
    handler_revision: 'catalog-handler-v1',
    producer_revision: 'catalog-v1',
    policy_revision: 'catalog-policy-v1',
  },
  source_label: 'catalog',
  input_schema: {
    type: 'object',
    additionalProperties: false,
    required: ['size'],
    properties: { size: { type: 'string', enum: ['1KB', '64KB', '1MB'] } },
  },
  output_schema: {
    type: 'object',
    additionalProperties: false,
    required: ['items'],
    properties: {
      items: {
        type: 'array',
        maxItems: 20_000,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['item_ref', 'title', 'note', 'quantity', 'price', 'tags', 'available'],
          properties: {
            item_ref: { type: 'string', maxLength: 64 },
            title: { type: 'string', maxLength: 256 },
            note: { type: 'string', maxLength: 1024 },
            quantity: { type: 'integer', minimum: 0, maximum: 1_000_000 },
            price: { type: 'number', minimum: 0, maximum: 1_000_000_000 },
            tags: { type: 'array', maxItems: 8, items: { type: 'string', maxLength: 32 } },
            available: { type: 'boolean' },
          },
        },
      },
    },
  },
  limits: {
    maxBytes: 2_097_152,
    maxDepth: 4,
    maxArrayItems: 20_000,
    maxObjectKeys: 16,
    maxStringLength: 1024,
    maxTotalNodes: 400_000,
  },
  resource_revision: { pattern: '^catalog-r[0-9]{1,9}$' },
};

/** One catalogue item of about 130 bytes, with some non-ASCII text. */
function item(index: number): JsonObject {
  return {
    item_ref: `ITEM-${index}`,
    title: `Zoë's item number ${index}`,
    note: 'Arrived damaged — "refund the line"; café crème.',
    quantity: index % 17,
    price: 12.5 + index * 0.25,
    tags: ['catalog', index % 2 === 0 ? 'even' : 'odd'],
    available: index % 3 !== 0,
  };
}

/** `list_items` data whose JSON text is about `bytes` long. */
export function listItemsData(bytes: number): JsonObject {
  const items: JsonObject[] = [];
  let length = 12;
  while (length < bytes) {
    const next = item(items.length);
    items.push(next);
    length += JSON.stringify(next).length + 1;
  }
  return { items };
}

/** The `list_items` handler output around `data`. */
export function listItemsOutput(data: JsonObject): HandlerData {
  return { data, resource_revision: 'catalog-r42', observed_at: '2026-07-19T00:00:00Z' };
}
