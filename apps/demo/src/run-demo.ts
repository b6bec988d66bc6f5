import { systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { parseCliOptions, USAGE, type CliOptions } from './cli-options.js';
import { describeError } from './describe-error.js';
import { openDemoStores, type DemoStoreOptions, type DemoStores } from './demo-stores.js';
import { chooseStyle, renderSummary, renderTurn } from './render-text.js';
import { DEMO_KEY, runScenario, type ScenarioRun } from './run-scenario.js';

/** Every expectation of the scenario was met (or `--help`). */
export const EXIT_MET = 0;
/** The scenario ran to its end and an expectation failed. */
export const EXIT_EXPECTATION_FAILED = 1;
/** A usage error, or a store that failed: opening it, at any call, or closing it. */
export const EXIT_USAGE_OR_STORE = 2;

/** Where the demo writes, and the environment it reads (`NO_COLOR`, `FORCE_COLOR`, `DATABASE_URL`). */
export interface DemoIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

/**
 * How long opening the stores may take (ms). Longer than PostgreSQL's connection timeout (10 000),
 * whose own message then explains a server that does not answer at all; this bound catches one that
 * connects and then does not answer (opening reads every table: one another session holds locked).
 */
export const OPEN_TIMEOUT_MS = 15_000;
/** How long closing the stores may take (ms): a pool waits for the query a hung store never ends. */
export const CLOSE_TIMEOUT_MS = 5_000;

/** For tests: stores that fail on purpose, and shorter waits for them. */
export interface DemoHooks {
  /** Opens the stores (default `openDemoStores`). */
  openStores?: (options: DemoStoreOptions) => Promise<DemoStores>;
  /** The dispatcher's `storeTimeoutMs` (default `DEMO_STORE_TIMEOUT_MS`, 10 000); a store call unanswered for half of it fails the run. */
  storeTimeoutMs?: number;
  /** Default `OPEN_TIMEOUT_MS`. */
  openTimeoutMs?: number;
  /** Default `CLOSE_TIMEOUT_MS`. */
  closeTimeoutMs?: number;
}

/** `promise`'s outcome, or `timeout` when it has not settled after `ms` (the timer holds no process open). */
async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The demo's command line: parses `argv`, runs the scenario, writes the text or the JSON document
 * to `io.stdout` and returns the exit code. An expected failure (usage, store) is one line on
 * `io.stderr`, never a stack; a store failing before or during the first call leaves stdout empty.
 */
export async function runDemo(argv: readonly string[], io: DemoIo, hooks: DemoHooks = {}): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliOptions(argv);
  } catch (error) {
    io.stderr.write(`${describeError(error)}\n\n${USAGE}\n`);
    return EXIT_USAGE_OR_STORE;
  }
  if (options.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT_MET;
  }
  const style = chooseStyle(io.stdout, io.env);
  const databaseUrl = io.env['DATABASE_URL'];
  const cannotOpen = (message: string): number => {
    io.stderr.write(`demo: cannot open the ${options.store} store: ${message}\n`);
    return EXIT_USAGE_OR_STORE;
  };
  const openTimeoutMs = hooks.openTimeoutMs ?? OPEN_TIMEOUT_MS;
  let stores: DemoStores;
  try {
    const opening = (hooks.openStores ?? openDemoStores)({
      kind: options.store,
      ...(options.sqlitePath === undefined ? {} : { sqlitePath: options.sqlitePath }),
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      clock: systemClock,
      digester: createDigester({ key: DEMO_KEY }),
    });
    const opened = await settleWithin(opening, openTimeoutMs);
    if (opened === 'timeout') {
      // Stores that open after all are closed, unused.
      opening.then((late) => late.close()).catch(() => undefined);
      return cannotOpen(`no answer within ${openTimeoutMs} ms`);
    }
    stores = opened.value;
  } catch (error) {
    return cannotOpen(describeError(error));
  }
  const closeTimeoutMs = hooks.closeTimeoutMs ?? CLOSE_TIMEOUT_MS;
  /** Closes the stores; what went wrong, or `null`. */
  const close = async (): Promise<string | null> => {
    try {
      const closed = await settleWithin(stores.close(), closeTimeoutMs);
      return closed === 'timeout' ? `close did not answer within ${closeTimeoutMs} ms` : null;
    } catch (error) {
      return `close: ${describeError(error)}`;
    }
  };
  const storeFailed = (message: string): number => {
    io.stderr.write(`demo: the ${options.store} store failed (${stores.location}): ${message}\n`);
    return EXIT_USAGE_OR_STORE;
  };

  // The header waits for the first turn, which is reported only once its calls went through the
  // store: a store failing before or during the first call leaves stdout empty.
  let header: string[] = [
    style.bold('toolseal demo: a support agent of tenant Cedar (fabricated), its tools, and a model that is not trusted'),
    style.dim(`store: ${options.store} (${stores.location}); digests are HMAC-SHA-256 under a published demo key`),
    style.dim('per call: the decision, exactly what the provider receives, and what went to the protected audit'),
  ];
  const write = (lines: string[]): void => {
    if (options.json) return;
    io.stdout.write(`${[...header, ...lines].join('\n')}\n`);
    header = [];
  };
  let run: ScenarioRun;
  try {
    run = await runScenario({
      stores,
      storeKind: options.store,
      ...(options.providers === undefined ? {} : { providers: options.providers }),
      ...(hooks.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: hooks.storeTimeoutMs }),
      onTurn: (turn) => write(renderTurn(turn, style)),
    });
  } catch (error) {
    // Not a store failure (runScenario answers those): a bug of the demo, to surface with its stack.
    await close();
    throw error;
  }
  if (!run.ok) {
    // Said before closing, which may fail too (one line: the first failure) or wait for a hung call.
    const code = storeFailed(run.error.message);
    await close();
    return code;
  }
  // Closed before the summary or the JSON document: a report is printed only for a store that
  // closed cleanly, so that its records are all there.
  const closeFailure = await close();
  if (closeFailure !== null) return storeFailed(closeFailure);
  if (options.json) io.stdout.write(`${JSON.stringify(run.report, null, 2)}\n`);
  else write(renderSummary(run.report, style));
  return run.report.ok ? EXIT_MET : EXIT_EXPECTATION_FAILED;
}
