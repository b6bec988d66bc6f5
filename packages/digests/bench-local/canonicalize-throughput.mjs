// Local throughput check (not the project benchmark): canonicalize vs JSON.stringify on the same
// values. Run after building: `npx tsc -b tsconfig.build.json && node bench-local/canonicalize-throughput.mjs`.
// Optional: `JCS_COMPARE=/path/to/node_modules/json-canonicalize` adds that library for comparison.
import { canonicalize } from '../dist/index.js';

function record(index) {
  return {
    schema_version: 'tool-model-result-v2',
    status: 'succeeded',
    data: {
      order_ref: `ORDER-${index}`,
      status: index % 3 === 0 ? 'paid' : 'pending',
      amount: { value: 1234.5 + index, currency: 'EUR', minor_units: 123450 + index },
      customer: { name: `Zoë Müller-${index}`, email: `zoe${index}@example.com`, tags: ['vip', 'eu', 'line\nbreak'] },
      lines: [
        { line_id: 'L1', sku: `SKU-${index * 7}`, quantity: 2, unit_price: 19.99, refundable: true },
        { line_id: 'L2', sku: `SKU-${index * 11}`, quantity: 1, unit_price: 0.5, refundable: false },
      ],
      note: 'Customer says "hello" — please ship fast 🚀',
    },
    error: null,
    execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
    provenance: {
      source_label: 'orders',
      producer_revision: 'orders-mock-v2',
      resource_revision: 'order-7-r3',
      observed_at: '2026-07-19T00:00:00Z',
      trust: 'untrusted_data',
    },
  };
}
function ofSize(bytes) {
  const items = [];
  while (JSON.stringify(items).length < bytes) items.push(record(items.length));
  return { items, next_cursor: null };
}
function asciiOnly(value) {
  return JSON.parse(JSON.stringify(value).replace(/[^\x00-\x7f]/g, 'x'));
}
function megabytesPerSecond(run, value, bytes, milliseconds) {
  for (let index = 0; index < 3; index++) run(value);
  let runs = 0;
  const start = performance.now();
  let now;
  do {
    const text = run(value);
    if (text.length === 0) throw new Error('empty');
    runs++;
    now = performance.now();
  } while (now - start < milliseconds);
  return (bytes * runs) / 1e3 / (now - start);
}

const contenders = { 'JSON.stringify': (value) => JSON.stringify(value), canonicalize: (value) => canonicalize(value) };
if (process.env.JCS_COMPARE) {
  const library = await import(process.env.JCS_COMPARE);
  contenders['json-canonicalize'] = library.canonicalize ?? library.default.canonicalize;
}
const cases = { '1KB': record(3), '64KB': ofSize(65536), '1MB': ofSize(1 << 20) };
for (const [label, value] of Object.entries(cases)) {
  // 'parsed': the same value as JSON.parse returns it (sorted keys, non-internalized strings), the
  // shape of stored records and sealed results; it once ran at half the speed (see write-json-string.ts).
  for (const [flavour, input] of [['mixed', value], ['ascii', asciiOnly(value)], ['parsed', JSON.parse(canonicalize(value))]]) {
    const bytes = new TextEncoder().encode(JSON.stringify(input)).length;
    const row = { size: label, text: flavour };
    // Interleaved rounds, best of each: the machine is shared, so single runs are noisy.
    for (let round = 0; round < 5; round++) {
      for (const [name, run] of Object.entries(contenders)) {
        row[name] = Math.max(row[name] ?? 0, Math.round(megabytesPerSecond(run, input, bytes, 200)));
      }
    }
    row.ratio = (row.canonicalize / row['JSON.stringify']).toFixed(2);
    console.log(JSON.stringify(row));
  }
}
