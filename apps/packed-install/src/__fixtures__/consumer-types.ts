// Type-checked (never run) in the throwaway consumer project against the shipped .d.ts files, as
// a TypeScript user compiles it: module/moduleResolution node16, strict, skipLibCheck false. The
// same turn as consumer-script.mjs, with the public types written out. The `@ts-expect-error`
// lines prove the declarations are enforced, not `any`.
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { isWellFormedIdentifier } from '@toolseal/adapter-core';
import { createMemoryStores, ManualClock, type Clock } from '@toolseal/audit';
import type { ModelResult, PrincipalContext, ToolCall } from '@toolseal/contracts';
import { createDigester, type Digester } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createDispatcher, type DispatchedTurn, type DispatcherTool } from '@toolseal/dispatcher';
import { isErrorCode } from '@toolseal/errors';
import { parseUntrustedJson } from '@toolseal/guard';
import { DECISION_CODES } from '@toolseal/proposal';
import { createToolRegistry, type ToolSpec } from '@toolseal/result';

const spec: ToolSpec = {
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
};
const registry = createToolRegistry([spec]);
const digester: Digester = createDigester({ key: new Uint8Array(32).fill(1), backend: nodeCryptoBackend });
const clock: Clock = new ManualClock(Date.parse('2026-07-19T00:00:05Z'));
const getOrder: DispatcherTool = {
  name: 'get_order',
  check: ({ principal, arguments: args }) =>
    principal.tenant_id === 'cedar' && args['order_id'] === 'ORDER-C7' ? { ok: true } : { ok: false, code: 'NOT_FOUND' },
  handler: ({ arguments: args }) => ({
    kind: 'data',
    data: { order_ref: args['order_id'] ?? null, status: 'paid' },
    resource_revision: 'order-c7-r3',
    observed_at: '2026-07-19T00:00:00Z',
  }),
};
const dispatcher = createDispatcher({
  registry,
  digester,
  stores: createMemoryStores({ clock, digester }),
  clock,
  tools: [getOrder],
});

const adapter = createOpenAIResponsesAdapter();
// What the SDK's `client.responses.create` resolves to, cut to one function_call item.
const response = {
  id: 'resp_1',
  status: 'completed',
  output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_order', arguments: '{"order_id":"ORDER-C7"}', status: 'completed' }],
};
const parsed = adapter.parseToolCalls(response);
if (!parsed.ok) throw new Error(parsed.error.code);
const calls: readonly ToolCall[] = parsed.calls;
const principal: PrincipalContext = { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: [] };
const turn: DispatchedTurn = await dispatcher.dispatch(calls, { principal });
const first: ModelResult | undefined = turn.results[0]?.sealed.model_result;
const formatted = adapter.formatToolResults({
  calls,
  results: turn.sealed,
  verify: turn.verify,
  options: { continuation: 'previous_response_id' },
});
if (formatted.ok) {
  const item = formatted.payload.input[0];
  const output: string | undefined = item?.type === 'function_call_output' ? item.output : undefined;
  console.log(output, first?.status);
}

const checks: boolean[] = [
  isWellFormedIdentifier('call_1', 256),
  isErrorCode('NOT_FOUND'),
  parseUntrustedJson('{"a":1}').ok,
  DECISION_CODES.rejected_access === 'NOT_FOUND',
];
console.log(checks);

// @ts-expect-error a principal needs subject_id and roles
const incomplete: PrincipalContext = { tenant_id: 'cedar' };
// @ts-expect-error the digester's key is bytes, not text
createDigester({ key: 'not bytes' });
// @ts-expect-error dispatch takes the context second
await dispatcher.dispatch(calls);
void incomplete;
