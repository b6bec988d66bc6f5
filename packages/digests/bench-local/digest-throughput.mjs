// Local throughput check of the hash backends and of resultDigest end to end (canonicalize,
// UTF-8, SHA-256, hex). Run after building: `node bench-local/digest-throughput.mjs`.
import { createDigester, nobleBackend } from '../dist/index.js';
import { nodeCryptoBackend } from '../dist/node.js';

function megabytesPerSecond(run, bytes, milliseconds = 200) {
  for (let index = 0; index < 3; index++) run();
  let runs = 0;
  const start = performance.now();
  let now;
  do {
    run();
    runs++;
    now = performance.now();
  } while (now - start < milliseconds);
  return (bytes * runs) / 1e3 / (now - start);
}
function best(run, bytes) {
  let top = 0;
  for (let round = 0; round < 5; round++) top = Math.max(top, megabytesPerSecond(run, bytes));
  return Math.round(top);
}

const key = new Uint8Array(32).fill(7);
for (const size of [1024, 65536, 1 << 20]) {
  const data = new Uint8Array(size).map((_, index) => index * 31);
  const row = { bytes: size };
  for (const backend of [nobleBackend, nodeCryptoBackend]) {
    row[`${backend.name} sha256`] = best(() => backend.sha256(data), size);
    row[`${backend.name} hmac`] = best(() => backend.hmacSha256(key, data), size);
  }
  console.log(JSON.stringify(row));
}

const modelResult = {
  schema_version: 'tool-model-result-v2',
  status: 'succeeded',
  data: { items: Array.from({ length: 1200 }, (_, index) => ({ id: `item-${index}`, title: `Zoë item ${index}`, price: index * 1.25, tags: ['a', 'b'] })) },
  error: null,
  execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
  provenance: { source_label: 'catalog', producer_revision: 'v1', resource_revision: 'r1', observed_at: '2026-07-19T00:00:00Z', trust: 'untrusted_data' },
};
const bytes = new TextEncoder().encode(JSON.stringify(modelResult)).length;
const row = { resultDigest_bytes: bytes };
for (const backend of [nobleBackend, nodeCryptoBackend]) {
  const digester = createDigester({ backend });
  row[`${backend.name} resultDigest`] = best(() => digester.resultDigest(modelResult), bytes);
}
console.log(JSON.stringify(row));
