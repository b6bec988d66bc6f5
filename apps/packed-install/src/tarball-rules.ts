// What a packed tarball must and must not hold, and what a consumer install needs, as pure
// functions over a tarball's file list, its packed package.json and its shipped files' text. The
// test applies them to the real tarballs; tarball-rules.test.ts shows each one catches a bad input.
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import ts from 'typescript';

/** The fields of a packed package.json the rules read. */
export interface PackedManifest {
  name: string;
  version: string;
  main?: unknown;
  types?: unknown;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** One shipped file: its path inside the package (no `package/` prefix) and its text. */
export interface ShippedFile {
  path: string;
  text: string;
}

/** The npm scope of every workspace package. */
export const SCOPE = '@toolseal/';

/** Files every tarball holds, whatever its manifest says. */
export const REQUIRED_FILES: readonly string[] = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts'];

/** What never ships, with the reason a listing names. */
const FORBIDDEN: readonly { reason: string; test: (path: string) => boolean }[] = [
  { reason: 'test file', test: (path) => /\.test(-d)?\.[^/]*$/.test(path) },
  { reason: 'tsconfig', test: (path) => /(^|\/)tsconfig[^/]*$/.test(path) },
  { reason: 'TypeScript build info', test: (path) => path.endsWith('.tsbuildinfo') },
  { reason: 'test fixture', test: (path) => /(^|\/)__fixtures__\//.test(path) },
  { reason: 'vitest config', test: (path) => /(^|\/)vitest\.config\.[^/]*$/.test(path) },
  { reason: 'turbo cache', test: (path) => /(^|\/)\.turbo\//.test(path) },
  { reason: 'node_modules', test: (path) => /(^|\/)node_modules\//.test(path) },
];

/** `tar -tzf` lines -> paths inside the package; an entry outside `package/` is kept whole. */
export function packageEntries(listing: string): string[] {
  return listing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => (line.startsWith('package/') ? line.slice('package/'.length) : `../${line}`));
}

/** Entries that must not ship, as `path (reason)`. */
export function forbiddenEntries(entries: readonly string[]): string[] {
  const found: string[] = [];
  for (const path of entries) {
    if (path.startsWith('../')) found.push(`${path} (outside package/)`);
    for (const { reason, test } of FORBIDDEN) if (test(path)) found.push(`${path} (${reason})`);
  }
  return found;
}

/**
 * Source maps (`.js.map`, `.d.ts.map`) whose `sources` name a file the tarball does not hold, as
 * `map: source`; a map that is not JSON or has no `sources` array is named too. Editors and
 * debuggers follow these paths: a map pointing at `../src/x.ts` needs `src/x.ts` shipped.
 */
export function unresolvedSourceMaps(maps: readonly ShippedFile[], entries: readonly string[]): string[] {
  const present = new Set(entries);
  const found: string[] = [];
  for (const { path, text } of maps) {
    let sources: unknown;
    let sourceRoot: unknown;
    try {
      ({ sources, sourceRoot } = JSON.parse(text) as { sources?: unknown; sourceRoot?: unknown });
    } catch {
      found.push(`${path}: not JSON`);
      continue;
    }
    if (!Array.isArray(sources) || sources.length === 0) {
      found.push(`${path}: no sources`);
      continue;
    }
    const base = posix.join(posix.dirname(path), typeof sourceRoot === 'string' ? sourceRoot : '');
    for (const source of sources) {
      const target = typeof source === 'string' ? posix.normalize(posix.join(base, source)) : '';
      if (!present.has(target)) found.push(`${path}: ${String(source)}`);
    }
  }
  return found;
}

/**
 * Shipped sources (`src/...`) no source map names: sources ship only for the maps that point at
 * them, so a stray file under `src/` is named here.
 */
export function unmappedSources(maps: readonly ShippedFile[], entries: readonly string[]): string[] {
  const named = new Set<string>();
  for (const { path, text } of maps) {
    try {
      const { sources, sourceRoot } = JSON.parse(text) as { sources?: unknown; sourceRoot?: unknown };
      const base = posix.join(posix.dirname(path), typeof sourceRoot === 'string' ? sourceRoot : '');
      if (Array.isArray(sources)) for (const source of sources) if (typeof source === 'string') named.add(posix.normalize(posix.join(base, source)));
    } catch {
      // unresolvedSourceMaps names a map that is not JSON.
    }
  }
  return entries.filter((entry) => entry.startsWith('src/') && !named.has(entry));
}

/** Every `./...` string in an exports value (nested conditions included). */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(exportTargets);
}

/** An exports pattern (`dist/schemas/*.json`) as a RegExp whose group 1 is what `*` matched (slashes too, as in Node). */
function patternRegExp(pattern: string): RegExp {
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^${parts.join('(.+)')}$`);
}

/**
 * Files the tarball lacks: the required ones, `main`, `types`, and every exports target (a
 * pattern target such as `./dist/schemas/*.json` must match at least one file).
 */
export function missingEntries(entries: readonly string[], manifest: PackedManifest): string[] {
  const present = new Set(entries);
  const wanted = [...REQUIRED_FILES];
  for (const field of [manifest.main, manifest.types]) if (typeof field === 'string') wanted.push(field);
  if (manifest.exports === undefined) wanted.push('exports (no exports map)');
  wanted.push(...exportTargets(manifest.exports));
  const missing: string[] = [];
  for (const target of new Set(wanted)) {
    const path = target.replace(/^\.\//, '');
    const found = path.includes('*') ? entries.some((entry) => patternRegExp(path).test(entry)) : present.has(path);
    if (!found) missing.push(path);
  }
  return missing;
}

/** JSON paths of every string in the manifest that still holds a `workspace:` range. */
export function workspaceRanges(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return value.includes('workspace:') ? [`${path || '/'}: ${value}`] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => workspaceRanges(member, `${path}/${key}`));
}

/** Internal dependencies whose packed range is not exactly the version that package packs at. */
export function internalRangeMismatches(manifest: PackedManifest, versions: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'] as const) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (!name.startsWith(SCOPE)) continue;
      const version = versions.get(name);
      if (range !== version) found.push(`${field}["${name}"] is ${range}, expected ${version ?? '(not a workspace package)'}`);
    }
  }
  return found;
}

/** `@scope/name/sub` -> `@scope/name`; `name/sub` -> `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

const BUILTINS = new Set(builtinModules);
const SCANNED = /\.(js|mjs|cjs|d\.ts|d\.mts|d\.cts)$/;

/**
 * Bare imports in shipped JavaScript and declarations (static, type-only, `export ... from`,
 * `require`, dynamic and type-position `import()`, read with the TypeScript pre-processor) that
 * the packed manifest does not declare in dependencies, peerDependencies or optionalDependencies.
 * With a hoisting installer such an import may happen to resolve; with pnpm or Yarn PnP it fails.
 */
export function undeclaredImports(files: readonly ShippedFile[], manifest: PackedManifest): string[] {
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const found: string[] = [];
  for (const { path, text } of files) {
    if (!SCANNED.test(path)) continue;
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) continue;
      const name = packageNameOf(specifier);
      if (BUILTINS.has(name) || declared.has(name)) continue;
      found.push(`${path}: ${specifier}`);
    }
  }
  return found;
}

