// The transpile cache of the child-process hooks holds code that children execute, so only a
// directory private to the user running the tests may serve it (review: another local user's
// entry, planted in the shared os.tmpdir() cache, ran as root). Each case copies the hooks into a
// package of its own under a temporary directory (its cache: `<package>/node_modules/.cache`),
// never touching the cache the store tests share, and runs a real child process.
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, nextMessage } from './child-process.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolseal-typescript-hooks-test-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const typescriptDirectory = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
const CACHE_FORMAT = 'toolseal-typescript-hooks-v2';
const FIXTURE_SOURCE = `const answer: number = 42;\nprocess.send?.({ ran: 'fixture', answer }, () => process.exit(0));\n`;
/** What an attacker's entry would run instead of the fixture. */
const PLANTED = `process.send?.({ ran: 'planted' }, () => process.exit(0));\n`;
const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;
let packages = 0;

/** A package holding a copy of the hooks, `typescript` in its node_modules, and a fixture. */
function hooksPackage(options: { nodeModules?: boolean } = {}) {
  const directory = join(root, `package-${(packages += 1)}`);
  mkdirSync(join(directory, 'src'), { recursive: true });
  for (const file of ['typescript-hooks.mjs', 'register-typescript.mjs']) {
    copyFileSync(fileURLToPath(new URL(`./${file}`, import.meta.url)), join(directory, 'src', file));
  }
  if (options.nodeModules !== false) {
    mkdirSync(join(directory, 'node_modules'));
    symlinkSync(typescriptDirectory, join(directory, 'node_modules', 'typescript'), 'dir');
  }
  const fixture = join(directory, 'fixture.ts');
  writeFileSync(fixture, FIXTURE_SOURCE);
  const name = createHash('sha256').update(CACHE_FORMAT).update('\0').update(fixture).update('\0').update(FIXTURE_SOURCE).digest('hex');
  return {
    directory,
    fixture,
    /** Where the hooks keep their cache for this package. */
    cache: join(directory, 'node_modules', '.cache', 'toolseal-typescript-hooks'),
    /** The fixture's entry name, and an entry text the hooks would accept under it. */
    name,
    entryText: (code: string, entryName = name) => `${code}\n// ${CACHE_FORMAT} ${entryName}\n`,
    /** The name the earlier hooks gave the fixture's entry in the shared os.tmpdir() cache. */
    sharedName: createHash('sha256').update(fixture).update('\0').update(FIXTURE_SOURCE).digest('hex'),
  };
}

/** Runs the fixture under the package's hooks; answers what ran, the fixture or a planted entry. */
async function run(hooks: ReturnType<typeof hooksPackage>, env: Record<string, string> = {}): Promise<unknown> {
  const child = fork(hooks.fixture, [], {
    execArgv: ['--import', join(hooks.directory, 'src', 'register-typescript.mjs')],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const message = await nextMessage<{ ran: string }>(child);
  expect(await exited(child)).toEqual({ code: 0, signal: null });
  return message;
}

const FIXTURE_RAN = { ran: 'fixture', answer: 42 };

function plant(directory: string, file: string, text: string, mode = 0o600) {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, file), text, { mode });
  chmodSync(join(directory, file), mode);
}

