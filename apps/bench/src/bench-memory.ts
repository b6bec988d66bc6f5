// Memory after 100,000 sealed calls (issue 8, item 7): the heap, after full garbage collections,
// may grow only by what the store keeps. The in-memory store keeps every audit entry in the heap,
// so its growth per call is compared with the heap cost of the same entries appended to a store
// alone; the SQLite and PostgreSQL stores keep them in the database, so their heap must stay flat.
import { createMemoryStores, systemClock } from '@toolseal/audit';
import { createDigester, type Digester } from '@toolseal/digests';
import type { DispatcherStores } from '@toolseal/dispatcher';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import type { Report } from './report.js';
import { createSealedCallHost } from './sealed-call.js';
import { openStoreClients, type StoreKind } from './store-clients.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CALLS = QUICK ? 10_000 : 100_000;
const WARMUP_CALLS = QUICK ? 500 : 2_000;
const MB = 1024 * 1024;

interface Sample {
  calls: number;
  heap: number;
  rss: number;
}

function settle(gc: () => void): { heap: number; rss: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, rss: usage.rss };
}

/** Bytes per call of the heap between the first checkpoint and the last (after the warm region). */
function slope(samples: readonly Sample[]): number {
  const first = samples[1] ?? samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || last.calls === first.calls) return Number.NaN;
  return (last.heap - first.heap) / (last.calls - first.calls);
}

const STORE_ALONE_ENTRIES = CALLS / 4;

/**
 * What the memory store alone keeps per entry: the dispatcher's entry appended to a fresh memory
 * store. A function of its own, so that store is unreachable once it returns (a variable of the
 * caller's suspended async frame kept it alive into the next store's run).
 */
async function storedEntryBytesOf(client: DispatcherStores, digester: Digester, gc: () => void): Promise<number> {
  const page = await client.auditLog.query({ kind: 'sealed_call' }, { limit: 1 });
  const body = page.entries[0]?.body;
  if (body === undefined) throw new Error('bench: no audit entry to copy');
  const alone = createMemoryStores({ clock: systemClock, digester });
  const before = settle(gc);
  for (let index = 0; index < STORE_ALONE_ENTRIES; index++) {
    await alone.auditLog.append({ kind: 'sealed_call', call_id: `call_${index}`, operation_id: crypto.randomUUID(), idempotency_key: null, body });
  }
  const bytes = (settle(gc).heap - before.heap) / STORE_ALONE_ENTRIES;
  // Keeps the store reachable until after the measurement.
  if ((await alone.auditLog.head())?.sequence !== STORE_ALONE_ENTRIES) throw new Error('bench: the store alone lost entries');
  return bytes;
}

export async function benchMemoryGrowth(report: Report): Promise<void> {
  const section = `Memory across ${CALLS.toLocaleString('en-US')} sealed calls (node:crypto, heap after full GC)`;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    report.skip(section, 'needs node --expose-gc (the bench script passes it)');
    return;
  }
  const digester = createDigester({ backend: nodeCryptoBackend });
  const growth = new Map<StoreKind, number>();
  let storedEntryBytes = Number.NaN;
  for (const kind of ['memory', 'sqlite', 'postgres'] as const) {
    // SQLite with synchronous=normal and PostgreSQL with synchronous_commit=off here: this run is
    // about the heap, not about fsync latency.
    const opened = await openStoreClients(kind, 1, digester, { sqliteSynchronous: 'normal', postgresSynchronousCommit: 'off' });
    if ('skipped' in opened) {
      report.skip(`${section}: ${kind}`, opened.skipped);
      continue;
    }
    try {
      const client = opened.clients[0];
      if (client === undefined) throw new Error('bench: no store client');
      const host = createSealedCallHost(client, digester);
      for (let index = 0; index < WARMUP_CALLS; index++) await host.call();
      const start = settle(gc);
      const samples: Sample[] = [{ calls: 0, ...start }];
      const started = Date.now();
      for (let done = 0; done < CALLS; ) {
        const checkpoint = done + CALLS / 4;
        for (; done < checkpoint; done++) await host.call();
        samples.push({ calls: done, ...settle(gc) });
      }
      const seconds = (Date.now() - started) / 1000;
      const end = samples[samples.length - 1] ?? samples[0];
      if (end === undefined) throw new Error('bench: no samples');
      const perCall = slope(samples);
      growth.set(kind, perCall);
      report.add({
        section,
        name: `${kind}: heap before → after`,
        value: end.heap / MB,
        unit: 'MB',
        note: `${(start.heap / MB).toFixed(1)} MB → ${(end.heap / MB).toFixed(1)} MB; checkpoints ${samples.map((sample) => (sample.heap / MB).toFixed(1)).join(', ')} MB; ${Math.round(CALLS / seconds).toLocaleString('en-US')} calls/s`,
      });
      report.add({
        section,
        name: `${kind}: RSS before → after`,
        value: end.rss / MB,
        unit: 'MB',
        note: `${(start.rss / MB).toFixed(1)} MB → ${(end.rss / MB).toFixed(1)} MB`,
      });
      report.add({ section, name: `${kind}: heap growth per call`, value: perCall, unit: 'bytes', note: 'slope from the first checkpoint to the last' });

      if (kind === 'memory') {
        storedEntryBytes = await storedEntryBytesOf(client, digester, gc);
        report.add({
          section,
          name: 'memory store alone: heap per stored audit entry',
          value: storedEntryBytes,
          unit: 'bytes',
          note: `${STORE_ALONE_ENTRIES.toLocaleString('en-US')} copies of the dispatcher's entry appended to a fresh memory store`,
        });
      }
    } finally {
      await opened.close();
    }
  }
  const memoryGrowth = growth.get('memory');
  if (memoryGrowth !== undefined) {
    report.ratio(
      'memory store: heap growth per call ÷ heap per stored entry',
      memoryGrowth / storedEntryBytes,
      'heap growth per sealed call ÷ heap the memory store alone keeps per audit entry (1.0 = nothing but the store grows)',
      { comparison: '<=', threshold: 1.1 },
    );
  }
  for (const [kind, label] of [
    ['sqlite', 'SQLite'],
    ['postgres', 'PostgreSQL'],
  ] as const) {
    const perCall = growth.get(kind);
    if (perCall === undefined) continue;
    report.ratio(
      `${label} store: heap growth per call`,
      perCall,
      'heap growth per sealed call with a store that keeps nothing in the heap (noise around 0)',
      { comparison: '<=', threshold: 16 },
      'bytes',
    );
  }
}
