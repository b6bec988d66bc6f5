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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

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

/** Measures `operation` (sync or async) and returns the median throughput. */
export async function measure(name: string, operation: () => unknown, options: MeasureOptions = {}): Promise<Measurement> {
  const { warmupMs = 300, roundMs = 400, rounds = 7 } = options;
  await runFor(warmupMs, operation);
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) perRound.push(await runFor(roundMs, operation));
  const opsPerSecond = median(perRound);
  return { name, ops_per_second: opsPerSecond, us_per_op: 1e6 / opsPerSecond, rounds: perRound };
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
