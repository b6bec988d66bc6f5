import { fakeSealedResult, fakeToolCall } from '@toolseal/adapter-core/testing';
import { canonicalize } from '@toolseal/digests';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { findProtectedValues } from './find-protected-values.js';

// Counts the canonicalizations the scan does, to show its cost does not grow with nesting depth.
vi.mock('@toolseal/digests', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@toolseal/digests')>();
  return { ...actual, canonicalize: vi.fn(actual.canonicalize) };
});

// Review 7 (cost): the key-name scan canonicalized every object it visited, to tell whether it was
// a model_result, so a body nested 4000 objects deep (140 KB) took about a second.
describe('findProtectedValues cost', () => {
  const sealed = fakeSealedResult(fakeToolCall());

  beforeEach(() => {
    vi.mocked(canonicalize).mockClear();
  });

  it('canonicalizes only the objects with the member names of a model_result, however deep the body', () => {
    let body: unknown = { leaf: 1 };
    for (let level = 0; level < 2000; level += 1) body = { a: body, pad: 'x'.repeat(20) };
    expect(findProtectedValues(JSON.stringify(body), [sealed])).toEqual([]);
    // Once for the sealed model_result itself; none of the 2001 objects of the body is one.
    expect(vi.mocked(canonicalize).mock.calls.length).toBe(1);
  });

  it('still canonicalizes an object that has them, and skips it when it is the model_result', () => {
    const bound = fakeSealedResult(fakeToolCall(), { data: { binding: 'hardcover' } });
    const body = JSON.stringify({ output: { wrapped: bound.model_result } });
    expect(findProtectedValues(body, [bound])).toEqual([]);
    // Once for the sealed model_result, once for its copy in the body.
    expect(vi.mocked(canonicalize).mock.calls.length).toBe(2);
  });
});
