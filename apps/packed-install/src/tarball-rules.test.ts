// Each rule the packed-install test applies to the real tarballs, shown catching a bad input: the
// real tarballs are clean, so these are what prove the assertions there can fail.
import { describe, expect, it } from 'vitest';
import {
  dependencyClosure,
  exportSpecifiers,
  forbiddenEntries,
  internalRangeMismatches,
  missingEntries,
  packageEntries,
  undeclaredImports,
  unmappedSources,
  unresolvedSourceMaps,
  workspaceRanges,
  type PackedManifest,
} from './tarball-rules.js';

const manifest: PackedManifest = {
  name: '@toolseal/sample',
  version: '0.1.0',
  main: './dist/index.js',
  types: './dist/index.d.ts',
  exports: {
    '.': { types: './dist/index.d.ts', import: './dist/index.js' },
    './node': { types: './dist/node.d.ts', import: './dist/node.js' },
    './schemas/*.json': './dist/schemas/*.json',
  },
  dependencies: { '@toolseal/contracts': '0.1.0', ajv: '8.20.0' },
  peerDependencies: { typescript: '>=5.0.0' },
};
const complete = [
  'package.json',
  'README.md',
  'LICENSE',
  'dist/index.js',
  'dist/index.d.ts',
  'dist/node.js',
  'dist/node.d.ts',
  'dist/schemas/a.json',
  'dist/schemas/b.json',
];

describe('packageEntries', () => {
  it('strips package/, drops directories and keeps anything outside package/ visible', () => {
    expect(packageEntries('package/README.md\npackage/dist/\npackage/dist/index.js\nother/x.js\n')).toEqual([
      'README.md',
      'dist/index.js',
      '../other/x.js',
    ]);
  });
});

describe('forbiddenEntries', () => {
  it('accepts a tarball of dist, README, LICENSE and package.json', () => {
    expect(forbiddenEntries(complete)).toEqual([]);
  });

  it('names tests, tsconfig, build info, fixtures, configs, caches and strays', () => {
    expect(
      forbiddenEntries([
        'dist/index.test.js',
        'dist/types.test-d.ts',
        'src/index.ts',
        'src/index.test.ts',
        'tsconfig.build.json',
        'dist/tsconfig.build.tsbuildinfo',
        'dist/__fixtures__/x.json',
        'vitest.config.ts',
        '.turbo/turbo-build.log',
        'node_modules/x/index.js',
        '../other/x.js',
        'dist/latest.json',
      ]),
    ).toEqual([
      'dist/index.test.js (test file)',
      'dist/types.test-d.ts (test file)',
      'src/index.test.ts (test file)',
      'tsconfig.build.json (tsconfig)',
      'dist/tsconfig.build.tsbuildinfo (tsconfig)',
      'dist/tsconfig.build.tsbuildinfo (TypeScript build info)',
      'dist/__fixtures__/x.json (test fixture)',
      'vitest.config.ts (vitest config)',
      '.turbo/turbo-build.log (turbo cache)',
      'node_modules/x/index.js (node_modules)',
      '../other/x.js (outside package/)',
    ]);
  });
});

describe('unresolvedSourceMaps and unmappedSources', () => {
  const map = (sources: unknown, extra: Record<string, unknown> = {}): string => JSON.stringify({ version: 3, sources, mappings: 'AAAA', ...extra });
  const entries = ['dist/index.js', 'dist/index.js.map', 'dist/index.d.ts.map', 'dist/sub/x.js.map', 'src/index.ts', 'src/sub/x.ts'];

  it('accepts maps whose sources ship, relative to the map and its sourceRoot', () => {
    const maps = [
      { path: 'dist/index.js.map', text: map(['../src/index.ts'], { sourceRoot: '' }) },
      { path: 'dist/index.d.ts.map', text: map(['index.ts'], { sourceRoot: '../src' }) },
      { path: 'dist/sub/x.js.map', text: map(['../../src/sub/x.ts']) },
    ];
    expect(unresolvedSourceMaps(maps, entries)).toEqual([]);
    expect(unmappedSources(maps, entries)).toEqual([]);
  });

  it('names a source that is not shipped, a map that is not JSON and one without sources', () => {
    expect(
      unresolvedSourceMaps(
        [
          { path: 'dist/index.js.map', text: map(['../src/index.ts', '../src/missing.ts']) },
          { path: 'dist/sub/x.js.map', text: '{"version":3,' },
          { path: 'dist/index.d.ts.map', text: map([]) },
        ],
        entries,
      ),
    ).toEqual(['dist/index.js.map: ../src/missing.ts', 'dist/sub/x.js.map: not JSON', 'dist/index.d.ts.map: no sources']);
  });

  it('names a shipped source no map points at', () => {
    expect(unmappedSources([{ path: 'dist/index.js.map', text: map(['../src/index.ts']) }], entries)).toEqual(['src/sub/x.ts']);
  });
});

describe('missingEntries', () => {
  it('finds nothing missing in a complete tarball', () => {
    expect(missingEntries(complete, manifest)).toEqual([]);
  });

  it('names a missing required file, exports target and pattern with no match', () => {
    const entries = complete.filter((path) => !['LICENSE', 'dist/node.d.ts'].includes(path) && !path.startsWith('dist/schemas/'));
    expect(missingEntries(entries, manifest)).toEqual(['LICENSE', 'dist/node.d.ts', 'dist/schemas/*.json']);
  });

  it('names main and types when they point at files that do not ship', () => {
    expect(missingEntries(complete, { ...manifest, main: './dist/main.js', types: './index.d.ts' })).toEqual([
      'dist/main.js',
      'index.d.ts',
    ]);
  });
});

