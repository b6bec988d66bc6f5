// Runs with `node` in a throwaway consumer project that installed only some of the packed
// tarballs with npm (see ../packed-install.test.ts). It imports bare package names only, so
// nothing here can reach the workspace. Prints one JSON document on stdout.
//
// 1. Imports every export subpath of every installed @toolseal package (argv[2]: a JSON file with
//    the specifiers, JSON subpaths marked), so a missing file or undeclared dependency fails here.
// 2. One OpenAI Responses turn end to end with the public API, shaped like the dispatcher README
//    example: parse the function_call items, dispatch them (registry, guard, input contract,
//    trusted check, handler, output contract, seal, audit append into the memory stores of
//    @toolseal/audit), format the function_call_output items (verified again), verify the chain.
import { readFileSync } from 'node:fs';
import { createOpenAIResponsesAdapter, OPENAI_RESPONSES_ADAPTER_REVISION } from '@toolseal/adapter-openai';
import { isWellFormedIdentifier } from '@toolseal/adapter-core';
import { createMemoryStores, ManualClock } from '@toolseal/audit';
import { MODEL_RESULT_SCHEMA_VERSION } from '@toolseal/contracts';
import { canonicalize, createDigester } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createDispatcher } from '@toolseal/dispatcher';
import { isErrorCode } from '@toolseal/errors';
import { parseUntrustedJson } from '@toolseal/guard';
import { DECISION_CODES } from '@toolseal/proposal';
import { createToolRegistry } from '@toolseal/result';

const specifiers = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const imported = {};
const resolved = {};
for (const { specifier, json } of specifiers) {
  const namespace = json ? await import(specifier, { with: { type: 'json' } }) : await import(specifier);
  imported[specifier] = Object.keys(namespace).length;
  resolved[specifier] = import.meta.resolve(specifier);
}

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
// A fixed key and a fixed clock: the same turn gives the same bytes on every run.
const digester = createDigester({ key: new Uint8Array(32).fill(1), backend: nodeCryptoBackend });
const clock = new ManualClock(Date.parse('2026-07-19T00:00:05Z'));
const stores = createMemoryStores({ clock, digester });
let operations = 0;
const dispatcher = createDispatcher({
  registry,
  digester,
  stores,
  clock,
  operationId: () => `op-${++operations}`,
  tools: [
    {
      name: 'get_order',
      check: ({ principal, arguments: args }) =>
        principal.tenant_id === 'cedar' && args['order_id'] === 'ORDER-C7' ? { ok: true } : { ok: false, code: 'NOT_FOUND' },
      handler: ({ arguments: args }) => ({
        kind: 'data',
        data: { order_ref: args['order_id'] ?? null, status: 'paid' },
        resource_revision: 'order-c7-r3',
        observed_at: '2026-07-19T00:00:00Z',
      }),
    },
  ],
});

const adapter = createOpenAIResponsesAdapter();
const response = {
  id: 'resp_1',
  status: 'completed',
  output: [
    { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_order', arguments: '{"order_id":"ORDER-C7"}', status: 'completed' },
    { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_order', arguments: '{"order_id":"ORDER-M9"}', status: 'completed' },
  ],
};
const parsed = adapter.parseToolCalls(response);
if (!parsed.ok) throw new Error(`parse refused: ${JSON.stringify(parsed.error)}`);
const turn = await dispatcher.dispatch(parsed.calls, {
  principal: { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: [] },
});
const formatted = adapter.formatToolResults({
  calls: parsed.calls,
  results: turn.sealed,
  verify: turn.verify,
  options: { continuation: 'previous_response_id' },
});
if (!formatted.ok) throw new Error(`format refused: ${JSON.stringify(formatted.failures)}`);
const chain = await stores.auditLog.verifyChain();

console.log(
  JSON.stringify({
    imported,
    resolved,
    checks: {
      adapter_revision: OPENAI_RESPONSES_ADAPTER_REVISION,
      model_result_schema: MODEL_RESULT_SCHEMA_VERSION,
      canonical: canonicalize({ b: [1, 'é'], a: -0 }),
      guard_rejects_duplicate_keys: parseUntrustedJson('{"a":1,"a":2}').ok === false,
      not_found_is_catalogued: isErrorCode('NOT_FOUND'),
      well_formed_call_id: isWellFormedIdentifier('call_1', 256),
      access_refusal_code: DECISION_CODES.rejected_access,
    },
    gates: turn.results.map((result) => [result.call_id, result.gate, result.sealed.model_result.status]),
    chain: { ok: chain.ok, checked: chain.checked },
    payload: formatted.payload,
  }),
);
