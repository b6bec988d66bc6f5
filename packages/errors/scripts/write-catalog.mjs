// Writes schemas/error-catalog.json (top level) from the built catalog, and copies it into dist/
// so the package can export it. `pnpm schemas` runs it with --write; the build runs it with --copy.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const topLevel = join(packageDir, '..', '..', 'schemas', 'error-catalog.json');
const shipped = join(packageDir, 'dist', 'error-catalog.json');

if (process.argv.includes('--write')) {
  const { errorCatalogDocument } = await import('../dist/index.js');
  mkdirSync(dirname(topLevel), { recursive: true });
  writeFileSync(topLevel, JSON.stringify(errorCatalogDocument(), null, 2) + '\n');
  console.log(`wrote ${topLevel}`);
}
mkdirSync(dirname(shipped), { recursive: true });
writeFileSync(shipped, readFileSync(topLevel));
