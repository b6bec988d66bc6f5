// @ts-check
// `pnpm schemas`: regenerates the committed JSON Schemas in the top-level `schemas/` directory.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SCHEMAS_DIR, generateSchemas, readCommittedSchema } from './schema-generator.mjs';

mkdirSync(SCHEMAS_DIR, { recursive: true });
for (const { name, text } of generateSchemas()) {
  const file = join(SCHEMAS_DIR, `${name}.json`);
  const state = readCommittedSchema(name) === text ? 'unchanged' : 'written';
  if (state === 'written') writeFileSync(file, text);
  console.log(`${state.padEnd(9)} ${relative(process.cwd(), file)}`);
}
