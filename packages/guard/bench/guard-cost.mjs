// Cost per KB of the guard against bare JSON.parse (run after `pnpm build`): node bench/guard-cost.mjs
// Also times an optimistic JS value builder (no limits, no duplicate checks) to show why the guard
// scans and then calls the native JSON.parse instead of building values itself.
import { parseUntrustedJson, scanJsonText, DEFAULT_JSON_LIMITS, checkUntrustedValue } from '../dist/index.js';

// Optimistic builder: recursive descent building values, no limits, no dup checks (upper bound for "build it ourselves").
function build(text) {
  let i = 0;
  const ws = () => { let c; while ((c = text.charCodeAt(i)) === 32 || c === 10 || c === 13 || c === 9) i++; };
  const str = () => { i++; let out = ''; let s = i; for (;;) { const c = text.charCodeAt(i); if (c === 34) { out += text.slice(s, i); i++; return out; } if (c === 92) { out += text.slice(s, i); const e = text[i + 1]; if (e === 'u') { out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)); i += 6; } else { out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' })[e] ?? e; i += 2; } s = i; continue; } i++; } };
  const val = () => { ws(); const c = text.charCodeAt(i);
    if (c === 123) { i++; const o = {}; ws(); if (text.charCodeAt(i) === 125) { i++; return o; } for (;;) { ws(); const k = str(); ws(); i++; o[k] = val(); ws(); const d = text.charCodeAt(i++); if (d === 125) return o; } }
    if (c === 91) { i++; const a = []; ws(); if (text.charCodeAt(i) === 93) { i++; return a; } for (;;) { a.push(val()); ws(); const d = text.charCodeAt(i++); if (d === 93) return a; } }
    if (c === 34) return str();
    if (c === 116) { i += 4; return true; } if (c === 102) { i += 5; return false; } if (c === 110) { i += 4; return null; }
    const s = i; while (i < text.length && /[-+0-9.eE]/.test(text[i])) i++; return Number(text.slice(s, i)); };
  return val();
}

const docs = {
  'tool args 0.3KB': JSON.stringify({ order_id: 'ORDER-C7', amount: 6000, unit: 'CREDIT_A', lines: [{ line_id: 'LINE-1', quantity: 1 }, { line_id: 'LINE-2', quantity: 3 }], note: 'Customer reported the item arrived damaged; refund the full line.' }),
  'records 100KB': JSON.stringify({ items: Array.from({ length: 600 }, (_, i) => ({ id: `item-${i}`, name: `Item number ${i}`, price: i * 1.25, qty: i % 7, tags: ['a', 'b'], ok: i % 2 === 0, meta: null })) }),
  'text-heavy 100KB': JSON.stringify({ title: 'Refund help', results: Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/${i}`, text: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, «ünïcödé» text. '.repeat(25) })) }),
  'numbers 100KB': JSON.stringify(Array.from({ length: 12000 }, (_, i) => i * 3.14159)),
};

const limits = { ...DEFAULT_JSON_LIMITS, maxBytes: 10_000_000, maxArrayItems: 100_000, maxTotalNodes: 1_000_000 };
function time(fn, text) {
  const bytes = Buffer.byteLength(text);
  const iterations = Math.max(200, Math.floor(20_000_000 / bytes));
  for (let k = 0; k < iterations / 4; k++) fn(text);
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t = process.hrtime.bigint();
    for (let k = 0; k < iterations; k++) fn(text);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / iterations);
  }
  return best / (bytes / 1024); // ns per KB
}
console.log('document | JSON.parse ns/KB | scan only | guard (scan+parse) | guard/JSON.parse | optimistic JS builder | checkUntrustedValue on parsed value');
for (const [name, text] of Object.entries(docs)) {
  const parsed = JSON.parse(text);
  if (!parseUntrustedJson(text, limits).ok) throw new Error('rejected ' + name);
  const bare = time((t) => JSON.parse(t), text);
  const scan = time((t) => scanJsonText(t, limits), text);
  const guard = time((t) => parseUntrustedJson(t, limits), text);
  const builder = time((t) => build(t), text);
  const check = time(() => checkUntrustedValue(parsed, limits), text);
  console.log(`${name} | ${bare.toFixed(0)} | ${scan.toFixed(0)} | ${guard.toFixed(0)} | ${(guard / bare).toFixed(2)}x | ${builder.toFixed(0)} | ${check.toFixed(0)}`);
}
