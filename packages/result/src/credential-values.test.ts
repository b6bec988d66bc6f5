import type { SealedResult } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { copy, loadKbCases, loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { rebindDigests } from './__fixtures__/rebind-digests.js';
import { findCredentialValues } from './find-credential-values.js';
import { sealResult, type SealResultInput } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult } from './verify-result.js';

// A tool output is untrusted data: a credential that reaches it under an ordinary key (a snippet
// quoting a key, a connection string in a note) must not reach the model (spec 000: "reject
// credentials ... recursively"). Published example credentials, none of them live.
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----';
const CONNECTION = 'postgres://app:s3cr3t@db.internal:5432/kb';

const specs = loadToolSpecs();
const registry = createToolRegistry([specs.getOrder, specs.createRefundDraft, specs.kbSearch]);
const digester = createDigester();
const base = loadKbCases().find((entry) => entry.name === 'success-with-hits');
if (base === undefined) throw new Error('missing kb-search/success-with-hits.json');

interface Hit {
  title: string;
  snippet: string;
  source: string;
  revision: string;
}

function sealInput(mutate: (hits: Hit[]) => void): SealResultInput {
  const input = copy(base?.seal_input) as unknown as SealResultInput & { subject: { output: { data: { hits: Hit[] } } } };
  mutate(input.subject.output.data.hits);
  return { ...input, registry, digester, now: () => '2026-07-19T00:00:01Z' };
}

describe('sealResult refuses a credential in a string of data, whatever key holds it', () => {
  const cases: [string, (hits: Hit[]) => void, string][] = [
    ['an AWS key in a snippet', (hits) => void ((hits[0] as Hit).snippet = `Use the key ${AWS_KEY} to sign requests.`), '/data/hits/0/snippet'],
    ['a JWT in a snippet', (hits) => void ((hits[1] as Hit).snippet = `Session ${JWT}`), '/data/hits/1/snippet'],
    ['a private key in a snippet', (hits) => void ((hits[1] as Hit).snippet = PRIVATE_KEY), '/data/hits/1/snippet'],
    ['a connection string in a snippet', (hits) => void ((hits[0] as Hit).snippet = `Connect with ${CONNECTION}.`), '/data/hits/0/snippet'],
    ['a session cookie in a quoted request', (hits) => void ((hits[1] as Hit).snippet = 'Replay with Cookie: sessionid=q9Zr7Kp2Lm4Nx8Vb3Hd to reproduce.'), '/data/hits/1/snippet'],
  ];
  it.each(cases)('%s', (_name, mutate, path) => {
    const output = sealResult(sealInput(mutate));
    expect(output.sealed.model_result.error?.code).toBe('OUTPUT_CONTRACT_VIOLATION');
    expect(output.sealed.model_result.data).toBeNull();
    expect(output.violations).toEqual([{ rule: 'credential_value', path }]);
    expect(output.canonical_model_result).not.toContain('AKIA');
    expect(output.canonical_model_result).not.toContain('eyJ');
  });

  it('reads TAG characters as the ASCII they mirror: a JWT spelled in that invisible alphabet is refused (review)', () => {
    const tags = [...JWT].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');
    // Right after a word: the run reads as a word of its own.
    const output = sealResult(sealInput((hits) => void ((hits[0] as Hit).snippet = `Nothing to see here${tags}`)));
    expect(output.violations).toEqual([{ rule: 'credential_value', path: '/data/hits/0/snippet' }]);
  });

  it('reads a token whose visible prefix is ASCII and whose body is TAG characters as one token (review: ghp_ + TAG body passed)', () => {
    const tags = (text: string) => [...text].map((character) => String.fromCodePoint(0xe0000 + character.charCodeAt(0))).join('');
    const body = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    for (const snippet of [`Use ghp_${tags(body)} here`, `Session eyJ${tags(JWT.slice(3))}`, `ghp_${body.slice(0, 10)}${tags(body.slice(10))}`]) {
      const output = sealResult(sealInput((hits) => void ((hits[0] as Hit).snippet = snippet)));
      expect(output.violations, snippet).toEqual([{ rule: 'credential_value', path: '/data/hits/0/snippet' }]);
    }
  });

  it('accepts the same output without the credential (the fixture as it is)', () => {
    const output = sealResult(sealInput(() => {}));
    expect(output.violations).toEqual([]);
    expect(output.sealed.model_result.status).toBe('succeeded');
  });

  it('accepts business text that only resembles one (Bearer bonds, a desk lamp SKU, a plain link)', () => {
    const output = sealResult(
      sealInput((hits) => {
        (hits[0] as Hit).snippet = 'Bearer bonds and the desk-lamp sku-12345 are not refundable; see https://kb.example.com/a.';
      }),
    );
    expect(output.violations).toEqual([]);
  });
});

/** A digest-consistent rewrite: what an attacker who can rewrite a stored plain-mode package does. */
function withSnippet(sealed: SealedResult, snippet: string): SealedResult {
  const forged = copy(sealed);
  const data = forged.model_result.data as unknown as { hits: Hit[] };
  (data.hits[0] as Hit).snippet = snippet;
  return rebindDigests(forged, digester);
}

describe('verifyResult runs the same check', () => {
  it('fails output_contract, and nothing else, for a package rewritten to carry a credential', () => {
    const input = sealInput(() => {});
    const output = sealResult(input);
    expect(verifyResult(output.sealed, input)).toEqual({ ok: true });
    const forged = withSnippet(output.sealed, `Token: ${JWT}`);
    expect(verifyResult(forged, input)).toEqual({ ok: false, reasons: ['output_contract'] });
    // The rewrite alone, without a credential, verifies: the failure is the credential's.
    expect(verifyResult(withSnippet(output.sealed, 'Another snippet.'), input)).toEqual({ ok: true });
  });

  it('fails output_contract for a package rewritten to carry a downstream object as JSON text', () => {
    const input = sealInput(() => {});
    const output = sealResult(input);
    const forged = withSnippet(output.sealed, JSON.stringify({ user: 'ana', password: 'Winter2026!' }));
    expect(verifyResult(forged, input)).toEqual({ ok: false, reasons: ['output_contract'] });
    expect(verifyResult(withSnippet(output.sealed, '{"password":"<your password>"}'), input)).toEqual({ ok: true });
  });
});

describe('findCredentialValues', () => {
  it('reports a key holding a credential at its object', () => {
    expect(findCredentialValues({ notes: { [AWS_KEY]: 'x' } }, null)).toEqual([{ rule: 'credential_value', path: '/data/notes' }]);
  });

  it('keeps the pointer contract-safe: no segment the tool chose beyond plain names', () => {
    expect(findCredentialValues({ 'a b': [JWT] }, null)).toEqual([{ rule: 'credential_value', path: '/data' }]);
  });

  it('is ruled out by one pass over a text without any anchor, and walks every string without one', () => {
    const data = { note: `key ${AWS_KEY}` };
    expect(findCredentialValues(data, JSON.stringify({ unrelated: true }))).toEqual([]);
    expect(findCredentialValues(data, JSON.stringify(data))).toEqual([{ rule: 'credential_value', path: '/data/note' }]);
    expect(findCredentialValues(data, null)).toEqual([{ rule: 'credential_value', path: '/data/note' }]);
  });
});
