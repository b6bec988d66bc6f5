import {
  assertParsed,
  createLyingLengthArray,
  createRecordingVerifier,
  fakeSealedResult,
  findProtectedValues,
  NON_INTEGER_LENGTHS,
} from '@toolseal/adapter-testing';
import { canonicalize } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { anthropicParallel } from './__fixtures__/anthropic-messages-fixtures.js';
import { convertToAnthropicToolResults } from './convert-to-anthropic-tool-results.js';
import { MAX_MESSAGE_CONTENT_BLOCKS } from './index.js';
import { parseAnthropicMessagesToolCalls } from './parse-anthropic-messages-tool-calls.js';

const parsedCalls = () => assertParsed(parseAnthropicMessagesToolCalls(anthropicParallel));

describe('convertToAnthropicToolResults', () => {
  it('writes one user message: a tool_result per tool_use in call order, then the extra text', () => {
    const calls = parsedCalls();
    const results = [
      fakeSealedResult(calls[0]!),
      fakeSealedResult(calls[1]!, { status: 'failed' }),
      fakeSealedResult(calls[2]!, { status: 'unknown' }),
    ];
    const outcome = convertToAnthropicToolResults({
      calls,
      results: [results[1]!, results[2]!, results[0]!],
      verify: createRecordingVerifier().verify,
      options: { text: ['Thanks, continue.'] },
    });
    expect(outcome).toEqual({
      ok: true,
      payload: {
        role: 'user',
        content: [
          ...calls.map((call, index) => ({
            type: 'tool_result',
            tool_use_id: call.call_id,
            content: [{ type: 'text', text: canonicalize(results[index]!.model_result) }],
            is_error: index !== 0,
          })),
          { type: 'text', text: 'Thanks, continue.' },
        ],
      },
    });
    expect(findProtectedValues(JSON.stringify(outcome), results)).toEqual([]);
  });

  it('writes no text block without extra text', () => {
    const calls = parsedCalls();
    const outcome = convertToAnthropicToolResults({
      calls,
      results: calls.map((call) => fakeSealedResult(call)),
      verify: createRecordingVerifier().verify,
      options: {},
    });
    expect(outcome.ok && outcome.payload.content.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'tool_result']);
  });

  it('refuses a turn where a tool_use has no result, rather than sending fewer blocks', () => {
    const calls = parsedCalls();
    const outcome = convertToAnthropicToolResults({
      calls,
      results: [fakeSealedResult(calls[0]!), fakeSealedResult(calls[2]!)],
      verify: createRecordingVerifier().verify,
      options: { text: ['Thanks'] },
    });
    expect(outcome).toEqual({ ok: false, failures: [{ call_id: calls[1]!.call_id, reason: 'missing_result', verify_reasons: [] }] });
  });

  it('throws on empty extra text: the API refuses empty text blocks', () => {
    const calls = parsedCalls();
    const input = { calls, results: calls.map((call) => fakeSealedResult(call)), verify: createRecordingVerifier().verify };
    expect(() => convertToAnthropicToolResults({ ...input, options: { text: [''] } })).toThrow(TypeError);
    expect(() => convertToAnthropicToolResults({ ...input, options: { text: [1] as never } })).toThrow(TypeError);
    // Review: a hole became a null content block; whitespace only is refused by the Messages API.
    expect(() => convertToAnthropicToolResults({ ...input, options: { text: [, 'x'] as never } })).toThrow(TypeError);
    expect(() => convertToAnthropicToolResults({ ...input, options: { text: ['   '] } })).toThrow(TypeError);
    expect(() => convertToAnthropicToolResults({ ...input, options: { text: ['\n\t'] } })).toThrow(TypeError);
  });

  it(`throws on extra text of more than ${MAX_MESSAGE_CONTENT_BLOCKS} entries before verifying anything, as OpenAI bounds a responseOutput`, () => {
    const calls = parsedCalls();
    const results = calls.map((call) => fakeSealedResult(call));
    const recording = createRecordingVerifier();
    const many = Array.from({ length: MAX_MESSAGE_CONTENT_BLOCKS + 1 }, () => 'Continue.');
    expect(() => convertToAnthropicToolResults({ calls, results, verify: recording.verify, options: { text: many } })).toThrow(
      new TypeError(`options.text must hold at most ${MAX_MESSAGE_CONTENT_BLOCKS} entries`),
    );
    expect(recording.seen).toHaveLength(0);
    const outcome = convertToAnthropicToolResults({ calls, results, verify: recording.verify, options: { text: many.slice(1) } });
    expect(outcome.ok && outcome.payload.content.length).toBe(calls.length + MAX_MESSAGE_CONTENT_BLOCKS);
  });

  it('reads the length of the extra text once: a Proxy that grows it later adds no block', () => {
    const calls = parsedCalls();
    const lying = createLyingLengthArray('Continue.', [1, 3]);
    const outcome = convertToAnthropicToolResults({
      calls,
      results: calls.map((call) => fakeSealedResult(call)),
      verify: createRecordingVerifier().verify,
      options: { text: lying.array },
    });
    expect(outcome.ok && outcome.payload.content.filter((block) => block.type === 'text')).toEqual([{ type: 'text', text: 'Continue.' }]);
    expect(lying.lengthReads()).toBe(1);
  });

  // Four of the six shared lengths, the ones this test has always run: -1 and Infinity meet the
  // same check (the parser's tests run all six).
  const textLengths = NON_INTEGER_LENGTHS.filter(([label]) => label !== '-1' && label !== 'Infinity');

  it.each(textLengths)('throws on extra text whose length is %s (only a Proxy answers so), converting nothing', (_label, make) => {
    const calls = parsedCalls();
    const { length, conversions } = make();
    const recording = createRecordingVerifier();
    const input = { calls, results: calls.map((call) => fakeSealedResult(call)), verify: recording.verify };
    const text = createLyingLengthArray('Continue.', [length]).array;
    expect(() => convertToAnthropicToolResults({ ...input, options: { text } })).toThrow(TypeError);
    expect(conversions()).toBe(0);
    expect(recording.seen).toHaveLength(0);
  });

  it('throws on a call id Anthropic does not take back (outside ^[a-zA-Z0-9_-]+$ or over 256 characters), never sending it', () => {
    const [first, second] = parsedCalls();
    const format = (callId: string) => {
      const call = { ...second!, call_id: callId };
      const calls = [first!, call];
      // Built outside the thunk: only the converter may throw.
      const results = calls.map((each) => fakeSealedResult(each));
      const { verify } = createRecordingVerifier();
      return () => convertToAnthropicToolResults({ calls, results, verify, options: {} });
    };
    for (const callId of ['toolu_01Ab2Cd3-Ef_9', 'a', '-', 'x'.repeat(256)]) {
      expect(format(callId), callId).not.toThrow();
      const outcome = format(callId)();
      expect(outcome.ok && outcome.payload.content.map((block) => block.type === 'tool_result' && block.tool_use_id)).toEqual([first!.call_id, callId]);
    }
    for (const callId of ['toolu.01:abc', 'toolu_01 ', 'toolu_01\u00e9', 'toolu_01\u0000', 'x'.repeat(257)]) {
      expect(format(callId), JSON.stringify(callId)).toThrow(TypeError);
    }
    expect(format('toolu.01:abc')).toThrow(/\^\[a-zA-Z0-9_-\]\+\$/);
    // A lone surrogate has no canonical JSON: correlation refuses its package first. Either way,
    // no payload carries the id.
    let outcome: ReturnType<typeof convertToAnthropicToolResults> | undefined;
    try {
      outcome = format('toolu_\ud800')();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
    }
    if (outcome !== undefined) expect(outcome.ok).toBe(false);
  });
});
