import { readFileSync } from 'node:fs';
import { createMemoryStores, systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createToolRegistry } from '@toolseal/result';
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { createDispatcher } from '../dist/index.js';

const spec = JSON.parse(readFileSync(new URL('../../../fixtures/tools/get-order.json', import.meta.url)));
const registry = createToolRegistry([spec]);
const backend = process.argv[2] === 'node' ? nodeCryptoBackend : undefined;
const digester = createDigester({ ...(process.argv[3] === 'plain' ? {} : { key: new Uint8Array(32).fill(3) }), ...(backend ? { backend } : {}) });
const stores = createMemoryStores({ clock: systemClock, digester });
const observed = new Date().toISOString();
const dispatcher = createDispatcher({
  registry, stores, digester,
  tools: [{ name: 'get_order', handler: ({ arguments: a }) => ({ kind: 'data', data: { order_ref: a.order_id, status: 'paid', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1, amount: 6000 }] }, resource_revision: 'order-c7-r1', observed_at: observed }) }],
});
const adapter = createOpenAIResponsesAdapter();
const principal = { tenant_id: 'cedar', subject_id: 'support-drafter-1', roles: [] };
let n = 0;
async function once(format) {
  const call = { provider: 'openai', api_family: 'responses', adapter_revision: 'openai-responses-v1', response_id: 'resp_1', call_id: `call_${n++}`, tool_name: 'get_order', arguments: { format: 'json_text', text: '{"order_id":"ORDER-C7"}' } };
  const turn = await dispatcher.dispatch([call], { principal });
  if (format) { const f = adapter.formatToolResults({ calls: [call], results: turn.sealed, verify: turn.verify, options: { continuation: 'previous_response_id' } }); if (!f.ok) throw new Error('x'); }
}
for (const format of [false, true]) {
  for (let i = 0; i < 5000; i++) await once(format);
  const start = process.hrtime.bigint(); const N = 20000;
  for (let i = 0; i < N; i++) await once(format);
  const us = Number(process.hrtime.bigint() - start) / 1e3 / N;
  console.log(format ? 'dispatch+format' : 'dispatch', backend ? 'node' : 'noble', us.toFixed(1), 'us/op', (1e6 / us).toFixed(0), 'ops/s');
}
