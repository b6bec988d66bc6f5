// `pnpm demo`: the support-agent scenario of tenant Cedar through every toolseal layer, once per
// provider API, with constructed provider responses standing in for the model (no network).
import { systemClock } from '@toolseal/audit';
import { createDigester } from '@toolseal/digests';
import { parseCliOptions, USAGE, type CliOptions } from './cli-options.js';
import { openDemoStores, type DemoStores } from './demo-stores.js';
import { chooseStyle, renderSummary, renderTurn } from './render-text.js';
import { DEMO_KEY, runScenario } from './run-scenario.js';

async function main(argv: readonly string[]): Promise<number> {
  let options: CliOptions;
  try {
    options = parseCliOptions(argv);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const style = chooseStyle(process.stdout, process.env);
  let stores: DemoStores;
  try {
    stores = await openDemoStores({
      kind: options.store,
      ...(options.sqlitePath === undefined ? {} : { sqlitePath: options.sqlitePath }),
      clock: systemClock,
      digester: createDigester({ key: DEMO_KEY }),
    });
  } catch (error) {
    process.stderr.write(`demo: cannot open the ${options.store} store: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const write = (lines: string[]): void => {
    if (!options.json) process.stdout.write(`${lines.join('\n')}\n`);
  };
  write([
    style.bold('toolseal demo: a support agent of tenant Cedar (fabricated), its tools, and a model that is not trusted'),
    style.dim(`store: ${options.store} (${stores.location}); digests are HMAC-SHA-256 under a published demo key`),
    style.dim('per call: the decision, exactly what the provider receives, and what went to the protected audit'),
  ]);
  try {
    const report = await runScenario({
      stores,
      storeKind: options.store,
      ...(options.providers === undefined ? {} : { providers: options.providers }),
      onTurn: (turn) => write(renderTurn(turn, style)),
    });
    if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else write(renderSummary(report, style));
    return report.ok ? 0 : 1;
  } finally {
    await stores.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
