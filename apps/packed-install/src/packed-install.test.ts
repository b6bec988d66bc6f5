// What CI would publish, checked the way a team uses it: every package under packages/ is packed
// with `pnpm pack` (workspace: ranges rewritten, `files` applied), each tarball is listed and its
// packed package.json read; then a throwaway npm project installs only the tarballs an OpenAI host
// needs (computed from the packed manifests), runs a script that imports every installed package
// by its bare name and dispatches one function_call end to end, and type-checks a consumer file
// against the shipped declarations. Everything happens in one OS temp directory, removed after.
import { existsSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, mustSucceed, runCommand, type CommandRun } from './run-command.js';
import {
  dependencyClosure,
  exportSpecifiers,
  forbiddenEntries,
  internalRangeMismatches,
  missingEntries,
  packageEntries,
  SCOPE,
  undeclaredImports,
  unmappedSources,
  unresolvedSourceMaps,
  workspaceRanges,
  type ExportSpecifier,
  type PackedManifest,
  type ShippedFile,
} from './tarball-rules.js';

const APP_DIR = resolve(import.meta.dirname, '..');
const ROOT = resolve(APP_DIR, '..', '..');
const PACKAGES_DIR = join(ROOT, 'packages');
const FIXTURES_DIR = join(import.meta.dirname, '__fixtures__');

/** What the consumer asks for: an OpenAI host with the result contracts and the dispatcher. */
const ROOTS = ['@toolseal/adapter-openai', '@toolseal/result', '@toolseal/dispatcher'];
/** Left out even where a root would pull them in: native (better-sqlite3) or server-backed (pg). */
const isStore = (name: string): boolean => name.startsWith(`${SCOPE}store-`);
/** The workspace root's @types/node, for the declarations of Node-only subpaths. */
const TYPES_NODE = '@types/node@20.19.43';

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

// Read at collection time, so every package gets its own named tests.
const packageDirs = readdirSync(PACKAGES_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && existsSync(join(PACKAGES_DIR, entry.name, 'package.json')))
  .map((entry) => entry.name)
  .sort();
const sourceManifests = new Map(packageDirs.map((dir) => [dir, readJson<PackedManifest>(join(PACKAGES_DIR, dir, 'package.json'))]));
const workspaceVersions = new Map([...sourceManifests.values()].map(({ name, version }) => [name, version]));

/** One package as `pnpm pack` shipped it. */
interface Packed {
  dir: string;
  tarball: string;
  /** Paths inside the package, from `tar -tzf`. */
  entries: string[];
  /** package/package.json of the tarball. */
  manifest: PackedManifest;
  /** Where the tarball was extracted (the `package/` directory). */
  extracted: string;
  /** The shipped JavaScript and declarations, for the import scan. */
  code: ShippedFile[];
  /** The shipped source maps and declaration maps. */
  maps: ShippedFile[];
}

let workDir = '';
const packed = new Map<string, Packed>();
const packFailures = new Map<string, string>();

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** `pnpm pack --json` in the package directory, then `tar -tzf` and `tar -xzf` of the result. */
function pack(dir: string, destination: string): Packed {
  const packageDir = join(PACKAGES_DIR, dir);
  const run = mustSucceed(runCommand('pnpm', ['pack', '--pack-destination', destination, '--json'], { cwd: packageDir }));
  let filename: unknown;
  try {
    filename = (JSON.parse(run.stdout) as { filename?: unknown }).filename;
  } catch {
    throw new Error(`pnpm pack --json printed no JSON${describeRun(run)}`);
  }
  const tarball = typeof filename === 'string' ? resolve(packageDir, filename) : '';
  if (dirname(tarball) !== destination || !existsSync(tarball)) {
    throw new Error(`pnpm pack --json named no tarball in ${destination}: ${String(filename)}${describeRun(run)}`);
  }
  const listing = mustSucceed(runCommand('tar', ['-tzf', tarball], { cwd: destination }));
  const into = join(workDir, 'extracted', dir);
  mkdirSync(into, { recursive: true });
  mustSucceed(runCommand('tar', ['-xzf', tarball, '-C', into], { cwd: destination }));
  const extracted = join(into, 'package');
  const shipped = (pattern: RegExp): ShippedFile[] =>
    walk(extracted)
      .filter((path) => pattern.test(path))
      .map((path) => ({ path: relative(extracted, path).split(sep).join('/'), text: readFileSync(path, 'utf8') }));
  const code = shipped(/\.(m?js|cjs|d\.[mc]?ts)$/);
  const maps = shipped(/\.map$/);
  return {
    dir,
    tarball,
    entries: packageEntries(listing.stdout),
    manifest: readJson<PackedManifest>(join(extracted, 'package.json')),
    extracted,
    code,
    maps,
  };
}

