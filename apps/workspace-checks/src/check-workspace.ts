import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { collectPackageImports } from './collect-imports.js';
import { PACKAGE_LAYERS, WORKSPACE_SCOPE, WORKSPACE_TEST_TOOLS } from './package-layers.js';

/** What a violation breaks. */
export type WorkspaceRule =
  /** A directory under `packages/` whose package has no layer in PACKAGE_LAYERS. */
  | 'unknown_package'
  /** Non-test source imports a workspace package of its own or a higher layer. */
  | 'upward_import'
  /** A test imports a workspace package of a higher layer. */
  | 'test_upward_import'
  /** package.json declares a dependency the layering forbids (runtime: same or higher; dev: higher). */
  | 'upward_dependency'
  /** Non-test source imports its own package by name instead of by relative path. */
  | 'self_import'
  /** A file imports a package its package.json does not declare where that file may use it. */
  | 'undeclared_import'
  /** A Node builtin imported without the `node:` prefix. */
  | 'bare_builtin'
  /** A relative import that leaves the package directory. */
  | 'relative_escape'
  /** Internal dependencies (any kind) form a cycle. */
  | 'dependency_cycle'
  /** package.json is not publishable on its own. */
  | 'manifest'
  /** A package with source but no README.md. */
  | 'readme'
  /** tsconfig.build.json references do not mirror the internal runtime dependencies. */
  | 'project_references'
  /**
   * Non-test source imports a third-party runtime dependency that ships no declarations while its
   * `@types/` package is not a runtime dependency too: the published declarations would import an
   * untyped module (TS7016 for consumers, or `any` under `skipLibCheck`).
   */
  | 'untyped_dependency';

/** One problem found in the workspace. */
export interface WorkspaceViolation {
  rule: WorkspaceRule;
  /** The package name, or `packages/<dir>` when it has no readable manifest. */
  package: string;
  /** Repository-relative file the problem is in, with `/` separators. */
  file: string;
  /** What is wrong, for a human. */
  message: string;
}

/** Options for `checkWorkspace`. */
export interface CheckWorkspaceOptions {
  /** Layer of every package name; defaults to PACKAGE_LAYERS. */
  layers?: Readonly<Record<string, number>>;
}

interface Manifest {
  name?: unknown;
  private?: unknown;
  type?: unknown;
  license?: unknown;
  sideEffects?: unknown;
  exports?: unknown;
  files?: unknown;
  engines?: unknown;
  publishConfig?: unknown;
  dependencies?: unknown;
  peerDependencies?: unknown;
  devDependencies?: unknown;
}

interface WorkspacePackage {
  /** Directory name under `packages/`. */
  directory: string;
  /** Absolute path of the package directory. */
  path: string;
  name: string;
  manifest: Manifest;
  runtimeDependencies: Map<string, string>;
  devDependencies: Map<string, string>;
}

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith('_')));

