// The demo's command line as a person and a script see it: exit code, stdout, stderr. The README
// (exit codes under "The scenario", and "Store failures") and the usage text document the codes:
// 0 every expectation met, 1 an expectation failed, 2 a usage or store error. A store failure
// before or during the first call leaves stdout empty: no header without a run behind it, no half
// JSON document.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { USAGE } from './cli-options.js';
import { openDemoStores, type DemoStoreOptions, type DemoStores } from './demo-stores.js';
import { runDemo, type DemoHooks } from './run-demo.js';

const directory = mkdtempSync(join(tmpdir(), 'toolseal-run-demo-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function demo(argv: string[], hooks: DemoHooks = {}, env: NodeJS.ProcessEnv = {}): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await runDemo(
    argv,
    {
      stdout: { write: (text: string) => (stdout += text), isTTY: false },
      stderr: { write: (text: string) => (stderr += text) },
      env: { NO_COLOR: '1', ...env },
    },
    hooks,
  );
  return { code, stdout, stderr };
}

/** Opens the real stores, then breaks them as `sabotage` says. */
function sabotaged(sabotage: (stores: DemoStores) => void): DemoHooks {
  return {
    openStores: async (options: DemoStoreOptions) => {
      const stores = await openDemoStores(options);
      sabotage(stores);
      return stores;
    },
  };
}

/** Stores whose `method` fails on its first call only, as `fail` says; later calls work. */
function failingOnce(target: 'auditLog' | 'idempotencyStore', method: string, fail: () => Promise<never>): DemoHooks {
  return sabotaged((stores) => {
    const store: object = stores[target];
    const original: unknown = Reflect.get(store, method);
    if (typeof original !== 'function') throw new Error(`no ${target}.${method}`);
    let calls = 0;
    Reflect.set(store, method, (...args: unknown[]): unknown => (++calls === 1 ? fail() : Reflect.apply(original, store, args)));
  });
}

const MEMORY_OPENAI = ['--store', 'memory', '--provider', 'openai'];
const SUMMARY = /^toolseal demo: 1 provider, \d+ turns, \d+ calls, (\d+)\/\1 expectations met; audit chain verified \(\d+ entries\); /;

/** stderr is exactly `line` and a newline: one line, no stack trace. */
function expectOneLine(stderr: string, line: string | RegExp): void {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.slice(0, -1)).not.toContain('\n');
  if (typeof line === 'string') expect(stderr).toBe(`${line}\n`);
  else expect(stderr).toMatch(line);
}

describe('runDemo: a run that reaches its end', () => {
  it('exits 0 when every expectation is met: the header first, every turn, the summary last', async () => {
    const { code, stdout, stderr } = await demo(MEMORY_OPENAI);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'toolseal demo: a support agent of tenant Cedar (fabricated), its tools, and a model that is not trusted',
      'store: memory (process memory); digests are HMAC-SHA-256 under a published demo key',
    ]);
    expect(lines.filter((line) => line.startsWith('━━ OpenAI Responses · turn ')).length).toBeGreaterThan(20);
    expect(lines.at(-1)).toMatch(SUMMARY);
    expect(lines.at(-1)).toContain('memory store (records kept in process memory only)');
  });

  it('reports an in-memory SQLite database (--db :memory:) as not durable, in the JSON document and the summary', async () => {
    const { code, stdout, stderr } = await demo(['--db', ':memory:', '--json', '--provider', 'openai']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { store: unknown; persisted_records: unknown; summary: string };
    expect(report.store).toEqual({ kind: 'sqlite', location: ':memory:', durable: false });
    expect(report.persisted_records).toBe(0);
    expect(report.summary).toMatch(SUMMARY);
    expect(report.summary).toContain('sqlite store (records kept in process memory only)');
  });

  it('--help states the three exit codes, the one for a store failure included', async () => {
    const { code, stdout } = await demo(['--help']);
    expect(code).toBe(0);
    expect(stdout).toBe(`${USAGE}\n`);
    expect(USAGE).toMatch(/^ {2}0 {2}every expectation of the scenario was met$/m);
    expect(USAGE).toMatch(/^ {2}1 {2}an expectation failed$/m);
    expect(USAGE).toMatch(/^ {2}2 {2}a usage error, or a store that failed \(opening, any call, closing\)$/m);
  });
});

describe('runDemo: usage errors', () => {
  it('exits 2 with the message and the usage on stderr, nothing on stdout', async () => {
    const { code, stdout, stderr } = await demo(['--store', 'mysql']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`--store must be memory, sqlite or postgres (got "mysql")\n\n${USAGE}\n`);
  });
});