function packedOf(dir: string): Packed {
  const found = packed.get(dir);
  if (found === undefined) throw new Error(`packages/${dir} was not packed:\n${packFailures.get(dir) ?? 'no attempt'}`);
  return found;
}

beforeAll(() => {
  workDir = realpathSync(mkdtempSync(join(tmpdir(), 'toolseal-packed-install-')));
  const destination = join(workDir, 'tarballs');
  mkdirSync(destination);
  for (const dir of packageDirs) {
    try {
      packed.set(dir, pack(dir, destination));
    } catch (error) {
      packFailures.set(dir, error instanceof Error ? error.message : String(error));
    }
  }
});

afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

it('lists every package under packages/ as a workspace:* devDependency, so turbo builds them before this test', () => {
  expect(packageDirs.length).toBeGreaterThan(0);
  const own = readJson<{ devDependencies?: Record<string, string> }>(join(APP_DIR, 'package.json')).devDependencies ?? {};
  const missing = [...workspaceVersions.keys()].filter((name) => own[name] !== 'workspace:*');
  expect(missing, 'add these to apps/packed-install/package.json devDependencies as "workspace:*"').toEqual([]);
});

describe.each(packageDirs)('pnpm pack of packages/%s', (dir) => {
  const source = sourceManifests.get(dir) as PackedManifest;

  it('gives a tarball named <scope>-<name>-<version>.tgz holding the same name and version', () => {
    const { manifest, tarball } = packedOf(dir);
    expect(manifest.name).toBe(source.name);
    expect(manifest.version).toBe(source.version);
    expect(basename(tarball)).toBe(`${source.name.replace(/^@/, '').replace('/', '-')}-${source.version}.tgz`);
  });

  it('ships package.json, README.md, LICENSE, dist/index.js, dist/index.d.ts and every file exports, main and types name', () => {
    const { entries, manifest, extracted } = packedOf(dir);
    expect(missingEntries(entries, manifest), `listing:\n${entries.join('\n')}`).toEqual([]);
    // pnpm ships the package's own LICENSE, or the workspace root's when it has none.
    const ownLicense = join(PACKAGES_DIR, dir, 'LICENSE');
    const license = existsSync(ownLicense) ? ownLicense : join(ROOT, 'LICENSE');
    expect(readFileSync(join(extracted, 'LICENSE'), 'utf8')).toBe(readFileSync(license, 'utf8'));
    expect(readFileSync(join(extracted, 'README.md'), 'utf8')).toBe(readFileSync(join(PACKAGES_DIR, dir, 'README.md'), 'utf8'));
  });

  it('ships no test files, tsconfig, .tsbuildinfo or other development files', () => {
    const { entries } = packedOf(dir);
    expect(forbiddenEntries(entries)).toEqual([]);
  });

  it('ships every source its source maps and declaration maps name, and no other source', () => {
    const { entries, maps } = packedOf(dir);
    expect(maps.length).toBeGreaterThan(0);
    expect(unresolvedSourceMaps(maps, entries)).toEqual([]);
    expect(unmappedSources(maps, entries)).toEqual([]);
  });

  it('has no workspace: range left in its packed package.json; internal ranges are the packed versions', () => {
    const { manifest } = packedOf(dir);
    expect(workspaceRanges(manifest)).toEqual([]);
    expect(internalRangeMismatches(manifest, workspaceVersions)).toEqual([]);
  });

  it('imports, in its shipped .js and .d.ts, only Node builtins, itself and what its manifest declares', () => {
    const { code, manifest } = packedOf(dir);
    expect(code.length).toBeGreaterThan(0);
    expect(undeclaredImports(code, manifest)).toEqual([]);
  });
});

