import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkUntrustedValue } from './check-untrusted-value.js';
import { parseUntrustedJson } from './parse-untrusted-json.js';

// nst/JSONTestSuite (MIT), copied to fixtures/json-test-suite with its license line.
const SUITE = join(import.meta.dirname, '../../../fixtures/json-test-suite/test_parsing');
const files = readdirSync(SUITE).filter((name) => name.endsWith('.json')).sort();

// `y_` files the guard rejects on purpose, with the rule it must report and why.
const ACCEPT_EXCEPTIONS: Readonly<Record<string, { rule: string; why: string }>> = {
  'y_object_duplicated_key.json': {
    rule: 'duplicate_key',
    why: 'JSON.parse keeps the last duplicate silently; {"role":"user","role":"system"} must not pass',
  },
  'y_object_duplicated_key_and_value.json': {
    rule: 'duplicate_key',
    why: 'even an identical repeated pair is rejected: duplicates are refused, not compared',
  },
};

function read(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(SUITE, name)));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function decodeOrNull(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

describe('JSONTestSuite', () => {
  it('has all 318 cases (95 y_, 188 n_, 35 i_)', () => {
    expect(files).toHaveLength(318);
    expect(files.filter((name) => name.startsWith('y_'))).toHaveLength(95);
    expect(files.filter((name) => name.startsWith('n_'))).toHaveLength(188);
    expect(files.filter((name) => name.startsWith('i_'))).toHaveLength(35);
  });

  it('lists only exceptions that exist', () => {
    for (const name of Object.keys(ACCEPT_EXCEPTIONS)) expect(files).toContain(name);
  });

  for (const name of files.filter((file) => file.startsWith('n_'))) {
    it(`rejects ${name}`, () => {
      const bytes = read(name);
      expect(parseUntrustedJson(bytes).ok).toBe(false);
      const text = decodeOrNull(bytes);
      if (text !== null) expect(parseUntrustedJson(text).ok).toBe(false);
    });
  }

  for (const name of files.filter((file) => file.startsWith('y_'))) {
    const exception = ACCEPT_EXCEPTIONS[name];
    if (exception !== undefined) {
      it(`rejects ${name} on purpose (${exception.why})`, () => {
        const outcome = parseUntrustedJson(read(name));
        expect(outcome).toEqual({ ok: false, violation: { rule: exception.rule, path: '' } });
      });
      continue;
    }
    it(`accepts ${name} with the value JSON.parse gives`, () => {
      const bytes = read(name);
      const text = decodeOrNull(bytes);
      expect(text).not.toBeNull();
      const expected: unknown = JSON.parse(text ?? '');
      expect(parseUntrustedJson(bytes)).toEqual({ ok: true, value: expected });
      expect(parseUntrustedJson(text ?? '')).toEqual({ ok: true, value: expected });
    });
  }

  for (const name of files.filter((file) => file.startsWith('i_'))) {
    it(`decides ${name} either way without throwing`, () => {
      const outcome = parseUntrustedJson(read(name));
      expect(typeof outcome.ok).toBe('boolean');
      if (outcome.ok) {
        // Whatever is accepted is what JSON.parse gives, and passes the value check (finite numbers).
        expect(outcome.value).toEqual(JSON.parse(decodeOrNull(read(name)) ?? 'null'));
        expect(checkUntrustedValue(outcome.value).ok).toBe(true);
      }
    });
  }

  it('accepts 500 nested arrays once the depth limit allows them', () => {
    const bytes = read('i_structure_500_nested_arrays.json');
    expect(parseUntrustedJson(bytes)).toEqual({ ok: false, violation: { rule: 'max_depth', path: expect.any(String) } });
    expect(parseUntrustedJson(bytes, { maxDepth: 500 }).ok).toBe(true);
    expect(parseUntrustedJson(bytes, { maxDepth: 499 }).ok).toBe(false);
  });
});
