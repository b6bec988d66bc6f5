import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkWorkspace, formatViolations, packageNameOf } from './check-workspace.js';
import type { WorkspaceViolation } from './check-workspace.js';
import { PACKAGE_LAYERS } from './package-layers.js';

const fixturesDir = join(import.meta.dirname, '__fixtures__');
const repositoryRoot = resolve(import.meta.dirname, '..', '..', '..');

function summary(violations: readonly WorkspaceViolation[]): string[] {
  return violations.map(({ rule, file, message }) => `${rule} ${file} ${message}`).sort();
}

const copies: string[] = [];
afterEach(() => {
  for (const copy of copies.splice(0)) rmSync(copy, { recursive: true, force: true });
});

/** A writable copy of a fixture tree, so a test can break one thing in it. */
function copyFixture(name: string): string {
  const root = mkdtempSync(join(tmpdir(), 'toolseal-workspace-checks-'));
  copies.push(root);
  cpSync(join(fixturesDir, name), root, { recursive: true });
  return root;
}

function writeFile(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function editManifest(root: string, directory: string, edit: (manifest: Record<string, unknown>) => void): void {
  const path = join(root, 'packages', directory, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  edit(manifest);
  writeFileSync(path, JSON.stringify(manifest, null, 2));
}

describe('the real workspace', () => {
  // One check over the repository, reported rule by rule so a failure names what broke.
  const violations = checkWorkspace(repositoryRoot);
  const groups: [string, WorkspaceViolation['rule'][]][] = [
    [
      'gives every package a layer and respects the layers in imports and manifests',
      ['unknown_package', 'upward_import', 'test_upward_import', 'upward_dependency'],
    ],
    [
      'declares every import where the importing file may use it',
      ['undeclared_import', 'bare_builtin', 'self_import', 'relative_escape'],
    ],
    ['has no internal dependency cycle', ['dependency_cycle']],
    ['mirrors internal runtime dependencies in tsconfig project references', ['project_references']],
    ['keeps every package publishable on its own, with a README once it has source', ['manifest', 'readme']],
    ['ships the declarations of every untyped third-party dependency its source imports', ['untyped_dependency']],
  ];

  it('covers every rule in exactly one group', () => {
    const rules = groups.flatMap(([, groupRules]) => groupRules);
    expect(new Set(rules).size).toBe(rules.length);
    expect(rules).toHaveLength(13);
  });

  it.each(groups)('%s', (_name, rules) => {
    const found = violations.filter(({ rule }) => rules.includes(rule));
    expect(found, `\n${formatViolations(found)}\n`).toEqual([]);
  });

  it('follows the Layers section of the top-level README: contracts 0, errors and digests 1, guard 2, ..., dispatcher 5', () => {
    expect(PACKAGE_LAYERS['@toolseal/contracts']).toBe(0);
    expect(PACKAGE_LAYERS['@toolseal/errors']).toBe(1);
    expect(PACKAGE_LAYERS['@toolseal/digests']).toBe(1);
    expect(PACKAGE_LAYERS['@toolseal/guard']).toBe(2);
    for (const name of ['proposal', 'result', 'audit']) expect(PACKAGE_LAYERS[`@toolseal/${name}`]).toBe(3);
    for (const name of ['store-sqlite', 'store-postgres', 'adapter-openai', 'adapter-anthropic', 'adapter-gemini']) {
      expect(PACKAGE_LAYERS[`@toolseal/${name}`]).toBe(4);
    }
    expect(PACKAGE_LAYERS['@toolseal/dispatcher']).toBe(5);
  });
});

describe('checkWorkspace on fixture trees', () => {
  it('finds nothing wrong in the clean tree (every import form, declared where used)', () => {
    const violations = checkWorkspace(join(fixturesDir, 'clean'));
    expect(violations, formatViolations(violations)).toEqual([]);
  });

  it('rejects an upward and a sideways import, in source and in the manifest', () => {
    expect(summary(checkWorkspace(join(fixturesDir, 'upward-import')))).toEqual([
      'upward_dependency packages/errors/package.json layer 1 depends on @toolseal/digests (layer 1)',
      'upward_dependency packages/errors/package.json layer 1 depends on @toolseal/guard (layer 2)',
      'upward_import packages/errors/src/index.ts:2 layer 1 imports @toolseal/guard (layer 2)',
      'upward_import packages/errors/src/index.ts:3 layer 1 imports @toolseal/digests (layer 1)',
    ]);
  });

  it('rejects undeclared imports, a devDependency used by source and a bare builtin', () => {
    expect(summary(checkWorkspace(join(fixturesDir, 'undeclared-import')))).toEqual([
      'bare_builtin packages/errors/src/index.ts:2 import node:fs rather than fs',
      'undeclared_import packages/errors/src/index.test.ts:1 imports zod, which is not in its dependencies, peerDependencies or devDependencies',
      'undeclared_import packages/errors/src/index.ts:1 imports fast-check, which is not in its dependencies or peerDependencies',
      'undeclared_import packages/guard/src/index.ts:1 imports ajv, which is not in its dependencies or peerDependencies',
      'undeclared_import packages/guard/src/index.ts:2 imports @toolseal/errors, which is not in its dependencies or peerDependencies',
    ]);
  });

  it('rejects a runtime dependency without declarations whose @types package is only a devDependency (packaging review)', () => {
    const root = copyFixture('clean');
    writeFile(root, 'packages/guard/node_modules/untyped-db/package.json', JSON.stringify({ name: 'untyped-db', main: 'index.js' }));
    writeFile(root, 'packages/guard/node_modules/typed-db/package.json', JSON.stringify({ name: 'typed-db', exports: { '.': { types: './index.d.ts', import: './index.js' } } }));
    writeFile(root, 'packages/guard/node_modules/@acme/untyped/package.json', JSON.stringify({ name: '@acme/untyped' }));
    writeFile(root, 'packages/guard/src/db.ts', "import type { Db } from 'untyped-db';\nimport { open } from 'typed-db';\nimport acme from '@acme/untyped';\nexport type { Db };\nexport { open, acme };\n");
    editManifest(root, 'guard', (manifest) => {
      manifest.dependencies = { ...(manifest.dependencies as object), 'untyped-db': '^1.0.0', 'typed-db': '^1.0.0', '@acme/untyped': '^1.0.0' };
      manifest.devDependencies = { '@types/untyped-db': '1.0.0' };
    });
    expect(summary(checkWorkspace(root)).filter((line) => line.startsWith('untyped_dependency'))).toEqual([
      'untyped_dependency packages/guard/src/db.ts:1 imports untyped-db, which ships no declarations: add @types/untyped-db to its dependencies',
      'untyped_dependency packages/guard/src/db.ts:3 imports @acme/untyped, which ships no declarations: add @types/acme__untyped to its dependencies',
    ]);
    editManifest(root, 'guard', (manifest) => {
      manifest.dependencies = { ...(manifest.dependencies as object), '@types/untyped-db': '^1.0.0', '@types/acme__untyped': '^1.0.0' };
    });
    expect(summary(checkWorkspace(root)).filter((line) => line.startsWith('untyped_dependency'))).toEqual([]);
  });

  it('rejects a dependency cycle even when each edge alone is allowed', () => {
    expect(summary(checkWorkspace(join(fixturesDir, 'cycle')))).toEqual([
      'dependency_cycle packages/digests/package.json internal dependencies form a cycle: @toolseal/digests -> @toolseal/errors -> @toolseal/digests',
    ]);
  });

  it('rejects a package with no layer', () => {
    const root = copyFixture('clean');
    cpSync(join(root, 'packages', 'contracts'), join(root, 'packages', 'mystery'), { recursive: true });
    editManifest(root, 'mystery', (manifest) => (manifest.name = '@toolseal/mystery'));
    expect(summary(checkWorkspace(root))).toEqual([
      'unknown_package packages/mystery/package.json @toolseal/mystery has no layer: add it to PACKAGE_LAYERS',
    ]);
  });

  it('rejects a package directory without a package.json', () => {
    const root = copyFixture('clean');
    writeFile(root, 'packages/half-made/src/index.ts', 'export {};\n');
    expect(summary(checkWorkspace(root))).toEqual([
      'manifest packages/half-made/package.json has no readable package.json',
    ]);
  });

  it('lets a test import a lower or same-layer package but not a higher one', () => {
    const root = copyFixture('clean');
    editManifest(root, 'errors', (manifest) => {
      manifest.devDependencies = { 'fast-check': '4.11.0', '@toolseal/guard': 'workspace:*' };
    });
    writeFile(root, 'packages/errors/src/guarded.test.ts', "import { load } from '@toolseal/guard';\nexport { load };\n");
    // guard depends on errors, so the devDependency also closes a cycle.
    expect(summary(checkWorkspace(root))).toEqual([
      'dependency_cycle packages/errors/package.json internal dependencies form a cycle: @toolseal/errors -> @toolseal/guard -> @toolseal/errors',
      'test_upward_import packages/errors/src/guarded.test.ts:1 a test of layer 1 imports @toolseal/guard (layer 2)',
      'upward_dependency packages/errors/package.json layer 1 has a devDependency on @toolseal/guard (layer 2)',
    ]);
  });

  it('rejects an import that is only declared as a devDependency from a fixture-free source file', () => {
    const root = copyFixture('clean');
    writeFile(root, 'packages/errors/src/sample.ts', "import fc from 'fast-check';\nexport const sample = fc;\n");
    writeFile(root, 'packages/errors/src/__fixtures__/sample.ts', "import fc from 'fast-check';\nexport const sample = fc;\n");
    expect(summary(checkWorkspace(root))).toEqual([
      'undeclared_import packages/errors/src/sample.ts:1 imports fast-check, which is not in its dependencies or peerDependencies',
    ]);
  });

  it('rejects self-imports in source, relative imports that leave the package', () => {
    const root = copyFixture('clean');
    writeFile(root, 'packages/guard/src/self.ts', "export { load } from '@toolseal/guard';\n");
    writeFile(root, 'packages/guard/src/reach.ts', "export { makeError } from '../../errors/src/make-error.js';\n");
    expect(summary(checkWorkspace(root))).toEqual([
      'relative_escape packages/guard/src/reach.ts:1 ../../errors/src/make-error.js leaves the package; import the package by name',
      'self_import packages/guard/src/self.ts:1 imports its own package @toolseal/guard; use a relative path',
    ]);
  });

  it('rejects a manifest that is not publishable on its own', () => {
    const root = copyFixture('clean');
    editManifest(root, 'guard', (manifest) => {
      manifest.sideEffects = true;
      manifest.exports = { '.': { import: './dist/index.js' }, './extra': './dist/extra.js' };
      delete manifest.files;
      delete manifest.engines;
      manifest.publishConfig = { access: 'restricted' };
      manifest.dependencies = { '@toolseal/contracts': '^0.1.0', '@toolseal/errors': 'workspace:*', ajv: '8.20.0' };
    });
    expect(summary(checkWorkspace(root))).toEqual([
      'manifest packages/guard/package.json dependencies["@toolseal/contracts"] must use the workspace: protocol',
      'manifest packages/guard/package.json engines.node is missing',
      'manifest packages/guard/package.json exports["."] must give "types" and "import" conditions',
      'manifest packages/guard/package.json exports["./extra"] must give "types" and "import" conditions',
      'manifest packages/guard/package.json files must list what ships',
      'manifest packages/guard/package.json publishConfig.access must be "public"',
      'manifest packages/guard/package.json sideEffects must be false',
    ]);
  });

  it('requires a README once a package has source, not while it is an empty scaffold', () => {
    const root = copyFixture('clean');
    rmSync(join(root, 'packages', 'guard', 'README.md'));
    rmSync(join(root, 'packages', 'contracts', 'README.md'));
    rmSync(join(root, 'packages', 'contracts', 'src'), { recursive: true });
    expect(summary(checkWorkspace(root))).toEqual([
      'readme packages/guard/README.md a package with source needs a README.md',
    ]);
  });

  it('requires tsconfig project references to mirror internal runtime dependencies', () => {
    const root = copyFixture('clean');
    writeFile(root, 'packages/guard/tsconfig.build.json', '{ "references": [{ "path": "../contracts/tsconfig.build.json" }] }');
    writeFile(
      root,
      'packages/errors/tsconfig.build.json',
      '{\n  // comments are allowed in tsconfig\n  "references": [{ "path": "../contracts/tsconfig.build.json" }, { "path": "../guard/tsconfig.build.json" }]\n}',
    );
    expect(summary(checkWorkspace(root))).toEqual([
      'project_references packages/errors/tsconfig.build.json reference ../guard is not a runtime dependency',
      'project_references packages/guard/tsconfig.build.json missing reference ../errors/tsconfig.build.json',
    ]);
  });
});

describe('packageNameOf', () => {
  it('keeps the scope and drops subpaths', () => {
    expect(packageNameOf('@toolseal/digests/node')).toBe('@toolseal/digests');
    expect(packageNameOf('@noble/hashes/sha2.js')).toBe('@noble/hashes');
    expect(packageNameOf('ajv/dist/2020.js')).toBe('ajv');
    expect(packageNameOf('pg')).toBe('pg');
  });
});