describe('runDemo: a store that fails before or during the first call', () => {
  it('a SQLite file that cannot be created (its directory is a file): exit 2, one line, nothing on stdout', async () => {
    const notADirectory = join(directory, 'not-a-directory');
    writeFileSync(notADirectory, 'a file');
    const { code, stdout, stderr } = await demo(['--db', join(notADirectory, 'demo.sqlite')]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expectOneLine(stderr, /^demo: cannot open the sqlite store: \S/);
  });

  it('a PostgreSQL server that does not answer (connection refused): exit 2, one line, nothing on stdout', async () => {
    const { code, stdout, stderr } = await demo(['--store', 'postgres', '--json'], {}, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expectOneLine(stderr, /^demo: cannot open the postgres store: .*ECONNREFUSED/);
  });

  const failures: [string, DemoHooks, string][] = [
    [
      'the first audit append rejects',
      failingOnce('auditLog', 'append', () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error'))),
      'auditLog.append: SQLITE_IOERR: disk I/O error',
    ],
    [
      'the first audit append throws (synchronously)',
      failingOnce('auditLog', 'append', () => {
        throw new Error('SQLITE_READONLY: attempt to write a readonly database');
      }),
      'auditLog.append: SQLITE_READONLY: attempt to write a readonly database',
    ],
    [
      'the idempotency lookup the demo makes before the first call rejects',
      failingOnce('idempotencyStore', 'get', () => Promise.reject(new Error('Connection terminated unexpectedly'))),
      'idempotencyStore.get: Connection terminated unexpectedly',
    ],
    [
      'the first audit append rejects with a message of several lines',
      failingOnce('auditLog', 'append', () => Promise.reject(new Error('terminating connection due to administrator command\n  DETAIL: shutting down'))),
      'auditLog.append: terminating connection due to administrator command DETAIL: shutting down',
    ],
  ];
  for (const json of [false, true]) {
    it.each(failures)(`${json ? '--json' : 'text'}: %s: exit 2, one line on stderr naming the call, nothing on stdout`, async (_name, hooks, what) => {
      const { code, stdout, stderr } = await demo([...MEMORY_OPENAI, ...(json ? ['--json'] : [])], hooks);
      expect(stdout).toBe('');
      expectOneLine(stderr, `demo: the memory store failed (process memory): ${what}`);
      expect(code).toBe(2);
    });
  }

  it('opening never answers (a PostgreSQL table another session holds locked): exit 2, one line, nothing on stdout', async () => {
    const hooks: DemoHooks = { openStores: () => new Promise<never>(() => undefined), openTimeoutMs: 100 };
    const { code, stdout, stderr } = await demo(MEMORY_OPENAI, hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: cannot open the memory store: no answer within 100 ms');
    expect(code).toBe(2);
  });

  it('the first audit append never answers: exit 2 (the demo waits half the dispatcher\'s store timeout), nothing on stdout', async () => {
    const hooks: DemoHooks = { ...failingOnce('auditLog', 'append', () => new Promise<never>(() => undefined)), storeTimeoutMs: 100 };
    const { code, stdout, stderr } = await demo(MEMORY_OPENAI, hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): auditLog.append did not answer within 50 ms');
    expect(code).toBe(2);
  });

  it('the first appends answer only after the dispatcher stopped waiting and retried (a PostgreSQL row lock released): exit 2', async () => {
    // Seen on PostgreSQL with the audit head row locked by another session: both calls' appends
    // waited past the dispatcher's timeout, its retries (minimal entries) queued behind them, and
    // the lock's release answered all four at once. Every call then looked sealed and audited.
    const hooks: DemoHooks = {
      ...sabotaged((stores) => {
        const append = stores.auditLog.append.bind(stores.auditLog);
        let release: () => void = () => undefined;
        const released = new Promise<void>((resolve) => (release = resolve));
        let calls = 0;
        stores.auditLog.append = async (entry) => {
          calls += 1;
          // The first two wait; the third (the dispatcher's retry) releases every one.
          if (calls <= 2) await released;
          else release();
          return append(entry);
        };
      }),
      storeTimeoutMs: 200,
    };
    const { code, stdout, stderr } = await demo(MEMORY_OPENAI, hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): auditLog.append did not answer within 100 ms');
    expect(code).toBe(2);
  });
});

describe('runDemo: a store that fails later in the run', () => {
  const claimFails = (): DemoHooks => failingOnce('idempotencyStore', 'claim', () => Promise.reject(new Error('could not serialize access')));

  it('--json: exit 2, one line on stderr, no JSON document', async () => {
    const { code, stdout, stderr } = await demo([...MEMORY_OPENAI, '--json'], claimFails());
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): idempotencyStore.claim: could not serialize access');
    expect(code).toBe(2);
  });

  it('text: the turns before the failure stay, no summary follows, exit 2', async () => {
    const { code, stdout, stderr } = await demo(MEMORY_OPENAI, claimFails());
    expect(stdout).toContain('━━ OpenAI Responses · turn 1 · ');
    expect(stdout).not.toContain('expectations met');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): idempotencyStore.claim: could not serialize access');
    expect(code).toBe(2);
  });

  it('the first append fails and closing then hangs (a pool waiting for a hung query): exit 2 at once, the first failure only', async () => {
    const hooks: DemoHooks = {
      ...sabotaged((stores) => {
        stores.auditLog.append = () => Promise.reject(new Error('terminating connection due to administrator command'));
        stores.close = () => new Promise<never>(() => undefined);
      }),
      closeTimeoutMs: 100,
    };
    const { code, stdout, stderr } = await demo([...MEMORY_OPENAI, '--json'], hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): auditLog.append: terminating connection due to administrator command');
    expect(code).toBe(2);
  });

  it('closing the store never answers after a run that met every expectation: exit 2, one line, no report', async () => {
    const hooks: DemoHooks = {
      ...sabotaged((stores) => {
        stores.close = () => new Promise<never>(() => undefined);
      }),
      closeTimeoutMs: 100,
    };
    const { code, stdout, stderr } = await demo([...MEMORY_OPENAI, '--json'], hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): close did not answer within 100 ms');
    expect(code).toBe(2);
  });

  it('closing the store fails after the run: exit 2, one line, no report', async () => {
    const hooks = sabotaged((stores) => {
      stores.close = () => Promise.reject(new Error('database is locked'));
    });
    const { code, stdout, stderr } = await demo([...MEMORY_OPENAI, '--json'], hooks);
    expect(stdout).toBe('');
    expectOneLine(stderr, 'demo: the memory store failed (process memory): close: database is locked');
    expect(code).toBe(2);
  });
});
