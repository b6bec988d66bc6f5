// Test-support module hooks: let a plain `node` child process run this repository's TypeScript
// sources directly, the way vitest does (workspace `@toolseal/*` imports resolve to `src/`), so
// crash and race tests exercise the current code without a build step.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Transpiled output is cached on disk by content, so only the first child process pays for
// loading the TypeScript compiler.
const cacheDirectory = join(tmpdir(), 'toolseal-typescript-hooks-cache-v1');
let typescript;

async function transpile(fileName, source) {
  const cacheFile = join(cacheDirectory, `${createHash('sha256').update(fileName).update('\0').update(source).digest('hex')}.js`);
  if (existsSync(cacheFile)) return readFileSync(cacheFile, 'utf8');
  typescript ??= (await import('typescript')).default;
  const output = typescript.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: typescript.ModuleKind.ESNext,
      target: typescript.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  }).outputText;
  mkdirSync(cacheDirectory, { recursive: true });
  const partial = `${cacheFile}.${process.pid}.partial`;
  writeFileSync(partial, output);
  renameSync(partial, cacheFile);
  return output;
}

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
    const source = await transpile(fileName, readFileSync(fileName, 'utf8'));
    return { format: 'module', source, shortCircuit: true };
  }
  return nextLoad(url, context);
}