describe('workspaceRanges and internalRangeMismatches', () => {
  it('finds a workspace: range anywhere in the manifest', () => {
    expect(workspaceRanges(manifest)).toEqual([]);
    expect(
      workspaceRanges({ ...manifest, devDependencies: { '@toolseal/guard': 'workspace:*' }, x: [{ y: 'workspace:^' }] }),
    ).toEqual(['/devDependencies/@toolseal/guard: workspace:*', '/x/0/y: workspace:^']);
  });

  it('requires every internal range to be exactly the packed version of that package', () => {
    const versions = new Map([
      ['@toolseal/contracts', '0.1.0'],
      ['@toolseal/guard', '0.1.0'],
    ]);
    expect(internalRangeMismatches(manifest, versions)).toEqual([]);
    expect(
      internalRangeMismatches(
        { ...manifest, dependencies: { '@toolseal/contracts': '^0.1.0', '@toolseal/gone': '0.1.0', ajv: '8.20.0' } },
        versions,
      ),
    ).toEqual([
      'dependencies["@toolseal/contracts"] is ^0.1.0, expected 0.1.0',
      'dependencies["@toolseal/gone"] is 0.1.0, expected (not a workspace package)',
    ]);
  });
});

describe('undeclaredImports', () => {
  it('accepts builtins, relative paths, itself and declared dependencies, in every import form', () => {
    const files = [
      {
        path: 'dist/index.js',
        text: [
          "import { a } from './a.js';",
          "import { readFileSync } from 'node:fs';",
          "import path from 'path';",
          "export { b } from '@toolseal/contracts';",
          "import Ajv from 'ajv/dist/2020.js';",
          "const ts = await import('typescript');",
          "export * from '@toolseal/sample/node';",
          "// import { x } from 'in-a-comment';",
        ].join('\n'),
      },
    ];
    expect(undeclaredImports(files, manifest)).toEqual([]);
  });

  it('names undeclared imports in .js, .mjs and .d.ts (type-position import() too), ignores other files', () => {
    const files = [
      { path: 'dist/a.js', text: "import fc from 'fast-check';" },
      { path: 'dist/b.mjs', text: "const m = await import('@toolseal/audit');" },
      { path: 'dist/c.d.ts', text: 'export declare const x: import("@toolseal/errors").ErrorCode;' },
      { path: 'dist/d.d.ts', text: "export type { Y } from '@noble/hashes/sha2.js';" },
      { path: 'README.md', text: "import x from 'undeclared';" },
    ];
    expect(undeclaredImports(files, manifest)).toEqual([
      'dist/a.js: fast-check',
      'dist/b.mjs: @toolseal/audit',
      'dist/c.d.ts: @toolseal/errors',
      'dist/d.d.ts: @noble/hashes/sha2.js',
    ]);
  });
});

describe('dependencyClosure', () => {
  const manifests = new Map<string, PackedManifest>(
    Object.entries({
      '@toolseal/top': { name: '@toolseal/top', version: '0.1.0', dependencies: { '@toolseal/mid': '0.1.0', '@toolseal/store-x': '0.1.0' } },
      '@toolseal/mid': { name: '@toolseal/mid', version: '0.1.0', dependencies: { '@toolseal/base': '0.1.0', ajv: '8.20.0' } },
      '@toolseal/base': { name: '@toolseal/base', version: '0.1.0' },
      '@toolseal/store-x': { name: '@toolseal/store-x', version: '0.1.0', dependencies: { '@toolseal/only-store': '0.1.0' } },
      '@toolseal/only-store': { name: '@toolseal/only-store', version: '0.1.0' },
      '@toolseal/other': { name: '@toolseal/other', version: '0.1.0', devDependencies: { '@toolseal/top': '0.1.0' } },
    }),
  );
  const isStore = (name: string): boolean => name.startsWith('@toolseal/store-');

  it('follows dependencies transitively, @toolseal only, and neither keeps nor follows excluded packages', () => {
    expect(dependencyClosure(['@toolseal/top'], manifests, isStore)).toEqual(['@toolseal/base', '@toolseal/mid', '@toolseal/top']);
    expect(dependencyClosure(['@toolseal/top'], manifests, () => false)).toEqual([
      '@toolseal/base',
      '@toolseal/mid',
      '@toolseal/only-store',
      '@toolseal/store-x',
      '@toolseal/top',
    ]);
    expect(dependencyClosure(['@toolseal/other'], manifests, isStore)).toEqual(['@toolseal/other']);
  });

  it('throws on a dependency that was not packed', () => {
    const broken = new Map(manifests).set('@toolseal/base', { name: '@toolseal/base', version: '0.1.0', dependencies: { '@toolseal/gone': '0.1.0' } });
    expect(() => dependencyClosure(['@toolseal/top'], broken, isStore)).toThrow('@toolseal/gone is not one of the packed packages');
  });
});

describe('exportSpecifiers', () => {
  it('gives every subpath, expanding patterns over the shipped files and marking JSON modules', () => {
    expect(exportSpecifiers(manifest, complete)).toEqual([
      { specifier: '@toolseal/sample', json: false },
      { specifier: '@toolseal/sample/node', json: false },
      { specifier: '@toolseal/sample/schemas/a.json', json: true },
      { specifier: '@toolseal/sample/schemas/b.json', json: true },
    ]);
  });

  it('reads a bare string exports as the root', () => {
    expect(exportSpecifiers({ name: '@toolseal/plain', version: '0.1.0', exports: './dist/index.js' }, [])).toEqual([
      { specifier: '@toolseal/plain', json: false },
    ]);
  });
});
