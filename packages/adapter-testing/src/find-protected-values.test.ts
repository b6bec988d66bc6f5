import { fakeSealedResult, fakeToolCall } from '@toolseal/adapter-core/testing';
import type { SealedResult } from '@toolseal/contracts';
import { describe, expect, it } from 'vitest';
import { findProtectedValues } from './find-protected-values.js';

/** A package whose downstream receipt and operation id are `receipt` and `operation`. */
function sealedWith(receipt: string, operation: string): SealedResult {
  const sealed = fakeSealedResult(fakeToolCall());
  return {
    ...sealed,
    protected_audit: { ...sealed.protected_audit, downstream: { ...sealed.protected_audit.downstream, receipt, operation_id: operation } },
  };
}

describe('findProtectedValues', () => {
  const sealed = [sealedWith('rcpt"tenant-cedar-42', 'op\\2026-secret')];
  const paths = (body: string) => findProtectedValues(body, sealed).map((hit) => hit.path).sort();

  it('finds values as they appear raw', () => {
    expect(paths('rcpt"tenant-cedar-42 and op\\2026-secret')).toEqual(['/downstream/operation_id', '/downstream/receipt']);
  });

  it('finds values with a quote or a backslash JSON-escaped inside a JSON body', () => {
    const body = JSON.stringify({ input: [{ output: 'rcpt"tenant-cedar-42 and op\\2026-secret' }] });
    expect(paths(body)).toEqual(['/downstream/operation_id', '/downstream/receipt']);
  });

  it('finds values escaped twice: inside JSON text carried as a string of the body', () => {
    const body = JSON.stringify({ output: JSON.stringify({ note: 'rcpt"tenant-cedar-42 and op\\2026-secret' }) });
    expect(paths(body)).toEqual(['/downstream/operation_id', '/downstream/receipt']);
  });

  it('finds values with control characters and non-ASCII, escaped by JSON or as \\uXXXX', () => {
    const controls = [sealedWith('receipt\n\u0001-tenant', 'opération-secrète')];
    const body = JSON.stringify({ text: 'receipt\n\u0001-tenant' });
    expect(findProtectedValues(body, controls).map((hit) => hit.path)).toEqual(['/downstream/receipt']);
    const asciiOnly = '{"text":"op\\u00e9ration-secr\\u00e8te"}';
    expect(findProtectedValues(asciiOnly, controls).map((hit) => hit.path)).toEqual(['/downstream/operation_id']);
  });

  it('finds nothing in a body that holds none of them', () => {
    expect(findProtectedValues(JSON.stringify({ output: 'rcpt tenant-cedar-42' }), sealed)).toEqual([]);
  });
});