/** The DefinitelyTyped package of `name`: `pg` -> `@types/pg`, `@scope/name` -> `@types/scope__name`. */
export function typesPackageOf(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

/**
 * Whether the third-party package `name`, as the package at `packagePath` resolves it, ships its own
 * declarations (`types` or `typings`, a `types` export condition, or an `index.d.ts`); `undefined`
 * when it is not installed there, so nothing can be said.
 */
function shipsDeclarations(packagePath: string, name: string): boolean | undefined {
  const directory = join(packagePath, 'node_modules', name);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(manifest)) return undefined;
  if (typeof manifest.types === 'string' || typeof manifest.typings === 'string') return true;
  if (JSON.stringify(manifest.exports ?? null).includes('"types"')) return true;
  return existsSync(join(directory, 'index.d.ts'));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dependencyMap(value: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (!isRecord(value)) return map;
  for (const [name, range] of Object.entries(value)) map.set(name, typeof range === 'string' ? range : '');
  return map;
}

/** `@scope/name/sub/path.js` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function isWorkspaceName(name: string, packageNames: ReadonlySet<string>): boolean {
  return name.startsWith(WORKSPACE_SCOPE) || packageNames.has(name);
}

function checkManifest(pkg: WorkspacePackage, report: (message: string) => void): void {
  const { manifest, directory } = pkg;
  const expectedName = `${WORKSPACE_SCOPE}${directory}`;
  if (manifest.name !== expectedName) report(`name must be ${expectedName}`);
  if (manifest.private === true) report('must not be private: packages/ holds publishable packages');
  if (manifest.type !== 'module') report('type must be "module" (ESM only)');
  if (typeof manifest.license !== 'string' || manifest.license === '') report('license is missing');
  if (manifest.sideEffects !== false) report('sideEffects must be false');
  if (!Array.isArray(manifest.files) || manifest.files.length === 0) report('files must list what ships');
  if (!isRecord(manifest.engines) || typeof manifest.engines.node !== 'string' || manifest.engines.node === '') {
    report('engines.node is missing');
  }
  if (!isRecord(manifest.publishConfig) || manifest.publishConfig.access !== 'public') {
    report('publishConfig.access must be "public"');
  }
  if (!isRecord(manifest.exports)) {
    report('exports map is missing');
  } else {
    if (!Object.hasOwn(manifest.exports, '.')) report('exports has no "." entry');
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === 'string') {
        // Plain string targets are only for non-code assets (JSON Schemas, package.json).
        if (!target.endsWith('.json')) report(`exports["${subpath}"] must give "types" and "import" conditions`);
      } else if (!isRecord(target) || typeof target.types !== 'string' || typeof target.import !== 'string') {
        report(`exports["${subpath}"] must give "types" and "import" conditions`);
      } else if (Object.keys(target)[0] !== 'types') {
        report(`exports["${subpath}"]: "types" must be the first condition`);
      }
    }
  }
  for (const [kind, value] of [
    ['dependencies', manifest.dependencies],
    ['peerDependencies', manifest.peerDependencies],
    ['devDependencies', manifest.devDependencies],
  ] as const) {
    for (const [name, range] of dependencyMap(value)) {
      if (name === pkg.name) report(`${kind} lists the package itself`);
      else if (name.startsWith(WORKSPACE_SCOPE) && !range.startsWith('workspace:')) {
        report(`${kind}["${name}"] must use the workspace: protocol`);
      }
    }
  }
}

function readReferences(pkg: WorkspacePackage, report: (message: string) => void): Set<string> | undefined {
  const configPath = join(pkg.path, 'tsconfig.build.json');
  if (!existsSync(configPath)) {
    report('tsconfig.build.json is missing');
    return undefined;
  }
  const parsed = ts.parseConfigFileTextToJson(configPath, readFileSync(configPath, 'utf8'));
  if (parsed.error !== undefined || !isRecord(parsed.config)) {
    report('tsconfig.build.json is not valid JSON');
    return undefined;
  }
  const references = parsed.config.references ?? [];
  const directories = new Set<string>();
  if (!Array.isArray(references)) {
    report('tsconfig.build.json references must be an array');
    return directories;
  }
  for (const reference of references) {
    const referencePath = isRecord(reference) && typeof reference.path === 'string' ? reference.path : undefined;
    const target = referencePath === undefined ? undefined : resolve(pkg.path, referencePath);
    const packagesDir = dirname(pkg.path);
    const directory = target === undefined ? undefined : relative(packagesDir, target).split(sep)[0];
    if (
      target === undefined ||
      directory === undefined ||
      directory.startsWith('..') ||
      relative(join(packagesDir, directory), target) !== 'tsconfig.build.json'
    ) {
      report(`reference ${JSON.stringify(reference)} is not ../<package>/tsconfig.build.json`);
      continue;
    }
    directories.add(directory);
  }
  return directories;
}

function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'active');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const nextState = state.get(next);
      if (nextState === 'active') {
        const cycle = stack.slice(stack.indexOf(next));
        // Report each cycle once, rotated to start at its smallest name.
        const start = cycle.indexOf([...cycle].sort()[0] ?? next);
        const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
        const key = rotated.join('>');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(rotated);
        }
      } else if (nextState === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * Checks every package under `<rootDir>/packages`: layering of imports and declared dependencies,
 * that every import is declared where the file may use it, that internal dependencies have no
 * cycle, that tsconfig project references mirror internal runtime dependencies, and that each
 * package is publishable on its own. Returns every violation found (empty when the tree is clean).
 */
export function checkWorkspace(rootDir: string, options: CheckWorkspaceOptions = {}): WorkspaceViolation[] {
  const layers = options.layers ?? PACKAGE_LAYERS;
  const violations: WorkspaceViolation[] = [];
  const packagesDir = join(rootDir, 'packages');
  const toRepositoryPath = (path: string): string => relative(rootDir, path).split(sep).join('/');
  const packages: WorkspacePackage[] = [];

  const directories = readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  for (const directory of directories) {
    const path = join(packagesDir, directory);
    const manifestPath = join(path, 'package.json');
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    } catch {
      violations.push({
        rule: 'manifest',
        package: `packages/${directory}`,
        file: toRepositoryPath(manifestPath),
        message: 'has no readable package.json',
      });
      continue;
    }
    if (!isRecord(manifest)) {
      violations.push({
        rule: 'manifest',
        package: `packages/${directory}`,
        file: toRepositoryPath(manifestPath),
        message: 'package.json is not a JSON object',
      });
      continue;
    }
    const typedManifest: Manifest = manifest;
    packages.push({
      directory,
      path,
      name: typeof typedManifest.name === 'string' ? typedManifest.name : `packages/${directory}`,
      manifest: typedManifest,
      runtimeDependencies: new Map([
        ...dependencyMap(typedManifest.dependencies),
        ...dependencyMap(typedManifest.peerDependencies),
      ]),
      devDependencies: dependencyMap(typedManifest.devDependencies),
    });
  }
  const packageNames = new Set(packages.map(({ name }) => name));
  const directoryOf = new Map(packages.map(({ name, directory }) => [name, directory]));

  for (const pkg of packages) {
    const manifestFile = toRepositoryPath(join(pkg.path, 'package.json'));
    const report = (rule: WorkspaceRule, file: string, message: string): void => {
      violations.push({ rule, package: pkg.name, file, message });
    };
    const layer = layers[pkg.name];
    const layerText = (name: string): string => {
      const value = layers[name];
      return value === undefined ? `${name} (no layer)` : `${name} (layer ${value})`;
    };
    if (layer === undefined) {
      report('unknown_package', manifestFile, `${pkg.name} has no layer: add it to PACKAGE_LAYERS`);
    }

    checkManifest(pkg, (message) => report('manifest', manifestFile, message));

    // Declared internal dependencies must respect the layers, whether or not they are imported.
    if (layer !== undefined) {
      for (const [name] of pkg.runtimeDependencies) {
        if (!isWorkspaceName(name, packageNames) || name === pkg.name) continue;
        const dependencyLayer = layers[name];
        if (dependencyLayer === undefined || dependencyLayer >= layer) {
          report('upward_dependency', manifestFile, `layer ${layer} depends on ${layerText(name)}`);
        }
      }
      for (const [name] of pkg.devDependencies) {
        if (!isWorkspaceName(name, packageNames) || name === pkg.name) continue;
        const dependencyLayer = layers[name];
        if (dependencyLayer === undefined || dependencyLayer > layer) {
          report('upward_dependency', manifestFile, `layer ${layer} has a devDependency on ${layerText(name)}`);
        }
      }
    }

    const sources = collectPackageImports(pkg.path);
    const hasSource = sources.some(({ isTest }) => !isTest);
    // A scaffold without source yet is exempt; once it has code it needs its README.
    if (hasSource && !existsSync(join(pkg.path, 'README.md'))) {
      report('readme', toRepositoryPath(join(pkg.path, 'README.md')), 'a package with source needs a README.md');
    }

    const untypedReported = new Set<string>();
    for (const source of sources) {
      for (const { specifier, line } of source.imports) {
        const file = `${toRepositoryPath(join(pkg.path, source.path))}:${line}`;
        if (specifier.startsWith('.') || specifier.startsWith('/')) {
          const target = resolve(pkg.path, dirname(source.path), specifier);
          const inside = relative(pkg.path, target);
          if (specifier.startsWith('/') || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
            report('relative_escape', file, `${specifier} leaves the package; import the package by name`);
          }
          continue;
        }
        if (specifier.startsWith('node:') || specifier.startsWith('#')) continue;
        const name = packageNameOf(specifier);
        if (BUILTINS.has(name)) {
          report('bare_builtin', file, `import node:${specifier} rather than ${specifier}`);
          continue;
        }
        if (name === pkg.name) {
          if (!source.isTest) report('self_import', file, `imports its own package ${specifier}; use a relative path`);
          continue;
        }
        const declared =
          pkg.runtimeDependencies.has(name) ||
          (source.isTest && (pkg.devDependencies.has(name) || WORKSPACE_TEST_TOOLS.includes(name)));
        if (!declared) {
          const where = source.isTest
            ? 'dependencies, peerDependencies or devDependencies'
            : 'dependencies or peerDependencies';
          report('undeclared_import', file, `imports ${name}, which is not in its ${where}`);
        } else if (!source.isTest && !isWorkspaceName(name, packageNames) && !untypedReported.has(name)) {
          const typesPackage = typesPackageOf(name);
          if (shipsDeclarations(pkg.path, name) === false && !pkg.runtimeDependencies.has(typesPackage)) {
            untypedReported.add(name);
            report('untyped_dependency', file, `imports ${name}, which ships no declarations: add ${typesPackage} to its dependencies`);
          }
        }
        if (!isWorkspaceName(name, packageNames) || layer === undefined) continue;
        const dependencyLayer = layers[name];
        if (source.isTest) {
          if (dependencyLayer === undefined || dependencyLayer > layer) {
            report('test_upward_import', file, `a test of layer ${layer} imports ${layerText(name)}`);
          }
        } else if (dependencyLayer === undefined || dependencyLayer >= layer) {
          report('upward_import', file, `layer ${layer} imports ${layerText(name)}`);
        }
      }
    }

    const referenced = readReferences(pkg, (message) =>
      report('project_references', toRepositoryPath(join(pkg.path, 'tsconfig.build.json')), message),
    );
    if (referenced !== undefined) {
      const expected = new Set(
        [...pkg.runtimeDependencies.keys()]
          .map((name) => directoryOf.get(name))
          .filter((directory): directory is string => directory !== undefined && directory !== pkg.directory),
      );
      const configFile = toRepositoryPath(join(pkg.path, 'tsconfig.build.json'));
      for (const directory of [...expected].sort()) {
        if (!referenced.has(directory)) {
          report('project_references', configFile, `missing reference ../${directory}/tsconfig.build.json`);
        }
      }
      for (const directory of [...referenced].sort()) {
        if (!expected.has(directory)) {
          report('project_references', configFile, `reference ../${directory} is not a runtime dependency`);
        }
      }
    }
  }

  const graph = new Map(
    packages.map((pkg) => [
      pkg.name,
      [...pkg.runtimeDependencies.keys(), ...pkg.devDependencies.keys()].filter(
        (name) => packageNames.has(name) && name !== pkg.name,
      ),
    ]),
  );
  for (const cycle of findCycles(graph)) {
    const first = cycle[0] ?? '';
    const directory = directoryOf.get(first) ?? first;
    violations.push({
      rule: 'dependency_cycle',
      package: first,
      file: `packages/${directory}/package.json`,
      message: `internal dependencies form a cycle: ${[...cycle, first].join(' -> ')}`,
    });
  }
  return violations;
}

/** One line per violation, for test failure messages and the command line. */
export function formatViolations(violations: readonly WorkspaceViolation[]): string {
  return violations.map(({ rule, file, message }) => `${file}: [${rule}] ${message}`).join('\n');
}