/**
 * `roots` and their internal runtime dependencies (`dependencies`, transitively, `@toolseal/*`
 * only), leaving out (and not following) every package `exclude` names. Sorted. Throws on a
 * root or dependency no manifest describes: it could only come from the registry.
 */
export function dependencyClosure(
  roots: readonly string[],
  manifests: ReadonlyMap<string, PackedManifest>,
  exclude: (name: string) => boolean,
): string[] {
  const closure = new Set<string>();
  const pending = roots.filter((name) => !exclude(name));
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (closure.has(name)) continue;
    const manifest = manifests.get(name);
    if (manifest === undefined) throw new Error(`${name} is not one of the packed packages`);
    closure.add(name);
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (dependency.startsWith(SCOPE) && !exclude(dependency)) pending.push(dependency);
    }
  }
  return [...closure].sort();
}

/** One module a consumer can import from a package: a subpath of its exports map. */
export interface ExportSpecifier {
  specifier: string;
  /** A JSON module (`import ... with { type: 'json' }`), not JavaScript. */
  json: boolean;
}

/**
 * Every module a consumer can import from a package: each exports subpath, pattern subpaths
 * expanded over the tarball's files (`./schemas/*.json` -> one specifier per schema file).
 */
export function exportSpecifiers(manifest: PackedManifest, entries: readonly string[]): ExportSpecifier[] {
  const exportsMap = manifest.exports;
  const subpaths: [string, unknown][] =
    typeof exportsMap === 'object' && exportsMap !== null && Object.hasOwn(exportsMap, '.')
      ? Object.entries(exportsMap)
      : [['.', exportsMap]];
  const specifiers: ExportSpecifier[] = [];
  for (const [subpath, target] of subpaths) {
    const file = exportTargets(target).find((candidate) => !candidate.endsWith('.d.ts')) ?? '';
    const json = file.endsWith('.json');
    const named = (sub: string): string => (sub === '.' ? manifest.name : `${manifest.name}/${sub.slice(2)}`);
    if (!subpath.includes('*')) {
      specifiers.push({ specifier: named(subpath), json });
      continue;
    }
    const pattern = patternRegExp(file.replace(/^\.\//, ''));
    for (const entry of entries) {
      const match = pattern.exec(entry);
      if (match?.[1] !== undefined) specifiers.push({ specifier: named(subpath.replace('*', match[1])), json });
    }
  }
  return specifiers;
}
