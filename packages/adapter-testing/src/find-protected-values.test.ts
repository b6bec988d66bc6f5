import { fakeSealedResult, fakeToolCall } from '@toolseal/adapter-core/testing';
import type { SealedResult } from '@toolseal/contracts';
import { canonicalize } from '@toolseal/digests';
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

  // Review 3 (F3): every `"binding"` anywhere in the body counted as a leak, so a correct adapter
  // failed when the host's text or the tool's data used the word. Key names now count only as
  // member names (protected structure); the leaks they exist to catch are still reported.
  describe('protected key names', () => {
    const bound = fakeSealedResult(fakeToolCall(), { data: { binding: 'hardcover', downstream: 'warehouse-7', isbn: '9780000000002' } });
    const keys = (body: string, results: readonly SealedResult[] = [bound]) =>
      findProtectedValues(body, results).filter((hit) => hit.path === '#key').map((hit) => hit.value);

    it("are not reported in the host's own text, quoted or not", () => {
      const body = JSON.stringify({ messages: [{ role: 'user', content: 'Tell the customer which "binding" the book has, and its "redactions".' }] });
      expect(keys(body)).toEqual([]);
      // A text that merely begins like JSON is still text.
      expect(keys(JSON.stringify({ text: '{"binding" is the word the customer used' }))).toEqual([]);
    });

    it("are not reported in the tool's data: the sealed model_result, as text (escaped once or twice) or as an object", () => {
      const text = canonicalize(bound.model_result);
      expect(text).toContain('"binding":"hardcover"');
      expect(keys(JSON.stringify({ tool_result: { content: text } }))).toEqual([]);
      expect(keys(JSON.stringify({ body: JSON.stringify({ output: text }) }))).toEqual([]);
      expect(keys(JSON.stringify({ output: bound.model_result }))).toEqual([]);
      // Pretty-printed, it is still that model_result.
      expect(keys(JSON.stringify({ output: JSON.stringify(bound.model_result, null, 2) }))).toEqual([]);
    });

    it('are reported for protected_audit forwarded whole, as an object or as JSON text beside the result', () => {
      const names = ['protected_audit', 'principal_ref', 'provider_context', 'tool_contract', 'downstream', 'operation_id', 'idempotency_key', 'status_ref', 'binding', 'request_sha256', 'result_sha256', 'call_binding_sha256', 'redactions'];
      expect(keys(JSON.stringify({ metadata: bound }))).toEqual(names);
      const leaked = canonicalize({ ...bound.model_result, audit: bound.protected_audit });
      expect(keys(JSON.stringify({ tool_result: { content: leaked } }))).toEqual(names.filter((name) => name !== 'protected_audit'));
    });

    it('are reported for a member whose value gives nothing to find by value, as an object, as text or \\u-escaped', () => {
      expect(keys(JSON.stringify({ extra: { redactions: [], idempotency_key: null } }))).toEqual(['idempotency_key', 'redactions']);
      expect(keys(JSON.stringify({ note: JSON.stringify({ status_ref: null }) }))).toEqual(['status_ref']);
      expect(keys('{"extra":{"\\u0062inding":{}}}')).toEqual(['binding']);
    });

    it("are reported when added to the tool's data: the model_result is then another value", () => {
      const plain = fakeSealedResult(fakeToolCall());
      const grown = { ...plain.model_result, redactions: [] };
      expect(keys(JSON.stringify({ content: canonicalize(grown) }), [plain])).toEqual(['redactions']);
      // Grown, it is searched whole: the names its data uses count then too (the text is not the sealed one anyway).
      expect(keys(JSON.stringify({ content: canonicalize({ ...bound.model_result, extra: true }) }))).toEqual(['downstream', 'binding']);
      // Another package's model_result is no licence either.
      expect(keys(JSON.stringify({ content: canonicalize(bound.model_result) }), [sealedWith('rcpt-tenant-cedar-42', 'op-2026-secret')])).toEqual([
        'downstream',
        'binding',
      ]);
    });

    // Review 7: the narrowed scan missed names in JSON text that did not fill its string, behind
    // a shadowed duplicate member, in a member name, or stringified twice; and it canonicalized
    // every object it visited, so its cost grew with the square of the nesting depth.
    describe('after review 7', () => {
      const plain = fakeSealedResult(fakeToolCall());
      // Members whose values give nothing to find by value: only the key-name scan sees them.
      const leak = JSON.stringify({ provider_context: plain.protected_audit.provider_context, redactions: [], idempotency_key: null });
      const leaked = ['provider_context', 'idempotency_key', 'redactions'];
      const plainKeys = (body: string) => keys(body, [plain]);

      it('F1: are reported in JSON-like text that does not parse, as a name in quotes followed by a colon', () => {
        for (const note of [
          `Audit record: ${leak}`,
          `\`\`\`json\n${leak}\n\`\`\``,
          `${leak}\n#end`,
          `${leak}\n${leak}`,
          `${leak.slice(0, -1)},}`,
          `Audit record: ${JSON.stringify({ note: leak })}`,
          `Audit record: ${JSON.stringify(JSON.stringify({ note: leak }))}`,
        ]) {
          expect(plainKeys(JSON.stringify({ metadata: { note } })), note).toEqual(leaked);
        }
      });

      it('F1: are not reported in such text for a word with no colon after it, or a copy of the tool data in it', () => {
        expect(keys(JSON.stringify({ text: 'Which "binding" : the one the customer named, or its "redactions"?' }))).toEqual(['binding']);
        expect(keys(JSON.stringify({ text: 'Not "binding", nor "redactions" (in quotes).' }))).toEqual([]);
        const text = canonicalize(bound.model_result);
        expect(keys(JSON.stringify({ content: `Tool result: ${text}` }))).toEqual([]);
        expect(keys(JSON.stringify({ content: `Tool result: ${JSON.stringify({ output: text })}\n` }))).toEqual([]);
        // Anything beside the copy is still searched.
        expect(keys(JSON.stringify({ content: `Tool result: ${text} "redactions": []` }))).toEqual(['redactions']);
      });

      it('F1: JSON text after a byte order mark is parsed, so tool data there passes and an escaped name is found', () => {
        expect(keys(JSON.stringify({ content: `\ufeff${canonicalize(bound.model_result)}` }))).toEqual([]);
        expect(keys(JSON.stringify({ content: `\ufeff${JSON.stringify(bound.model_result, null, 2)}` }))).toEqual([]);
        expect(keys(JSON.stringify({ note: '\ufeff{"\\u0062inding":{}}' }))).toEqual(['binding']);
      });

      it('F2: are reported in a member that a later one of the same name shadows, in the body or in JSON text', () => {
        const text = canonicalize(plain.model_result);
        const shadowed = text.replace('{', `{"error":${leak},`);
        expect(JSON.parse(shadowed)).toEqual(JSON.parse(text));
        expect(plainKeys(JSON.stringify({ content: shadowed }))).toEqual(leaked);
        // The same copy of the tool data as an object of the body, and a plain member of the body.
        expect(plainKeys(`{"content":${shadowed}}`)).toEqual(leaked);
        expect(plainKeys(`{"metadata":${leak},"metadata":null}`)).toEqual(leaked);
        // Deeper: inside the data of the copy, which is then no copy and is searched whole, its data's names too.
        const deep = canonicalize(bound.model_result).replace('"data":{', `"data":{"isbn":${leak},`);
        expect(keys(JSON.stringify({ content: deep }))).toEqual(['provider_context', 'downstream', 'idempotency_key', 'binding', 'redactions']);
      });

      it('F3: are reported in a member name that is JSON text, JSON-like text or a name in quotes', () => {
        expect(plainKeys(JSON.stringify({ metadata: { [leak]: '1' } }))).toEqual(leaked);
        expect(plainKeys(JSON.stringify({ metadata: { [`audit ${leak}`]: '1' } }))).toEqual(leaked);
        expect(plainKeys(JSON.stringify({ metadata: { '"redactions"': [] } }))).toEqual(['redactions']);
        // A member name that is the tool's data is skipped like a string.
        expect(keys(JSON.stringify({ [canonicalize(bound.model_result)]: 1 }))).toEqual([]);
      });

      it('F4: JSON text stringified twice or more is parsed', () => {
        const escapedName = '{"\\u0062inding":{}}';
        expect(plainKeys(JSON.stringify({ note: JSON.stringify(escapedName) }))).toEqual(['binding']);
        expect(plainKeys(JSON.stringify({ note: JSON.stringify(JSON.stringify(escapedName)) }))).toEqual(['binding']);
        // So the tool's data stringified twice is that data, and passes.
        expect(keys(JSON.stringify({ output: JSON.stringify(canonicalize(bound.model_result)) }))).toEqual([]);
        expect(keys(JSON.stringify({ output: JSON.stringify(JSON.stringify(bound.model_result, null, 2)) }))).toEqual([]);
      });

      it('are found at the bottom of a body nested deeper than the call stack allows', () => {
        const depth = 100_000;
        const body = `${'{"a":['.repeat(depth)}{"redactions":[]}${']}'.repeat(depth)}`;
        expect(plainKeys(body)).toEqual(['redactions']);
      });
    });

    it('are searched in quotes anywhere in a body that is not JSON text', () => {
      expect(keys('binding: "binding"')).toEqual(['binding']);
      expect(keys('note \\"redactions\\"')).toEqual(['redactions']);
    });
  });
});