describe('a consumer that npm-installs only what it needs', () => {
  let consumerDir = '';
  let closure: string[] = [];
  let excluded: string[] = [];
  let install: CommandRun | undefined;
  let specifiers: ExportSpecifier[] = [];
  const byName = new Map<string, Packed>();

  /** The environment pnpm gives its scripts, without its own run-script variables for npm to misread. */
  function npmEnv(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    for (const key of Object.keys(env)) {
      if (/^npm_(package|lifecycle)_/i.test(key) || key.toLowerCase() === 'npm_config_user_agent') delete env[key];
    }
    return env;
  }

  function installed(): CommandRun {
    if (install === undefined) throw new Error('npm install did not run');
    expect(install.status, describeRun(install)).toBe(0);
    return install;
  }

  beforeAll(() => {
    const failed = [...packFailures.entries()].map(([dir, message]) => `packages/${dir}: ${message}`);
    if (failed.length > 0) throw new Error(`packing failed, nothing to install:\n${failed.join('\n')}`);
    for (const item of packed.values()) byName.set(item.manifest.name, item);
    closure = dependencyClosure(ROOTS, new Map([...byName].map(([name, item]) => [name, item.manifest])), isStore);
    excluded = [...byName.keys()].filter((name) => !closure.includes(name)).sort();
    specifiers = closure.flatMap((name) => {
      const item = byName.get(name) as Packed;
      return exportSpecifiers(item.manifest, item.entries);
    });

    consumerDir = join(workDir, 'consumer');
    mkdirSync(consumerDir);
    writeFileSync(
      join(consumerDir, 'package.json'),
      `${JSON.stringify({ name: 'toolseal-packed-consumer', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
    );
    const tarballs = closure.map((name) => (byName.get(name) as Packed).tarball);
    install = runCommand('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, TYPES_NODE], {
      cwd: consumerDir,
      env: npmEnv(),
      timeoutMs: 170_000,
    });
  });

  it('takes the roots and their @toolseal dependencies from the packed manifests, without the stores', () => {
    expect(closure).toEqual(expect.arrayContaining(ROOTS));
    // Leaving the stores out loses nothing: the closure followed through every dependency, stores
    // included, is the same set (a root or dependency that needed a store would add it here).
    const manifests = new Map([...byName].map(([name, item]) => [name, item.manifest]));
    expect(dependencyClosure(ROOTS, manifests, () => false)).toEqual(closure);
    for (const name of closure) {
      const internal = Object.keys(byName.get(name)?.manifest.dependencies ?? {}).filter((dependency) => dependency.startsWith(SCOPE));
      expect(internal.filter((dependency) => !closure.includes(dependency)), name).toEqual([]);
    }
    // What "only what it needs" leaves out: the other providers, the kit, both stores.
    expect(excluded).toEqual(
      expect.arrayContaining(['@toolseal/adapter-anthropic', '@toolseal/adapter-gemini', '@toolseal/store-sqlite', '@toolseal/store-postgres']),
    );
  });

  it('installs exactly those tarballs, each from its file, and nothing of the packages left out', () => {
    installed();
    const scopeDir = join(consumerDir, 'node_modules', SCOPE.slice(0, -1));
    expect(readdirSync(scopeDir).sort()).toEqual(closure.map((name) => name.slice(SCOPE.length)));
    for (const name of closure) {
      const { manifest } = byName.get(name) as Packed;
      expect(readJson<PackedManifest>(join(consumerDir, 'node_modules', name, 'package.json')).version).toBe(manifest.version);
      expect(existsSync(join(consumerDir, 'node_modules', name, 'dist', 'index.js')), name).toBe(true);
    }
    for (const name of excluded) expect(existsSync(join(consumerDir, 'node_modules', name)), `${name} was installed`).toBe(false);

    // Every @toolseal entry of the lockfile is a top-level copy resolved from our tarball, never the registry.
    const lock = readJson<{ packages: Record<string, { resolved?: string; version?: string }> }>(join(consumerDir, 'package-lock.json'));
    const internalEntries = Object.entries(lock.packages).filter(([path]) => path.includes(SCOPE));
    expect(internalEntries.map(([path]) => path).sort()).toEqual(closure.map((name) => `node_modules/${name}`));
    for (const [path, entry] of internalEntries) {
      const { tarball } = byName.get(path.slice('node_modules/'.length)) as Packed;
      expect(entry.resolved, path).toBe(`file:${relative(consumerDir, tarball).split(sep).join('/')}`);
    }

    // Third-party dependencies only the left-out packages have (better-sqlite3, pg) stay out too.
    const thirdParty = (names: readonly string[]): Set<string> =>
      new Set(names.flatMap((name) => Object.keys(byName.get(name)?.manifest.dependencies ?? {}).filter((dep) => !dep.startsWith(SCOPE))));
    const needed = thirdParty(closure);
    const onlyExcluded = [...thirdParty(excluded)].filter((name) => !needed.has(name));
    for (const name of onlyExcluded) expect(Object.hasOwn(lock.packages, `node_modules/${name}`), `${name} was installed`).toBe(false);
    for (const name of needed) expect(Object.hasOwn(lock.packages, `node_modules/${name}`), `${name} is missing`).toBe(true);
  });

  it('runs an ESM script that imports every installed package by bare name and dispatches one OpenAI function_call end to end', () => {
    installed();
    copyFileSync(join(FIXTURES_DIR, 'consumer-script.mjs'), join(consumerDir, 'consumer-script.mjs'));
    writeFileSync(join(consumerDir, 'specifiers.json'), JSON.stringify(specifiers));
    const run = runCommand(process.execPath, ['consumer-script.mjs', 'specifiers.json'], { cwd: consumerDir });
    expect(run.status, describeRun(run)).toBe(0);
    const out = JSON.parse(run.stdout) as {
      imported: Record<string, number>;
      resolved: Record<string, string>;
      checks: Record<string, unknown>;
      gates: [string, string, string][];
      chain: { ok: boolean; checked: number };
      payload: { previous_response_id: string; input: { type: string; call_id: string; output: string }[] };
    };

    // Every export subpath of every installed package, bare names included, from the consumer's node_modules.
    const wanted = specifiers.map(({ specifier }) => specifier).sort();
    expect(wanted).toEqual(expect.arrayContaining(closure));
    expect(Object.keys(out.imported).sort()).toEqual(wanted);
    for (const [specifier, exportCount] of Object.entries(out.imported)) expect(exportCount, specifier).toBeGreaterThan(0);
    const installedUrl = pathToFileURL(join(consumerDir, 'node_modules', SCOPE)).href;
    for (const specifier of wanted) expect(out.resolved[specifier], specifier).toMatch(new RegExp(`^${installedUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    expect(out.checks).toEqual({
      adapter_revision: 'openai-responses-v1',
      model_result_schema: 'tool-model-result-v2',
      canonical: '{"a":0,"b":[1,"é"]}',
      guard_rejects_duplicate_keys: true,
      not_found_is_catalogued: true,
      well_formed_call_id: true,
      access_refusal_code: 'NOT_FOUND',
    });
    expect(out.gates).toEqual([
      ['call_1', 'sealed', 'succeeded'],
      ['call_2', 'trusted_checks', 'failed'],
    ]);
    expect(out.chain).toEqual({ ok: true, checked: 2 });

    // The provider payload: previous_response_id continuation, one function_call_output per call,
    // each output the canonical JSON of model_result (keys in RFC 8785 order), nothing protected.
    expect(out.payload.previous_response_id).toBe('resp_1');
    expect(out.payload.input.map(({ type, call_id }) => [type, call_id])).toEqual([
      ['function_call_output', 'call_1'],
      ['function_call_output', 'call_2'],
    ]);
    const [first, second] = out.payload.input;
    expect(first?.output).toBe(
      JSON.stringify({
        data: { order_ref: 'ORDER-C7', status: 'paid' },
        error: null,
        execution: { complete: true, delivery: 'fresh', outcome: 'committed', truncated: false },
        provenance: {
          observed_at: '2026-07-19T00:00:00Z',
          producer_revision: 'orders-v1',
          resource_revision: 'order-c7-r3',
          source_label: 'orders',
          trust: 'untrusted_data',
        },
        schema_version: 'tool-model-result-v2',
        status: 'succeeded',
      }),
    );
    const refused = JSON.parse(second?.output ?? 'null') as { status: string; data: unknown; error: { code: string; category: string } };
    expect([refused.status, refused.data, refused.error.code, refused.error.category]).toEqual(['failed', null, 'NOT_FOUND', 'access']);
    for (const { output } of out.payload.input) expect(output).not.toMatch(/protected_audit|sha256|principal/);
  });

  it('type-checks a strict node16 consumer against the shipped declarations, skipLibCheck off', () => {
    installed();
    copyFileSync(join(FIXTURES_DIR, 'consumer-types.ts'), join(consumerDir, 'consumer-types.ts'));
    const code = specifiers.filter(({ json }) => !json);
    writeFileSync(
      join(consumerDir, 'all-exports.ts'),
      [
        '// Generated by packed-install.test.ts: every JavaScript export subpath of every installed package.',
        ...code.map(({ specifier }, index) => `import * as m${index} from '${specifier}';`),
        `export const modules: readonly object[] = [${code.map((_, index) => `m${index}`).join(', ')}];`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(consumerDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'node16',
          moduleResolution: 'node16',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['consumer-types.ts', 'all-exports.ts'],
      }),
    );
    const require = createRequire(import.meta.url);
    const tsc = require.resolve('typescript/bin/tsc');
    const compilerLib = realpathSync(dirname(require.resolve('typescript/lib/lib.d.ts')));
    const run = runCommand(process.execPath, [tsc, '-p', 'tsconfig.json', '--listFiles'], { cwd: consumerDir });
    // --listFiles prints absolute paths; the diagnostics are the other lines.
    const lines = run.stdout.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    const files = lines.filter((line) => isAbsolute(line));
    expect(run.status, describeRun({ ...run, stdout: lines.filter((line) => !isAbsolute(line)).join('\n') })).toBe(0);

    // The compiler read the installed declarations, and nothing from the workspace but its own lib files.
    for (const name of closure) expect(files, name).toContain(join(consumerDir, 'node_modules', name, 'dist', 'index.d.ts'));
    const fromWorkspace = files.filter((file) => file.startsWith(`${ROOT}${sep}`) && !file.startsWith(`${compilerLib}${sep}`));
    expect(fromWorkspace).toEqual([]);
  });
});