describe('@toolseal/audit/child-process: the transpile cache', () => {
  it('keeps its entries in a private directory and runs them (mode 0o700, entries 0o600 written whole)', async () => {
    const hooks = hooksPackage();
    expect(await run(hooks)).toEqual(FIXTURE_RAN);
    expect(lstatSync(hooks.cache).mode & 0o777).toBe(0o700);
    expect(readdirSync(hooks.cache)).toEqual([`${hooks.name}.js`]); // no partial file left behind
    const entry = join(hooks.cache, `${hooks.name}.js`);
    expect(lstatSync(entry).mode & 0o777).toBe(0o600);
    expect(readFileSync(entry, 'utf8')).toMatch(new RegExp(`const answer = 42;[^]*\\n// ${CACHE_FORMAT} ${hooks.name}\\n$`));
    // The next child reads the entry instead of transpiling: what the entry says is what runs.
    writeFileSync(entry, hooks.entryText(PLANTED));
    expect(await run(hooks)).toEqual({ ran: 'planted' });
  });

  it('the review: an entry planted in the shared os.tmpdir() cache is never read', async () => {
    const hooks = hooksPackage();
    const shared = join(root, `shared-tmp-${packages}`);
    // Another user's world-writable directory, where earlier versions of the hooks looked.
    plant(join(shared, 'toolseal-typescript-hooks-cache-v1'), `${hooks.sharedName}.js`, PLANTED, 0o666);
    chmodSync(join(shared, 'toolseal-typescript-hooks-cache-v1'), 0o777);
    if (isRoot) chownSync(join(shared, 'toolseal-typescript-hooks-cache-v1', `${hooks.sharedName}.js`), NOBODY, NOBODY);
    expect(await run(hooks, { TMPDIR: shared, TMP: shared, TEMP: shared })).toEqual(FIXTURE_RAN);
    expect(readdirSync(join(shared, 'toolseal-typescript-hooks-cache-v1'))).toEqual([`${hooks.sharedName}.js`]);
  });

  for (const mode of [0o777, 0o770, 0o702]) {
    it(`neither reads nor writes a cache directory the group or the world may write (mode ${mode.toString(8)})`, async () => {
      const hooks = hooksPackage();
      plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED));
      chmodSync(hooks.cache, mode);
      expect(await run(hooks)).toEqual(FIXTURE_RAN);
      expect(readdirSync(hooks.cache)).toEqual([`${hooks.name}.js`]);
      expect(readFileSync(join(hooks.cache, `${hooks.name}.js`), 'utf8')).toBe(hooks.entryText(PLANTED));
    });
  }

  it.skipIf(!isRoot)('neither reads nor writes a cache directory owned by another user', async () => {
    const hooks = hooksPackage();
    plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED));
    chownSync(join(hooks.cache, `${hooks.name}.js`), NOBODY, NOBODY);
    chownSync(hooks.cache, NOBODY, NOBODY);
    expect(await run(hooks)).toEqual(FIXTURE_RAN);
    expect(readdirSync(hooks.cache)).toEqual([`${hooks.name}.js`]);
  });

  it('does not follow a symlink put in place of the cache directory', async () => {
    const hooks = hooksPackage();
    const elsewhere = join(root, `elsewhere-${packages}`);
    plant(elsewhere, `${hooks.name}.js`, hooks.entryText(PLANTED));
    chmodSync(elsewhere, 0o700);
    mkdirSync(dirname(hooks.cache), { recursive: true });
    symlinkSync(elsewhere, hooks.cache, 'dir');
    expect(await run(hooks)).toEqual(FIXTURE_RAN);
    expect(readdirSync(elsewhere)).toEqual([`${hooks.name}.js`]);
  });

  it('does not run an entry others may write, a symlinked entry, or one renamed from another name, and replaces it', async () => {
    const cases: [string, (hooks: ReturnType<typeof hooksPackage>) => void][] = [
      ['world-writable entry', (hooks) => plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED), 0o666)],
      ['group-writable entry', (hooks) => plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED), 0o620)],
      [
        'symlinked entry',
        (hooks) => {
          plant(join(root, `target-${packages}`), 'entry.js', hooks.entryText(PLANTED));
          mkdirSync(hooks.cache, { recursive: true, mode: 0o700 });
          symlinkSync(join(root, `target-${packages}`, 'entry.js'), join(hooks.cache, `${hooks.name}.js`));
        },
      ],
      // The user's own entry for another file, under this file's name.
      ['entry renamed from another name', (hooks) => plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED, 'f'.repeat(64)))],
    ];
    if (isRoot) {
      cases.push([
        "another user's entry",
        (hooks) => {
          plant(hooks.cache, `${hooks.name}.js`, hooks.entryText(PLANTED));
          chownSync(join(hooks.cache, `${hooks.name}.js`), NOBODY, NOBODY);
        },
      ]);
    }
    for (const [what, arrange] of cases) {
      const hooks = hooksPackage();
      arrange(hooks);
      chmodSync(hooks.cache, 0o700);
      expect(await run(hooks), what).toEqual(FIXTURE_RAN);
      // Replaced by the fixture's own entry (the rename replaces the name, not a symlink's target).
      const entry = join(hooks.cache, `${hooks.name}.js`);
      expect(lstatSync(entry).isFile(), what).toBe(true);
      expect(readFileSync(entry, 'utf8'), what).toMatch(/const answer = 42;/);
    }
  });

  it('without a node_modules above it, uses the per-user cache directory ($XDG_CACHE_HOME)', async () => {
    const hooks = hooksPackage({ nodeModules: false });
    // The package lives under the system temp directory; a node_modules above it would be the
    // cache the hooks choose first, and this test would not test the fallback: fail, never skip.
    for (let directory = hooks.directory; dirname(directory) !== directory; directory = dirname(directory)) {
      expect(existsSync(join(directory, 'node_modules')), `${directory} has a node_modules`).toBe(false);
    }
    const userCache = join(root, `xdg-${packages}`);
    // A trusted entry is read without the compiler, which this package cannot import.
    plant(join(userCache, 'toolseal-typescript-hooks'), `${hooks.name}.js`, hooks.entryText(PLANTED));
    chmodSync(join(userCache, 'toolseal-typescript-hooks'), 0o700);
    expect(await run(hooks, { XDG_CACHE_HOME: userCache })).toEqual({ ran: 'planted' });
  });
});
