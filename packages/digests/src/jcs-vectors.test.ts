import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonicalize.js';

// RFC 8785 vectors from cyberphone/json-canonicalization (see fixtures/jcs/README.md).
const root = new URL('../../../fixtures/jcs/', import.meta.url);
const names = readdirSync(new URL('input/', root)).filter((name) => name.endsWith('.json')).sort();

describe('RFC 8785 vectors (cyberphone/json-canonicalization)', () => {
  it('has every vector of the reference set', () => {
    expect(names).toEqual(['arrays.json', 'french.json', 'structures.json', 'unicode.json', 'values.json', 'weird.json']);
  });

  it.each(names)('%s canonicalizes to the expected bytes', (name) => {
    const input: unknown = JSON.parse(readFileSync(new URL(`input/${name}`, root), 'utf8'));
    const expected = readFileSync(new URL(`output/${name}`, root));
    const actual = Buffer.from(canonicalize(input), 'utf8');
    expect(actual.equals(expected), `${name}: ${actual.toString('utf8')}`).toBe(true);
  });
});
