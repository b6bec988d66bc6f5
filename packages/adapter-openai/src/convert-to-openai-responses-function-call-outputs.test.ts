import {
  assertParsed,
  createLyingLengthArray,
  createObjectLength,
  createRecordingVerifier,
  fakeSealedResult,
  findProtectedValues,
  NON_INTEGER_LENGTHS,
} from '@toolseal/adapter-testing';
import { canonicalize } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { openaiParallel as response, openaiSingle } from './__fixtures__/openai-responses-fixtures.js';
import { convertToOpenAIResponsesFunctionCallOutputs } from './convert-to-openai-responses-function-call-outputs.js';
import { MAX_FUNCTION_CALL_OUTPUT_LENGTH, MAX_RESPONSE_OUTPUT_ITEMS } from './openai-responses-api.js';
import { parseOpenAIResponsesToolCalls } from './parse-openai-responses-tool-calls.js';

const parsedCalls = () => assertParsed(parseOpenAIResponsesToolCalls(response));

describe('convertToOpenAIResponsesFunctionCallOutputs', () => {
  it('continues by previous_response_id with one function_call_output per call, in call order', () => {
    const calls = parsedCalls();
    const results = calls.map((call, index) => fakeSealedResult(call, index === 1 ? { status: 'failed' } : {}));
    const outcome = convertToOpenAIResponsesFunctionCallOutputs({
      calls,
      results: [results[2]!, results[0]!, results[1]!],
      verify: createRecordingVerifier().verify,
      options: { continuation: 'previous_response_id' },
    });
    expect(outcome).toEqual({
      ok: true,
      payload: {
        previous_response_id: 'resp_1b2c3d4e5f60718293a4b5c6d7e8f90a',
        input: calls.map((call, index) => ({
          type: 'function_call_output',
          call_id: call.call_id,
          output: canonicalize(results[index]!.model_result),
        })),
      },
    });
  });

  it('writes model_result as canonical JSON and nothing from protected_audit', () => {
    const calls = parsedCalls();
    const results = calls.map((call) => fakeSealedResult(call, { data: { z: 1, a: 'ORDER-C7' } }));
    const outcome = convertToOpenAIResponsesFunctionCallOutputs({
      calls,
      results,
      verify: createRecordingVerifier().verify,
      options: { continuation: 'previous_response_id' },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const first = outcome.payload.input[0];
    expect(first?.type === 'function_call_output' && first.output).toBe(
      '{"data":{"a":"ORDER-C7","z":1},"error":null,"execution":{"complete":true,"delivery":"fresh","outcome":"committed","truncated":false},' +
        '"provenance":{"observed_at":"2026-07-19T00:00:00Z","producer_revision":"fake-producer-r1","resource_revision":"fake-resource-r1",' +
        '"source_label":"fake-source","trust":"untrusted_data"},"schema_version":"tool-model-result-v2","status":"succeeded"}',
    );
    expect(findProtectedValues(JSON.stringify(outcome.payload), results)).toEqual([]);
  });

  it('continues statelessly by echoing the function_call items, then the outputs', () => {
    const calls = parsedCalls();
    const results = calls.map((call) => fakeSealedResult(call));
    const outcome = convertToOpenAIResponsesFunctionCallOutputs({
      calls,
      results,
      verify: createRecordingVerifier().verify,
      options: { continuation: 'stateless', responseOutput: response.output },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect('previous_response_id' in outcome.payload).toBe(false);
    expect(outcome.payload.input.map((item) => [item.type, item.call_id])).toEqual([
      ['function_call', 'call_A1s2D3f4G5h6J7k8L9z0'],
      ['function_call', 'call_Z9x8C7v6B5n4M3q2W1e0'],
      ['function_call', 'call_R4t5Y6u7I8o9P0a1S2d3'],
      ['function_call_output', 'call_A1s2D3f4G5h6J7k8L9z0'],
      ['function_call_output', 'call_Z9x8C7v6B5n4M3q2W1e0'],
      ['function_call_output', 'call_R4t5Y6u7I8o9P0a1S2d3'],
    ]);
    expect(outcome.payload.input[2]).toEqual({
      type: 'function_call',
      id: 'fc_3d4e5f60718293a4b5c6d7e8f90a1b2c',
      call_id: 'call_R4t5Y6u7I8o9P0a1S2d3',
      name: 'create_refund_draft',
      arguments: '{"order_id":"ORDER-C7","amount":6000,"unit":"CREDIT_A"}',
    });
  });

  it('refuses the turn, and serializes nothing, when one result fails verification', () => {
    const calls = parsedCalls();
    const results = calls.map((call) => fakeSealedResult(call));
    const { verify } = createRecordingVerifier((_sealed, call) =>
      call.call_id === calls[0]!.call_id ? { ok: false, reasons: ['call_binding'] } : { ok: true },
    );
    const outcome = convertToOpenAIResponsesFunctionCallOutputs({
      calls,
      results,
      verify,
      options: { continuation: 'previous_response_id' },
    });
    expect(outcome).toEqual({
      ok: false,
      failures: [{ call_id: calls[0]!.call_id, reason: 'verification_failed', verify_reasons: ['call_binding'] }],
    });
  });

  it('throws on host misuse: an unknown continuation or a responseOutput of another response', () => {
    const calls = parsedCalls();
    const results = calls.map((call) => fakeSealedResult(call));
    const { verify } = createRecordingVerifier();
    expect(() =>
      convertToOpenAIResponsesFunctionCallOutputs({ calls, results, verify, options: { continuation: 'other' } as never }),
    ).toThrow(TypeError);
    expect(() =>
      convertToOpenAIResponsesFunctionCallOutputs({
        calls,
        results,
        verify,
        options: { continuation: 'stateless', responseOutput: response.output.slice(1) },
      }),
    ).toThrow(TypeError);
  });

  it('throws on a call id parseToolCalls would have refused (over 64 characters), never sending it', () => {
    const [first] = parsedCalls();
    const format = (callId: string) => {
      const call = { ...first!, call_id: callId };
      return () =>
        convertToOpenAIResponsesFunctionCallOutputs({
          calls: [call],
          results: [fakeSealedResult(call)],
          verify: createRecordingVerifier().verify,
          options: { continuation: 'previous_response_id' },
        });
    };
    expect(format('c'.repeat(64))).not.toThrow();
    expect(format('c'.repeat(65))).toThrow(/at most 64 characters/);
    expect(format('call\u0000x')).toThrow(TypeError);
  });

  describe('stateless continuation: the echoed items', () => {
    function formatStateless(responseOutput: unknown) {
      const calls = parsedCalls();
      return convertToOpenAIResponsesFunctionCallOutputs({
        calls,
        results: calls.map((call) => fakeSealedResult(call)),
        verify: createRecordingVerifier().verify,
        options: { continuation: 'stateless', responseOutput: responseOutput as typeof response.output },
      });
    }
    const misuse = /^stateless continuation: responseOutput must be the output of the response the calls were parsed from$/;

    it.each([1e8, 2 ** 32 - 1])('throws at once for a sparse responseOutput of length %i', (length) => {
      const sparse: unknown[] = [...response.output];
      sparse.length = length;
      const started = performance.now();
      expect(() => formatStateless(sparse)).toThrow(misuse);
      expect(performance.now() - started).toBeLessThan(100);
    });

    describe('the length of responseOutput, read once', () => {
      // The one call of `openaiSingle`, whose output is that call's item alone.
      const single = openaiSingle.output[0]!;

      /** `formatStateless` for the call parsed from `openaiSingle`, echoing from `responseOutput`. */
      function formatSingleStateless(responseOutput: unknown) {
        const calls = assertParsed(parseOpenAIResponsesToolCalls(openaiSingle));
        return convertToOpenAIResponsesFunctionCallOutputs({
          calls,
          results: calls.map((call) => fakeSealedResult(call)),
          verify: createRecordingVerifier().verify,
          options: { continuation: 'stateless', responseOutput: responseOutput as typeof openaiSingle.output },
        });
      }

      it(`throws for one claiming ${MAX_RESPONSE_OUTPUT_ITEMS + 1} items at the check and 1 later, reading no item`, () => {
        const lying = createLyingLengthArray(single, [MAX_RESPONSE_OUTPUT_ITEMS + 1, 1]);
        expect(() => formatSingleStateless(lying.array)).toThrow(misuse);
        expect(lying.indexReads()).toBe(0);
        expect(lying.lengthReads()).toBe(1);
      });

      it('walks no further than the length it checked, however long the output claims to be later', () => {
        // Every index holds the same item: a walk past index 0 would find its call id twice and throw.
        const lying = createLyingLengthArray(single, [1, 2 ** 32 - 1]);
        const outcome = formatSingleStateless(lying.array);
        expect(outcome.ok && outcome.payload.input[0]).toEqual({
          type: 'function_call',
          id: 'fc_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
          call_id: 'call_Q1w2E3r4T5y6U7i8O9p0',
          name: 'get_order',
          arguments: '{"order_id":"ORDER-C7"}',
        });
        expect(lying.indexReads()).toBe(1);
        expect(lying.lengthReads()).toBe(1);
      });

      it('converts a length that is an object never: one answering 1 at the check and 2**32-1 during the walk throws', () => {
        const { length, conversions } = createObjectLength([1, 2 ** 32 - 1]);
        const lying = createLyingLengthArray(single, [length]);
        expect(() => formatSingleStateless(lying.array)).toThrow(misuse);
        expect(lying.indexReads()).toBe(0);
        expect(conversions()).toBe(0);
      });

      it.each(NON_INTEGER_LENGTHS)('throws for one whose length is %s (only a Proxy answers so), reading no item', (_label, make) => {
        const { length, conversions } = make();
        const lying = createLyingLengthArray(single, [length]);
        expect(() => formatSingleStateless(lying.array)).toThrow(misuse);
        expect(lying.indexReads()).toBe(0);
        expect(conversions()).toBe(0);
      });
    });

    it('throws for a hole, even after every call was found', () => {
      const holed: unknown[] = [...response.output];
      holed.length += 1;
      expect(() => formatStateless(holed)).toThrow(misuse);
    });

    it('throws the same TypeError for a responseOutput whose traps throw, or a revoked one', () => {
      // The calls were parsed from the plain output; this one throws when its last item is read.
      const last = String(response.output.length - 1);
      const hostile = new Proxy([...response.output], {
        getOwnPropertyDescriptor(target, key) {
          if (key === last) throw new Error('hostile read');
          return Reflect.getOwnPropertyDescriptor(target, key);
        },
      });
      expect(() => formatStateless(hostile)).toThrow(misuse);
      const revocable = Proxy.revocable([...response.output], {});
      revocable.revoke();
      expect(() => formatStateless(revocable.proxy)).toThrow(misuse);
      // The options' own getter for it, throwing, gets the same TypeError.
      const calls = parsedCalls();
      const options = Object.defineProperty({ continuation: 'stateless' }, 'responseOutput', {
        enumerable: true,
        get: () => {
          throw new Error('hostile options');
        },
      });
      expect(() =>
        convertToOpenAIResponsesFunctionCallOutputs({
          calls,
          results: calls.map((call) => fakeSealedResult(call)),
          verify: createRecordingVerifier().verify,
          options: options as never,
        }),
      ).toThrow(misuse);
    });

    it('throws for a responseOutput that is not an array', () => {
      expect(() => formatStateless({ 0: response.output[0], length: 1 })).toThrow(misuse);
      expect(() => formatStateless(undefined)).toThrow(misuse);
    });

    it.each<[string, unknown]>([
      ['10 MB long', 'f'.repeat(10_000_000)],
      ['with NUL', 'fc_\u0000<script>'],
      ['with a control character', 'fc_\u001b[2J'],
      ['with a lone surrogate', 'fc_\udc00'],
      ['not a string', { evil: 1 }],
    ])('throws rather than echo an item id %s', (_label, id) => {
      const output = response.output.map((item, index) => (index === 1 ? { ...item, id } : item));
      expect(() => formatStateless(output)).toThrow(misuse);
    });

    it('throws rather than echo an item id hidden behind a getter', () => {
      const output = response.output.map((item, index) => {
        if (index !== 0) return item;
        const { id, ...rest } = item as { id: string };
        return Object.defineProperty(rest, 'id', { enumerable: true, get: () => id });
      });
      expect(() => formatStateless(output)).toThrow(misuse);
    });

    it.each<[string, (item: object) => object]>([
      ['unfinished (status incomplete)', (item) => ({ ...item, status: 'incomplete' })],
      ['made by a program', (item) => ({ ...item, caller: { type: 'program' } })],
      ['namespaced', (item) => ({ ...item, namespace: 'billing' })],
    ])('throws rather than echo an item parseToolCalls refuses: %s', (_label, change) => {
      const output = response.output.map((item, index) => (index === 1 ? change(item) : item));
      expect(() => formatStateless(output)).toThrow(misuse);
    });

    it('throws when two items share a call id, rather than echo either', () => {
      const first = response.output[0] as { id: string };
      const forged = { ...first, id: 'fc_forged' };
      expect(() => formatStateless([...response.output, forged])).toThrow(misuse);
      expect(() => formatStateless([forged, ...response.output])).toThrow(misuse);
    });

    it('throws when two echoed items share an item id', () => {
      const output = response.output.map((item, index) => (index === 1 ? { ...item, id: (response.output[0] as { id: string }).id } : item));
      expect(() => formatStateless(output)).toThrow(misuse);
    });

    it('echoes the item id it checked: a second read could answer another one', () => {
      let reads = 0;
      const output = response.output.map((item, index) => {
        if (index !== 0) return item;
        return new Proxy(item as object, {
          getOwnPropertyDescriptor(target, key) {
            const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
            if (key !== 'id' || descriptor === undefined) return descriptor;
            reads += 1;
            return { ...descriptor, value: reads === 1 ? descriptor.value : 'fc_evil\nforged' };
          },
        });
      });
      const outcome = formatStateless(output);
      expect(outcome.ok && outcome.payload.input[0]).toMatchObject({ type: 'function_call', id: (response.output[0] as { id: string }).id });
      expect(reads).toBe(1);
    });

    it('echoes an item without an id without one', () => {
      const output = response.output.map((item) => {
        const { id: _id, ...rest } = item as { id: string };
        return rest;
      });
      const outcome = formatStateless(output);
      expect(outcome.ok && outcome.payload.input.slice(0, 3).map((item) => 'id' in item)).toEqual([false, false, false]);
    });
  });



  describe('output length (FunctionCallOutputItemParam.output maxLength 10485760)', () => {
    // The official OpenAPI schema (spec 2.3.0) caps a string `output` at 10,485,760 characters
    // (JSON Schema `maxLength`: Unicode code points), while a tool may allow results up to 16 MiB.
    const calls = parsedCalls();
    const base = canonicalize(fakeSealedResult(calls[0]!, { data: { pad: '' } }).model_result).length;
    /** A result for `call` whose canonical text is `padding` longer than the base text. */
    const padded = (call: (typeof calls)[number], padding: string) => fakeSealedResult(call, { data: { pad: padding } });
    const format = (results: ReturnType<typeof fakeSealedResult>[]) =>
      convertToOpenAIResponsesFunctionCallOutputs({
        calls,
        results,
        verify: createRecordingVerifier().verify,
        options: { continuation: 'previous_response_id' },
      });

    it('sends an output of exactly 10,485,760 characters', () => {
      expect(MAX_FUNCTION_CALL_OUTPUT_LENGTH).toBe(10_485_760);
      const results = calls.map((call, index) => (index === 0 ? padded(call, 'x'.repeat(MAX_FUNCTION_CALL_OUTPUT_LENGTH - base)) : fakeSealedResult(call)));
      const outcome = format(results);
      expect(outcome.ok).toBe(true);
      const first = outcome.ok ? outcome.payload.input[0] : undefined;
      expect(first?.type === 'function_call_output' && first.output.length).toBe(MAX_FUNCTION_CALL_OUTPUT_LENGTH);
    });

    it('refuses the whole turn, nothing serialized, for one output a character longer', () => {
      const results = calls.map((call, index) => (index === 1 ? padded(call, 'x'.repeat(MAX_FUNCTION_CALL_OUTPUT_LENGTH - base + 1)) : fakeSealedResult(call)));
      expect(format(results)).toEqual({
        ok: false,
        failures: [{ call_id: calls[1]!.call_id, reason: 'verification_failed', verify_reasons: ['malformed_package'] }],
      });
    });

    it('names every over-long result', () => {
      const long = 'x'.repeat(MAX_FUNCTION_CALL_OUTPUT_LENGTH);
      const results = calls.map((call, index) => (index === 1 ? fakeSealedResult(call) : padded(call, long)));
      const outcome = format(results);
      expect(!outcome.ok && outcome.failures.map((failure) => failure.call_id)).toEqual([calls[0]!.call_id, calls[2]!.call_id]);
    });

    it('counts characters, not UTF-16 code units: a surrogate pair is one character', () => {
      // A million astral characters and ASCII up to the limit in characters: 1,000,000 UTF-16
      // units over it, and about 13.5 MB, within what a registry can seal (16 MiB of data).
      const astral = '\u{1F600}'.repeat(1_000_000);
      const fill = 'x'.repeat(MAX_FUNCTION_CALL_OUTPUT_LENGTH - base - 1_000_000);
      const results = calls.map((call, index) => (index === 0 ? padded(call, `${astral}${fill}`) : fakeSealedResult(call)));
      const outcome = format(results);
      expect(outcome.ok).toBe(true);
      const first = outcome.ok ? outcome.payload.input[0] : undefined;
      expect(first?.type === 'function_call_output' && first.output.length).toBe(MAX_FUNCTION_CALL_OUTPUT_LENGTH + 1_000_000);
      // One character more is refused.
      const refused = calls.map((call, index) => (index === 0 ? padded(call, `${astral}${fill}x`) : fakeSealedResult(call)));
      expect(format(refused).ok).toBe(false);
    });
  });
});
