import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonicalize.js';
import { createDigester, DIGEST_DOMAINS, type Digester } from './digester.js';

interface Vector {
  name: string;
  function: string;
  input: unknown;
  canonical_text: string;
  sha256: string;
  hmac_sha256: string;
}
interface VectorFile {
  test_key_hex: string;
  domains: Record<string, string>;
  vectors: Vector[];
}

const file = JSON.parse(
  readFileSync(new URL('../../../fixtures/digests/vectors.json', import.meta.url), 'utf8'),
) as VectorFile;
const key = Buffer.from(file.test_key_hex, 'hex');
const plain = createDigester();
const keyed = createDigester({ key: new Uint8Array(key) });

/** What the digest function of `vector` hashes, built here from the input without the digester. */
function expectedText(vector: Vector): string {
  const input = vector.input as Record<string, unknown>;
  switch (vector.function) {
    case 'principalRef':
      return canonicalize({ domain: DIGEST_DOMAINS.principalRef, ...input });
    case 'requestDigest':
      return canonicalize({ domain: DIGEST_DOMAINS.request, ...input });
    case 'resultDigest':
      return canonicalize({ domain: DIGEST_DOMAINS.result, model_result: input });
    case 'resultDigestFromCanonical':
      return canonicalize({ domain: DIGEST_DOMAINS.result, model_result: JSON.parse(vector.input as string) });
    case 'callBindingDigest':
      return canonicalize({ domain: DIGEST_DOMAINS.callBinding, ...input });
    case 'digestText':
      return vector.input as string;
    case 'digestTagged':
      return canonicalize({ domain: input['domain'], ...(input['fields'] as Record<string, unknown>) });
    default:
      throw new Error(`unknown function ${vector.function}`);
  }
}

function run(digester: Digester, vector: Vector): string {
  const input = vector.input as never;
  switch (vector.function) {
    case 'principalRef':
      return digester.principalRef(input);
    case 'requestDigest':
      return digester.requestDigest(input);
    case 'resultDigest':
      return digester.resultDigest(input);
    case 'resultDigestFromCanonical':
      return digester.resultDigestFromCanonical(input);
    case 'callBindingDigest':
      return digester.callBindingDigest(input);
    case 'digestText':
      return digester.digestText(input);
    case 'digestTagged': {
      const { domain, fields } = vector.input as { domain: string; fields: Record<string, unknown> };
      return digester.digestTagged(domain, fields);
    }
    default:
      throw new Error(`unknown function ${vector.function}`);
  }
}

describe('fixtures/digests/vectors.json', () => {
  it('covers every digest function and publishes a 32-byte test key and the domain tags', () => {
    expect(new Set(file.vectors.map((vector) => vector.function))).toEqual(
      new Set([
        'principalRef',
        'requestDigest',
        'resultDigest',
        'resultDigestFromCanonical',
        'callBindingDigest',
        'digestText',
        'digestTagged',
      ]),
    );
    expect(key.length).toBe(32);
    expect(file.domains).toEqual(DIGEST_DOMAINS);
  });

  describe.each(file.vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    it('canonical_text is what the function hashes', () => {
      expect(expectedText(vector)).toBe(vector.canonical_text);
    });

    it('sha256 and hmac_sha256 are the hashes of canonical_text (checked with node:crypto)', () => {
      expect(createHash('sha256').update(vector.canonical_text, 'utf8').digest('hex')).toBe(vector.sha256);
      expect(createHmac('sha256', key).update(vector.canonical_text, 'utf8').digest('hex')).toBe(vector.hmac_sha256);
    });

    it('the digester reproduces both digests', () => {
      expect(run(plain, vector)).toBe(vector.sha256);
      expect(run(keyed, vector)).toBe(vector.hmac_sha256);
    });
  });
});
