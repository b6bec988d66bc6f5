// Test-support module hooks: let a plain `node` child process run this repository's TypeScript
// sources directly, the way vitest does (workspace `@toolseal/*` imports resolve to `src/`), so
// crash and race tests exercise the current code without a build step.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Transpiled output is cached on disk by content, so only the first child process pays for
// loading the TypeScript compiler and transpiling the sources it imports (a store fixture
// measured about 2 s without the cache and 0.3 s with it). A cache entry is executed as code, so
// the cache lives only in a directory private to the user running the tests, never in the shared
// os.tmpdir() (another local user could plant an entry there): see `privateCacheDirectory`.
const CACHE_NAME = 'toolseal-typescript-hooks';
/** Part of every entry's name: a change of the compiler options below makes a new name. */
const CACHE_FORMAT = 'toolseal-typescript-hooks-v2';
/** Group and world write permission bits. */
const WRITABLE_BY_OTHERS = 0o022;
const currentUid = typeof process.getuid === 'function' ? process.getuid() : undefined;
/** The checked cache directory, `null` when there is none to trust (transpile without caching). */
let cacheDirectory;
let typescript;

/**
 * Where the cache may live: `node_modules/.cache` of the project this module is installed in (or,
 * in a source checkout, of the nearest directory above it with a `node_modules`), else the user's
 * own cache directory (`$XDG_CACHE_HOME`, `~/.cache`, `%LOCALAPPDATA%`), else nowhere.
 */
function cacheDirectoryCandidate() {
  const here = dirname(fileURLToPath(import.meta.url));
  const segments = here.split(sep);
  const installed = segments.indexOf('node_modules');
  if (installed > 0) return join(segments.slice(0, installed + 1).join(sep) || sep, '.cache', CACHE_NAME);
  for (let directory = here; ; directory = dirname(directory)) {
    if (isDirectory(join(directory, 'node_modules'))) return join(directory, 'node_modules', '.cache', CACHE_NAME);
    if (dirname(directory) === directory) break;
  }
  const userCache =
    process.platform === 'win32' ? process.env['LOCALAPPDATA'] : process.env['XDG_CACHE_HOME'] || join(safeHomedir(), '.cache');
  return typeof userCache === 'string' && isAbsolute(userCache) ? join(userCache, CACHE_NAME) : null;
}

/**
 * The cache directory, created with mode 0o700 if missing, or `null` unless it is trustworthy:
 * a real directory (not a symlink), and, where user ids exist, owned by this user and writable
 * by nobody else. Anything else (another user's directory, one opened to the group or world, a
 * symlink planted in its place) is not read and not written: the hooks transpile every file.
 */
function privateCacheDirectory() {
  if (cacheDirectory !== undefined) return cacheDirectory;
  cacheDirectory = null;
  const candidate = cacheDirectoryCandidate();
  if (candidate === null) return null;
  try {
    mkdirSync(candidate, { recursive: true, mode: 0o700 });
    if (isPrivate(lstatSync(candidate), 'directory')) cacheDirectory = candidate;
  } catch {
    // Not creatable or not readable (a read-only install, say): no cache.
  }
  return cacheDirectory;
}

/** Whether `stats` is a `kind` (never a symlink) owned by this user and writable by nobody else. */
function isPrivate(stats, kind) {
  if (kind === 'directory' ? !stats.isDirectory() : !stats.isFile()) return false;
  // Without user ids (Windows) ownership and mode bits say nothing: the location is per user.
  if (currentUid === undefined) return true;
  return stats.uid === currentUid && (stats.mode & WRITABLE_BY_OTHERS) === 0;
}

/** The line that ends every entry: its own name, so an entry renamed to another name is not used. */
function entryTrailer(name) {
  return `\n// ${CACHE_FORMAT} ${name}\n`;
}

/**
 * The transpiled text of entry `name`, or `null` when there is none to trust. Checked again on
 * the open file (not followed if it is a symlink): whoever could swap the directory after it was
 * checked still cannot make an entry owned by this user, nor pass one of this user's entries off
 * under another name.
 */
function readCacheEntry(directory, name) {
  let descriptor;
  try {
    descriptor = openSync(join(directory, `${name}.js`), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    if (!isPrivate(fstatSync(descriptor), 'file')) return null;
    const text = readFileSync(descriptor, 'utf8');
    const trailer = entryTrailer(name);
    return text.endsWith(trailer) ? text.slice(0, -trailer.length) : null;
  } catch {
    return null;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Stores an entry: written to a new file with a random name (`wx`: never an existing file or a
 * symlink), then renamed into place, so a reader sees a whole entry or none. A failure only
 * costs the next child a transpile.
 */
function writeCacheEntry(directory, name, text) {
  const partial = join(directory, `.${name}.${randomBytes(8).toString('hex')}.partial`);
  try {
    writeFileSync(partial, text + entryTrailer(name), { flag: 'wx', mode: 0o600 });
    renameSync(partial, join(directory, `${name}.js`));
  } catch {
    try {
      rmSync(partial, { force: true });
    } catch {
      // Left behind: harmless, never read as an entry.
    }
  }
}

async function transpile(fileName, source) {
  const directory = privateCacheDirectory();
  const name = createHash('sha256').update(CACHE_FORMAT).update('\0').update(fileName).update('\0').update(source).digest('hex');
  const cached = directory === null ? null : readCacheEntry(directory, name);
  if (cached !== null) return cached;
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
  if (directory !== null) writeCacheEntry(directory, name, output);
  return output;
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function safeHomedir() {
  try {
    return homedir();
  } catch {
    return '';
  }
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
