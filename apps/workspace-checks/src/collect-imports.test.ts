import { describe, expect, it } from 'vitest';
import { collectImports, isTestFile } from './collect-imports.js';

describe('collectImports', () => {
  it('finds every import form, including type-only, re-exports and dynamic imports', () => {
    const source = [
      "import a from 'a';",
      "import type { B } from 'b';",
      "import { type C } from 'c';",
      "export * from 'd';",
      "export { e } from 'e';",
      "export type { F } from 'f';",
      "const g = await import('g');",
      "type H = typeof import('h');",
      "let i: import('i').I;",
      "import j = require('j');",
      "const k = require('k');",
      "import 'l';",
      'const m = `${await import("m/sub/path.js")}`;',
      "import {",
      "  n,",
      "} from '@scope/n';",
    ].join('\n');
    expect(collectImports(source)).toEqual([
      { specifier: 'a', line: 1 },
      { specifier: 'b', line: 2 },
      { specifier: 'c', line: 3 },
      { specifier: 'd', line: 4 },
      { specifier: 'e', line: 5 },
      { specifier: 'f', line: 6 },
      { specifier: 'g', line: 7 },
      { specifier: 'h', line: 8 },
      { specifier: 'i', line: 9 },
      { specifier: 'j', line: 10 },
      { specifier: 'k', line: 11 },
      { specifier: 'l', line: 12 },
      { specifier: 'm/sub/path.js', line: 13 },
      { specifier: '@scope/n', line: 16 },
    ]);
  });

  it('ignores comments and string contents', () => {
    const source = [
      "// import 'commented';",
      "/* export * from 'block'; */",
      "const text = \"import('in-a-string')\";",
      "const other = 'export { x } from \"quoted\"';",
    ].join('\n');
    expect(collectImports(source)).toEqual([]);
  });
});

describe('isTestFile', () => {
  it('matches exactly what tsconfig.build.json excludes from the build', () => {
    expect(isTestFile('src/catalog.test.ts')).toBe(true);
    expect(isTestFile('src/catalog.test-d.ts')).toBe(true);
    expect(isTestFile('src/__fixtures__/openai-call.ts')).toBe(true);
    expect(isTestFile('src/deep/__fixtures__/nested/data.ts')).toBe(true);
    expect(isTestFile('src/catalog.ts')).toBe(false);
    expect(isTestFile('src/testing.ts')).toBe(false);
    expect(isTestFile('src/contest.ts')).toBe(false);
  });
});
