import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXAMPLE_CONTEXTS, PROVIDER_SDKS } from './contexts.js';
import { readAllExamples, type ReadmeExample } from './extract-examples.js';

const appDir = resolve(import.meta.dirname, '..');
const rootDir = resolve(appDir, '../..');
// Inside this app, so that the examples resolve `@toolseal/*` and the SDKs as an installed host does.
const outDir = join(appDir, '.examples');

const examples = readAllExamples(rootDir);

/** Examples that are type-checked only, and why (those with a context never run: the host's parts are missing). */
const TYPE_CHECK_ONLY: Readonly<Record<string, string>> = {
  'packages/adapter-testing/README.md#1': 'a test file: it registers vitest cases',
  // Self-contained, but they open a file in the working directory or a PostgreSQL database.
  'packages/store-sqlite/README.md#1': 'opens ./toolseal.db',
  'packages/store-postgres/README.md#1': 'connects to PostgreSQL',
};

/**
 * What each example that runs logs, as its README's comments say: one entry per `console.log`
 * call, the call's arguments.
 */
const EXPECTED_LOGS: Readonly<Record<string, (logs: unknown[][]) => void>> = {
  'packages/contracts/README.md#1': (logs) => {
    expect(logs).toHaveLength(1);
    expect(logs[0]?.[0]).toBe(true);
    expect((logs[0]?.[1] as string[]).slice(0, 2)).toEqual(['model-result', 'model-error']);
  },
  'packages/digests/README.md#1': (logs) => expect(logs).toEqual([[true]]),
  'packages/errors/README.md#1': (logs) => expect(logs).toEqual([]),
  'packages/guard/README.md#1': (logs) => {
    expect(logs).toHaveLength(2);
    expect(logs[0]?.[0]).toMatchObject({ code: 'INVALID_ARGUMENTS', reasons: [expect.objectContaining({ rule: 'duplicate_key', field: '' })] });
    expect(logs[1]?.[0]).toEqual([
      { path: '/data/headers/X-Api-Key', parent: '/data/headers', key: 'X-Api-Key', matched: 'xapikey' },
      { path: '/data/rows/0/ｔｏｋｅｎ', parent: '/data/rows/0', key: 'ｔｏｋｅｎ', matched: 'token' },
    ]);
  },
  'packages/proposal/README.md#1': (logs) => {
    expect(logs).toHaveLength(1);
    expect(logs[0]?.[0]).toMatchObject({ code: 'RULE_REJECTED', reasons: [{ field: '/amount', rule: 'partial_amount_not_allowed' }] });
  },
  'packages/result/README.md#1': (logs) => expect(logs).toEqual([[[], { ok: true }]]),
  'packages/dispatcher/README.md#1': (logs) =>
    expect(logs).toEqual([
      ['call_1', 'sealed', 'succeeded', ''],
      ['call_2', 'trusted_checks', 'failed', 'NOT_FOUND'],
    ]),
  'packages/adapter-core/README.md#1': (logs) =>
    expect(logs).toEqual([[{ format: 'json_text', text: '{"order_id":"ORDER-7"}' }]]),
  'packages/audit/README.md#1': (logs) => {
    expect(logs).toHaveLength(1);
    expect(logs[0]?.[0]).toEqual({ ok: true, checked: 1, head: { sequence: 1, entry_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }, anchored: false });
  },
};

function callsProvider(example: ReadmeExample): boolean {
  return PROVIDER_SDKS.some((sdk) => example.code.includes(`from '${sdk}'`));
}

function fileOf(example: ReadmeExample): string {
  return join(outDir, `${example.readme.replace(/\/README\.md$/, '').replace(/\//g, '-')}-${example.index}.ts`);
}

function contextOf(example: ReadmeExample): string {
  return EXAMPLE_CONTEXTS[example.key] ?? '';
}

/** The README position of a line of the generated file (1-based), or where in the context it is. */
function readmePosition(example: ReadmeExample, fileLine: number): string {
  const contextLines = contextOf(example).split('\n').length - 1;
  return fileLine <= contextLines
    ? `${example.key} (context line ${fileLine})`
    : `${example.readme}:${example.line + fileLine - contextLines - 1}`;
}

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const example of examples) {
    // `export {}` makes a block without imports a module too: top-level await, no shared globals.
    writeFileSync(fileOf(example), `${contextOf(example)}${example.code}\nexport {};\n`);
  }
});

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('README examples', () => {
  it('are found in every package README that shows code, and every context and expectation names one', () => {
    const keys = new Set(examples.map((example) => example.key));
    expect(examples.length).toBeGreaterThanOrEqual(18);
    for (const readme of ['adapter-openai', 'adapter-anthropic', 'adapter-gemini', 'dispatcher', 'result', 'proposal']) {
      expect(keys).toContain(`packages/${readme}/README.md#1`);
    }
    for (const key of [...Object.keys(EXAMPLE_CONTEXTS), ...Object.keys(TYPE_CHECK_ONLY), ...Object.keys(EXPECTED_LOGS)]) {
      expect(keys, `${key} names no README example`).toContain(key);
    }
  });

  it('type-check against the built packages and the provider SDKs', () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(appDir, 'tsconfig.json'), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    if (config === undefined) throw new Error('tsconfig.json could not be read');
    const byFile = new Map(examples.map((example) => [fileOf(example), example]));
    const program = ts.createProgram([...byFile.keys()], { ...config.options, noEmit: true });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const example = diagnostic.file === undefined ? undefined : byFile.get(resolve(diagnostic.file.fileName));
      if (example === undefined || diagnostic.file === undefined || diagnostic.start === undefined) {
        return `${diagnostic.file?.fileName ?? '(no file)'}: ${message}`;
      }
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      return `${readmePosition(example, line + 1)}: ${message}`;
    });
    expect(problems).toEqual([]);
  });

  const runnable = examples.filter(
    (example) => contextOf(example) === '' && !callsProvider(example) && TYPE_CHECK_ONLY[example.key] === undefined,
  );

  it('that are self-contained each have their README output written down here', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(9);
    for (const example of runnable) expect(Object.keys(EXPECTED_LOGS), example.key).toContain(example.key);
  });

  it.each(runnable.map((example) => [example.key, example] as const))('%s runs and logs what its README says', async (_key, example) => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import(pathToFileURL(fileOf(example)).href);
      const check = EXPECTED_LOGS[example.key];
      if (check === undefined) throw new Error(`${example.key}: no expected output`);
      check(log.mock.calls);
    } finally {
      log.mockRestore();
    }
  });
});
