import { createMemoryStores, systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { createDispatcher } from '@toolseal/dispatcher';
import { createToolRegistry } from '@toolseal/result';

// Start-up: contracts compiled once, every tool paired with its code. A mistake throws here.
const registry = createToolRegistry([
  {
    contract: {
      tool_name: 'get_order', effect: 'read',
      input_revision: 'in-1', output_revision: 'out-1', effect_revision: 'eff-1',
      handler_revision: 'h-1', producer_revision: 'orders-v1', policy_revision: 'pol-1',
    },
    source_label: 'orders',
    input_schema: {
      type: 'object', additionalProperties: false, required: ['order_id'],
      properties: { order_id: { type: 'string', maxLength: 64 } },
    },
    output_schema: {
      type: 'object', additionalProperties: false, required: ['order_ref', 'status'],
      properties: {
        order_ref: { type: 'string', maxLength: 64 },
        status: { type: 'string', enum: ['paid', 'pending', 'refunded'] },
      },
    },
    echo: { '/order_ref': '/order_id' },
    resource_revision: { pattern: '^order-[a-z0-9]+-r[0-9]+$' },
  },
]);
const digester = createDigester({ key: new Uint8Array(32).fill(1) }); // use a real secret
const dispatcher = createDispatcher({
  registry,
  digester,
  stores: createMemoryStores({ clock: systemClock, digester }), // or @toolseal/store-sqlite, -postgres
  tools: [
    {
      name: 'get_order',
      // Trusted check: the principal comes from the host, never from the arguments.
      check: ({ principal, arguments: args }) =>
        principal.tenant_id === 'cedar' && args['order_id'] === 'ORDER-C7' ? { ok: true } : { ok: false, code: 'NOT_FOUND' },
      handler: ({ arguments: args }) => ({
        kind: 'data',
        data: { order_ref: args['order_id'] ?? null, status: 'paid' },
        resource_revision: 'order-c7-r3',
        observed_at: new Date().toISOString(),
      }),
    },
  ],
});

// Per turn: the calls come from adapter.parseToolCalls, the principal from your authentication.
const calls = [
  {
    provider: 'openai', api_family: 'responses', adapter_revision: 'openai-responses-v1',
    response_id: 'resp_1', call_id: 'call_1', tool_name: 'get_order',
    arguments: { format: 'json_text' as const, text: '{"order_id":"ORDER-C7"}' },
  },
  {
    provider: 'openai', api_family: 'responses', adapter_revision: 'openai-responses-v1',
    response_id: 'resp_1', call_id: 'call_2', tool_name: 'get_order',
    arguments: { format: 'json_text' as const, text: '{"order_id":"ORDER-M9"}' },
  },
];
const turn = await dispatcher.dispatch(calls, {
  principal: { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: [] },
});
for (const result of turn.results) {
  console.log(result.call_id, result.gate, result.sealed.model_result.status, result.sealed.model_result.error?.code ?? '');
}
// call_1 sealed succeeded
// call_2 trusted_checks failed NOT_FOUND
// Then: adapter.formatToolResults({ calls, results: turn.sealed, verify: turn.verify, options })
