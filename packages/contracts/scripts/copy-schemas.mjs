// @ts-check
// Part of `build`: copies this package's generated schemas from the top-level `schemas/` into
// `dist/schemas/`, so `@toolseal/contracts/schemas/<name>.json` resolves for consumers. Only the
// files named in SCHEMA_NAMES are copied; other packages' schemas in `schemas/` are theirs to ship.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMAS_DIR, readSchemaNames } from './schema-generator.mjs';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const targetDir = join(packageDir, 'dist', 'schemas');

rmSync(targetDir, { recursive: true, force: true });
mkdirSync(targetDir, { recursive: true });
for (const name of readSchemaNames()) {
  const source = join(SCHEMAS_DIR, `${name}.json`);
  if (!existsSync(source)) throw new Error(`missing ${source}: run \`pnpm schemas\``);
  copyFileSync(source, join(targetDir, `${name}.json`));
}
console.log(`copied ${readdirSync(targetDir).length} schemas to dist/schemas`);
