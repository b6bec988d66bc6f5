// Test-only module hooks: let a plain `node` child process run this repository's TypeScript
// sources directly, the way vitest does (workspace `@toolseal/*` imports resolve to `src/`), so
// crash and race tests exercise the current code without a build step.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

function workspaceSource(specifier, parentURL) {
  const [scope, name, ...rest] = specifier.split('/');
  const subpath = rest.length === 0 ? '.' : `./${rest.join('/')}`;
  let directory = dirname(fileURLToPath(parentURL));
  for (;;) {
    const candidate = join(directory, 'node_modules', scope, name);
    if (existsSync(join(candidate, 'package.json'))) {
      const packageDirectory = realpathSync(candidate);
      const manifest = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8'));
      const target = manifest.exports?.[subpath];
      const file = typeof target === 'string' ? target : target?.import;
      if (typeof file !== 'string') return null;
      const source = join(packageDirectory, file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
      return existsSync(source) ? pathToFileURL(source).href : null;
    }
    const parent = dirname(directory);
    if (parent === directory) return null;
    directory = parent;
  }
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('@toolseal/') && context.parentURL !== undefined) {
    const url = workspaceSource(specifier, context.parentURL);
    if (url !== null) return { url, shortCircuit: true };
  }
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const url = new URL(specifier, context.parentURL);
    const typescriptUrl = new URL(`${url.href.slice(0, -3)}.ts`);
    if (!existsSync(fileURLToPath(url)) && existsSync(fileURLToPath(typescriptUrl))) {
      return { url: typescriptUrl.href, shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && url.endsWith('.ts')) {
    const fileName = fileURLToPath(url);
    const output = ts.transpileModule(readFileSync(fileName, 'utf8'), {
      fileName,
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
        inlineSourceMap: true,
      },
    });
    return { format: 'module', source: output.outputText, shortCircuit: true };
  }
  return nextLoad(url, context);
}
