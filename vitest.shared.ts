// Shared vitest settings. Workspace imports resolve to TypeScript sources, so a package's tests
// run against its dependencies' current code without a build step.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ViteUserConfig } from 'vitest/config';

const root = import.meta.dirname;

interface ExportTarget {
  import?: string;
}

function workspaceAliases(): { find: RegExp; replacement: string }[] {
  const aliases: { find: string; replacement: string }[] = [];
  const packagesDir = join(root, 'packages');
  for (const dir of readdirSync(packagesDir)) {
    const manifestPath = join(packagesDir, dir, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      name: string;
      exports?: Record<string, ExportTarget | string>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const file = typeof target === 'string' ? target : target.import;
      if (file === undefined || !file.endsWith('.js') || subpath.includes('*')) continue;
      const source = file.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      aliases.push({ find: specifier, replacement: resolve(packagesDir, dir, source) });
    }
  }
  // Longest specifier first, so `@toolseal/digests/node` wins over `@toolseal/digests`.
  aliases.sort((a, b) => b.find.length - a.find.length);
  return aliases.map(({ find, replacement }) => ({
    find: new RegExp(`^${find.replace(/[/.]/g, '\\$&')}$`),
    replacement,
  }));
}

export function sharedTestConfig(packageDir: string): ViteUserConfig {
  return {
    root: packageDir,
    resolve: { alias: workspaceAliases() },
    test: {
      include: ['src/**/*.test.ts'],
      typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      // Hang guards, not speed checks: property tests compiling hundreds of schemas measured 32 s
      // on a slow two-core machine while turbo ran other packages' tests beside them.
      testTimeout: 120_000,
      hookTimeout: 120_000,
      pool: 'forks',
    },
  };
}
