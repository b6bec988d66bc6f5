import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Sha256Hex } from '@toolseal/contracts';

export async function load(path: string): Promise<Sha256Hex> {
  const { makeError } = await import('@toolseal/errors');
  return makeError(readFileSync(path, 'utf8') + String(new Ajv2020()));
}
