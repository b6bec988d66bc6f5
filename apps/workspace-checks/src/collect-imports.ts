import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** One module specifier a source file imports, re-exports, requires or imports dynamically. */
export interface ImportedSpecifier {
  /** The specifier exactly as written, e.g. `@toolseal/errors` or `./catalog.js`. */
  specifier: string;
  /** 1-based line of the specifier, for messages. */
  line: number;
}

/** A source file under a package's `src/`, with what it imports. */
export interface SourceFileImports {
  /** Path relative to the package directory, with `/` separators, e.g. `src/catalog.ts`. */
  path: string;
  /** Whether the build excludes the file (tests, type tests, fixtures): it may use devDependencies. */
  isTest: boolean;
  imports: ImportedSpecifier[];
}

const SOURCE_FILE = /\.(?:[cm]?ts|tsx)$/;
const TEST_FILE = /\.test(?:-d)?\.(?:[cm]?ts|tsx)$/;

/** 1-based line of a character offset, by binary search over the offsets where lines start. */
function lineOf(lineStarts: readonly number[], position: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((lineStarts[middle] ?? 0) <= position) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/**
 * Every module specifier in a TypeScript source text: static imports (value and type), `export ...
 * from`, `import x = require()`, `require()`, dynamic `import()` and type-position `import('x')`.
 * Comments and string contents are ignored. Uses the TypeScript pre-processor, which scans tokens
 * rather than guessing with regular expressions.
 */
export function collectImports(sourceText: string): ImportedSpecifier[] {
  const { importedFiles } = ts.preProcessFile(sourceText, true, true);
  const lineStarts = [0];
  for (let index = sourceText.indexOf('\n'); index !== -1; index = sourceText.indexOf('\n', index + 1)) {
    lineStarts.push(index + 1);
  }
  return importedFiles.map(({ fileName, pos }) => ({ specifier: fileName, line: lineOf(lineStarts, pos) }));
}

/**
 * Whether a file (path relative to its package) is excluded from the published build, mirroring
 * the `exclude` of every `tsconfig.build.json`: `*.test.ts`, `*.test-d.ts` and `__fixtures__/`.
 */
export function isTestFile(packageRelativePath: string): boolean {
  return TEST_FILE.test(packageRelativePath) || packageRelativePath.split('/').includes('__fixtures__');
}

function listSourceFiles(directory: string): string[] {
  const files: string[] = [];
  const pending = [directory];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && SOURCE_FILE.test(entry.name)) files.push(path);
    }
  }
  return files.sort();
}

/** Every `.ts` file under `<packageDir>/src` (declaration files included), with its imports. */
export function collectPackageImports(packageDir: string): SourceFileImports[] {
  return listSourceFiles(join(packageDir, 'src')).map((file) => {
    const path = relative(packageDir, file).split(sep).join('/');
    return {
      path,
      isTest: isTestFile(path),
      imports: collectImports(readFileSync(file, 'utf8')),
    };
  });
}
