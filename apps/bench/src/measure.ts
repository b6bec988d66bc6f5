// A small, dependency-free benchmark harness: warm up, then several timed rounds; report the median.
// Figures from one run are compared as ratios only; absolute numbers depend on the machine.

export interface Measurement {
  /** What was measured. */
  name: string;
  /** Median operations per second over the rounds. */
  ops_per_second: number;
  /** Median microseconds per operation. */
  us_per_op: number;
  /** Operations per second of every round, for spread. */
  rounds: number[];
}

export interface MeasureOptions {
  /** Milliseconds of warm-up before the first timed round. */
  warmupMs?: number;
  /** Milliseconds per timed round. */
  roundMs?: number;
  /** Timed rounds; the median is reported. */
  rounds?: number;
}

/** The default pacing; `BENCH_QUICK=1` shortens every round for a smoke run. */
const QUICK = process.env.BENCH_QUICK === '1';
export const DEFAULT_PACING: Required<MeasureOptions> = QUICK
  ? { warmupMs: 40, roundMs: 40, rounds: 3 }
  : { warmupMs: 250, roundMs: 250, rounds: 7 };
/** Pacing for slow items (databases, 1 MB values): fewer, longer rounds. */
export const SLOW_PACING: Required<MeasureOptions> = QUICK
  ? { warmupMs: 40, roundMs: 80, rounds: 3 }
  : { warmupMs: 300, roundMs: 500, rounds: 3 };

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

// `pnpm bench` runs node with --expose-gc: one full collection before each measurement's warm-up,
// so it starts without the heap an earlier stage left. Not before every round: a forced full
// collection puts the heap in a state no long-running host is in (the rounds after it of a
// sealed call measured 51 to 94 µs, against a steady 45 to 49 µs without it, and MCP's 83 to 89
// against 72 to 73 µs). Garbage another contender leaves costs a young-generation collection
// nothing: only live objects are copied.
const collectGarbage = (globalThis as { gc?: () => void }).gc;

async function runFor(milliseconds: number, operation: () => unknown): Promise<number> {
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(milliseconds * 1e6));
  let count = 0;
  let batch = 1;
  for (;;) {
    for (let index = 0; index < batch; index++) {
      const value = operation();
      if (value instanceof Promise) await value;
    }
    count += batch;
    const elapsed = process.hrtime.bigint() - start;
    if (elapsed >= budget) return (count * 1e9) / Number(elapsed);
    if (batch < 1024) batch *= 2;
  }
}

/** Runs `clients` independent loops at once for `milliseconds`; returns total operations per second. */
async function runConcurrentFor(milliseconds: number, clients: readonly (() => Promise<unknown>)[]): Promise<number> {
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(milliseconds * 1e6));
  let count = 0;
  await Promise.all(
    clients.map(async (operation) => {
      while (process.hrtime.bigint() < deadline) {
        await operation();
        count++;
      }
    }),
  );
  return (count * 1e9) / Number(process.hrtime.bigint() - start);
}

function toMeasurement(name: string, perRound: number[]): Measurement {
  const opsPerSecond = median(perRound);
  return { name, ops_per_second: opsPerSecond, us_per_op: 1e6 / opsPerSecond, rounds: perRound };
}

/** Measures `operation` (sync or async) and returns the median throughput. */
export async function measure(name: string, operation: () => unknown, options: MeasureOptions = {}): Promise<Measurement> {
  const { warmupMs, roundMs, rounds } = { ...DEFAULT_PACING, ...options };
  collectGarbage?.();
  await runFor(warmupMs, operation);
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) perRound.push(await runFor(roundMs, operation));
  return toMeasurement(name, perRound);
}

/**
 * Measures several operations in interleaved rounds (A, B, C, A, B, C, ...), so a slow phase of a
 * shared machine hits all of them alike and their ratios stay meaningful.
 */
export async function measureGroup(
  entries: readonly { name: string; operation: () => unknown }[],
  options: MeasureOptions = {},
): Promise<Measurement[]> {
  const { warmupMs, roundMs, rounds } = { ...DEFAULT_PACING, ...options };
  collectGarbage?.();
  for (const entry of entries) await runFor(warmupMs, entry.operation);
  const perRound = entries.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [index, entry] of entries.entries()) perRound[index]?.push(await runFor(roundMs, entry.operation));
  }
  return entries.map((entry, index) => toMeasurement(entry.name, perRound[index] ?? []));
}

/** Measures `clients` concurrent loops (each awaiting its own operation); total operations per second. */
export async function measureConcurrent(
  name: string,
  clients: readonly (() => Promise<unknown>)[],
  options: MeasureOptions = {},
): Promise<Measurement> {
  const { warmupMs, roundMs, rounds } = { ...DEFAULT_PACING, ...options };
  collectGarbage?.();
  await runConcurrentFor(warmupMs, clients);
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) perRound.push(await runConcurrentFor(roundMs, clients));
  return toMeasurement(name, perRound);
}

/** Times one call of `operation` several times and returns the median microseconds. */
export async function timeOnce(operation: () => unknown, repeats = 5): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < repeats; index++) {
    const start = process.hrtime.bigint();
    const value = operation();
    if (value instanceof Promise) await value;
    samples.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  return median(samples);
}
