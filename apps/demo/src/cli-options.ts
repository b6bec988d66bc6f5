import type { StoreKind } from './demo-stores.js';

export interface CliOptions {
  store: StoreKind;
  /** SQLite file, when `--db` is given. */
  sqlitePath?: string;
  json: boolean;
  /** Only these providers (`--provider openai,gemini`). */
  providers?: string[];
  help: boolean;
}

export const USAGE = `Usage: pnpm demo [-- options]

  --store memory|sqlite|postgres   where audit and idempotency records go (default sqlite:
                                   apps/demo/data/demo.sqlite; postgres reads DATABASE_URL)
  --db <file>                      the SQLite file to use instead
  --provider openai,anthropic,gemini
                                   run the scenario for these providers only (default all)
  --json                           print one JSON document instead of text
  --help                           show this help

Colour is used when stdout is a terminal and NO_COLOR is unset.

Exit codes:
  0  every expectation of the scenario was met
  1  an expectation failed
  2  a usage error, or a store that failed (opening, any call, closing)`;

const STORES = new Set<string>(['memory', 'sqlite', 'postgres']);
const PROVIDERS = new Set<string>(['openai', 'anthropic', 'gemini']);

/** Parses the command line; throws an `Error` whose message is meant for the person typing. */
export function parseCliOptions(argv: readonly string[]): CliOptions {
  const options: CliOptions = { store: 'sqlite', json: false, help: false };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    const [name, inline] = argument.startsWith('--') && argument.includes('=') ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)] : [argument, undefined];
    const value = (): string => {
      const next = inline ?? argv[++index];
      if (next === undefined || next === '') throw new Error(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case '--':
        break;
      case '--store': {
        const store = value();
        if (!STORES.has(store)) throw new Error(`--store must be memory, sqlite or postgres (got ${JSON.stringify(store)})`);
        options.store = store as StoreKind;
        break;
      }
      case '--db':
        options.sqlitePath = value();
        break;
      case '--provider': {
        const names = value().split(',').map((provider) => provider.trim()).filter((provider) => provider !== '');
        const unknown = names.find((provider) => !PROVIDERS.has(provider));
        if (unknown !== undefined || names.length === 0) throw new Error(`--provider takes openai, anthropic, gemini (got ${JSON.stringify(unknown ?? '')})`);
        options.providers = [...(options.providers ?? []), ...names];
        break;
      }
      case '--json':
        options.json = true;
        break;
      case '--help':
      case '-h':
        options.help = true;
        break;
      default:
        throw new Error(`unknown option ${JSON.stringify(argument)}`);
    }
  }
  if (options.sqlitePath !== undefined && options.store !== 'sqlite') throw new Error('--db applies to --store sqlite only');
  return options;
}
