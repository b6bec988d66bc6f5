// Provider-specific parsing only: the rules every adapter shares (ids, names, call count,
// argument size and limits) are tested once in @toolseal/adapter-core and run on this adapter by
// the conformance kit (conformance.test.ts).
import { readFileSync } from 'node:fs';
import { assertParseOutcomeCatalogued, assertParseRefused, createLyingLengthArray, NON_INTEGER_LENGTHS } from '@toolseal/adapter-testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StopReason } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AnthropicMessagesResponse } from './anthropic-messages-api.js';
import { ANTHROPIC_TOOL_USE_ID_PATTERN, MAX_MESSAGE_CONTENT_BLOCKS } from './index.js';
import { parseAnthropicMessagesToolCalls } from './parse-anthropic-messages-tool-calls.js';
import { holdsUnsafeInteger } from '@toolseal/adapter-core/testing';

function fixture(name: string): AnthropicMessagesResponse {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as AnthropicMessagesResponse;
}

function toolUse(id: unknown, name: unknown, input: unknown, extra: Record<string, unknown> = {}) {
  return { type: 'tool_use', id, caller: { type: 'direct' }, name, input, ...extra };
}

function messageWith(content: unknown[], extra: Record<string, unknown> = {}): AnthropicMessagesResponse {
  return { id: 'msg_1', type: 'message', role: 'assistant', content, stop_reason: 'tool_use', ...extra } as unknown as AnthropicMessagesResponse;
}



describe('parseAnthropicMessagesToolCalls: fixtures', () => {
  it('parses a single tool_use with its input as a value', () => {
    expect(parseAnthropicMessagesToolCalls(fixture('anthropic-single.json'))).toEqual({
      ok: true,
      response_id: 'msg_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op',
      calls: [
        {
          provider: 'anthropic',
          api_family: 'messages',
          adapter_revision: 'anthropic-messages-v1',
          response_id: 'msg_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op',
          call_id: 'toolu_01Qw2Er3Ty4Ui5Op6As7Df8Gh',
          tool_name: 'get_order',
          arguments: { format: 'json_value', value: { order_id: 'ORDER-C7' } },
        },
      ],
    });
  });

  it('keeps parallel calls in content order', () => {
    const outcome = parseAnthropicMessagesToolCalls(fixture('anthropic-parallel.json'));
    expect(outcome.ok && outcome.calls.map((call) => [call.call_id, call.tool_name])).toEqual([
      ['toolu_01Za2Xs3Cd4Vf5Bg6Nh7Mj8Ku', 'get_order'],
      ['toolu_01Lo9Ki8Ju7Hy6Gt5Fr4De3Sw', 'get_order'],
      ['toolu_01Pl0Ok9Ij8Uh7Yg6Tf5Rd4Es', 'create_refund_draft'],
    ]);
  });

  it('ignores thinking and text blocks, including instructions planted in text', () => {
    const outcome = parseAnthropicMessagesToolCalls(fixture('anthropic-mixed-text.json'));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['toolu_01Mn2Bv3Cx4Za5Sd6Fg7Hj8Kl']);
  });

  it('ignores server tool blocks: the provider runs those itself', () => {
    const outcome = parseAnthropicMessagesToolCalls(
      messageWith([{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } }]),
    );
    expect(outcome).toEqual({ ok: true, response_id: 'msg_1', calls: [] });
  });
});

describe('parseAnthropicMessagesToolCalls: refusals', () => {
  it.each([
    ['input that is a JSON string', toolUse('t1', 'a', '{"order_id":"x"}')],
    ['input that is an array', toolUse('t1', 'a', [])],
    ['input that is null', toolUse('t1', 'a', null)],
    ['missing input', toolUse('t1', 'a', undefined)],
    ['input that is a class instance', toolUse('t1', 'a', new Date(0))],
    ['a toolset member', toolUse('t1', 'click', {}, { toolset_name: 'browser' })],
    ['a call a server tool made', toolUse('t1', 'a', {}, { caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_1' } })],
    ['a caller without a type', toolUse('t1', 'a', {}, { caller: {} })],
    ['a caller that is a string', toolUse('t1', 'a', {}, { caller: 'direct' })],
    ['a block that is not an object', 'tool_use'],
  ])('refuses %s as a malformed message', (_label, block) => {
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([block])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('accepts the model\'s own calls: caller { type: "direct" }, null or absent', () => {
    const { caller: _direct, ...withoutCaller } = toolUse('t1', 'a', {});
    for (const block of [toolUse('t1', 'a', {}, { caller: { type: 'direct' } }), toolUse('t1', 'a', {}, { caller: null }), withoutCaller]) {
      const outcome = parseAnthropicMessagesToolCalls(messageWith([block]));
      expect(outcome.ok, JSON.stringify(block)).toBe(true);
    }
  });

  it.each(['max_tokens', 'model_context_window_exceeded'])(
    'refuses a last tool_use cut off by %s, but not an earlier one',
    (stopReason) => {
      assertParseRefused(
        parseAnthropicMessagesToolCalls(messageWith([toolUse('t1', 'a', {}), toolUse('t2', 'a', {})], { stop_reason: stopReason })),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
      const earlier = parseAnthropicMessagesToolCalls(
        messageWith([toolUse('t1', 'a', {}), { type: 'text', text: 'and then' }], { stop_reason: stopReason }),
      );
      expect(earlier.ok).toBe(true);
    },
  );

  it('refuses every tool_use of a message stopped by a streaming refusal, and accepts one without', () => {
    // Anthropic "Streaming refusals": the output stops where the classifiers intervene, and the
    // refused turn must be removed or updated before continuing: none of its calls may run.
    assertParseRefused(
      parseAnthropicMessagesToolCalls(
        messageWith([toolUse('t1', 'a', {}), { type: 'text', text: 'and then' }], { stop_reason: 'refusal' }),
      ),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
    expect(parseAnthropicMessagesToolCalls(messageWith([{ type: 'text', text: 'Hello..' }], { stop_reason: 'refusal' }))).toEqual({
      ok: true,
      response_id: 'msg_1',
      calls: [],
    });
  });

  it.each([
    ['null', null],
    ['an empty object', {}],
    ['a missing id', { content: [] }],
    ['content that is not an array', { id: 'msg_1', content: 'text' }],
  ])('refuses %s as a malformed message', (_label, message) => {
    assertParseRefused(
      parseAnthropicMessagesToolCalls(message as unknown as AnthropicMessagesResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });
});

describe('parseAnthropicMessagesToolCalls: stop_reason is type-exact', () => {
  it.each<[string, unknown]>([
    ['["max_tokens"]', ['max_tokens']],
    ['["refusal"]', ['refusal']],
    ['an object whose toString says max_tokens', { toString: () => 'max_tokens' }],
    ['an object whose toString throws', { toString: () => { throw new Error('toString'); } }],
    ['a number', 7],
    ['a boolean', true],
  ])('refuses a stop_reason that is %s as malformed, with or without tool_use', (_label, stopReason) => {
    for (const content of [[toolUse('t1', 'a', {})], [{ type: 'text', text: 'Hello.' }]]) {
      assertParseRefused(
        parseAnthropicMessagesToolCalls(messageWith(content, { stop_reason: stopReason })),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    }
  });

  it('accepts the tool_use blocks of a message stopped with tool_use or end_turn', () => {
    for (const stopReason of ['tool_use', 'end_turn']) {
      expect(parseAnthropicMessagesToolCalls(messageWith([toolUse('t1', 'a', {})], { stop_reason: stopReason })).ok).toBe(true);
    }
  });
});

describe('parseAnthropicMessagesToolCalls: stop_reason is an allow-list', () => {
  // Every StopReason of @anthropic-ai/sdk 1.14.0, with what becomes of a message whose tool_use is
  // followed by a text block (`earlier`) or is the last block (`last`). `Record<StopReason, ...>`:
  // a stop reason a newer SDK adds fails the type check here until it is decided.
  const EXPECTED: Record<StopReason, { earlier: boolean; last: boolean }> = {
    tool_use: { earlier: true, last: true },
    end_turn: { earlier: true, last: true },
    max_tokens: { earlier: true, last: false },
    model_context_window_exceeded: { earlier: true, last: false },
    stop_sequence: { earlier: false, last: false },
    pause_turn: { earlier: false, last: false },
    refusal: { earlier: false, last: false },
  };

  it.each(Object.entries(EXPECTED))('stop_reason %s: %j', (stopReason, expected) => {
    const earlier = parseAnthropicMessagesToolCalls(
      messageWith([toolUse('t1', 'a', {}), { type: 'text', text: 'and then' }], { stop_reason: stopReason }),
    );
    const last = parseAnthropicMessagesToolCalls(
      messageWith([{ type: 'text', text: 'calling' }, toolUse('t1', 'a', {})], { stop_reason: stopReason }),
    );
    for (const [outcome, accepted] of [[earlier, expected.earlier], [last, expected.last]] as const) {
      if (accepted) expect(outcome).toEqual(expect.objectContaining({ ok: true, calls: [expect.objectContaining({ call_id: 't1' })] }));
      else assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
    }
    // Without tool_use blocks, no stop reason refuses: there is nothing to run.
    expect(parseAnthropicMessagesToolCalls(messageWith([{ type: 'text', text: 'Hello.' }], { stop_reason: stopReason }))).toEqual({
      ok: true,
      response_id: 'msg_1',
      calls: [],
    });
  });

  it('refuses stop_sequence even when a tool_use block is followed by text: a stop sequence can end output anywhere', () => {
    const calls = [toolUse('t1', 'a', {}), toolUse('t2', 'a', {}), { type: 'text', text: 'done' }];
    assertParseRefused(
      parseAnthropicMessagesToolCalls(messageWith(calls, { stop_reason: 'stop_sequence', stop_sequence: '###' })),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it.each([
    'compaction',
    'tool_calls',
    'function_call',
    'stop',
    'content_filter',
    'max_output_tokens',
    'Tool_use',
    'TOOL_USE',
    'tool-use',
    'tool_use ',
    ' end_turn',
    'end_turn\u0000',
    'endturn',
    '',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
  ])('refuses the tool_use blocks of a message with the unknown stop_reason %j, and gives no calls without', (stopReason) => {
    for (const content of [[toolUse('t1', 'a', {})], [toolUse('t1', 'a', {}), { type: 'text', text: 'and then' }]]) {
      assertParseRefused(
        parseAnthropicMessagesToolCalls(messageWith(content, { stop_reason: stopReason })),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    }
    expect(parseAnthropicMessagesToolCalls(messageWith([{ type: 'text', text: 'Hello.' }], { stop_reason: stopReason }))).toEqual({
      ok: true,
      response_id: 'msg_1',
      calls: [],
    });
  });

  it('accepts a lone tool_use block under exactly tool_use and end_turn, whatever the stop_reason string', () => {
    const known = Object.keys(EXPECTED);
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...known), fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom(...known).map((reason) => `${reason}x`)),
        (stopReason) => {
          const outcome = parseAnthropicMessagesToolCalls(messageWith([toolUse('t1', 'a', {})], { stop_reason: stopReason }));
          expect(outcome.ok).toBe(stopReason === 'tool_use' || stopReason === 'end_turn');
          if (!outcome.ok) assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseAnthropicMessagesToolCalls: call ids the API takes back', () => {
  // Anthropic refuses a tool_result whose tool_use_id does not match ^[a-zA-Z0-9_-]+$ (HTTP 400),
  // so a call under such an id could run but never be answered: the whole message is refused.
  const ACCEPTED_ID = /^[A-Za-z0-9_-]{1,256}$/;

  it('exports the pattern as Anthropic states it', () => {
    expect(ANTHROPIC_TOOL_USE_ID_PATTERN).toBe('^[a-zA-Z0-9_-]+$');
  });

  it.each([
    'toolu.01:abc',
    'toolu_01 ',
    ' toolu_01',
    'toolu 01',
    'toolu/01',
    'toolu+01=',
    'toolu_01\u00e9',
    'toolu_\uff10\uff11',
    'toolu_01\u200b',
    'toolu_01\ud83d\ude00',
    '\u0130d',
    'toolu_01\n',
  ])('refuses a message with a tool_use id %j, even after a valid call, and even as its only call', (callId) => {
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse(callId, 'a', {})])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    assertParseRefused(
      parseAnthropicMessagesToolCalls(messageWith([toolUse('toolu_ok', 'a', {}), toolUse(callId, 'b', {})])),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it.each(['toolu_01Ab2Cd3-Ef_9', 'a', 'Z', '0', '_', '-', 'x'.repeat(256)])('accepts the tool_use id %j', (callId) => {
    const outcome = parseAnthropicMessagesToolCalls(messageWith([toolUse(callId, 'a', {})]));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual([callId]);
  });

  it('keeps the 256-character bound for ids of the pattern', () => {
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse('x'.repeat(257), 'a', {})])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });

  it('still reports a missing or empty id as missing_call_id and a non-string id as malformed', () => {
    for (const callId of [undefined, null, '']) {
      assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse(callId, 'a', {})])), 'MALFORMED_TOOL_CALL', 'missing_call_id');
    }
    for (const callId of [7, ['toolu_1'], { toString: () => 'toolu_1' }]) {
      assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse(callId, 'a', {})])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    }
  });

  it('refuses an id outside the pattern before its name is checked: the id is the first rule broken', () => {
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse('toolu.1', '', {})])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    // The same empty name under a good id reports the name.
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([toolUse('toolu_1', '', {})])), 'MALFORMED_TOOL_CALL', 'empty_tool_name');
  });

  it('accepts exactly the ids the exported pattern matches, up to 256 characters', () => {
    const pattern = new RegExp(ANTHROPIC_TOOL_USE_ID_PATTERN);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9_-]{1,300}$/),
          fc.string({ minLength: 1, maxLength: 12 }),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
          fc.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/))
            .map(([before, character, after]) => `${before}${character}${after}`),
        ),
        (callId) => {
          const outcome = parseAnthropicMessagesToolCalls(messageWith([toolUse(callId, 'a', {})]));
          const expected = ACCEPTED_ID.test(callId);
          expect(pattern.test(callId) && callId.length <= 256).toBe(expected);
          expect(outcome.ok).toBe(expected);
          if (!outcome.ok) assertParseRefused(outcome, 'MALFORMED_TOOL_CALL', 'malformed_response');
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseAnthropicMessagesToolCalls: unfinished and paused turns', () => {
  // @anthropic-ai/sdk `Message.stop_reason`: "In non-streaming mode this value is always non-null.
  // In streaming mode, it is null in the `message_start` event and non-null otherwise." A message
  // without one is a stream snapshot whose tool_use input came from partial JSON.
  function withoutStopReason(content: unknown[]): AnthropicMessagesResponse {
    const { stop_reason: _stop, ...rest } = messageWith(content) as unknown as Record<string, unknown>;
    return rest as unknown as AnthropicMessagesResponse;
  }

  it.each<[string, (content: unknown[]) => AnthropicMessagesResponse]>([
    ['null', (content) => messageWith(content, { stop_reason: null })],
    ['absent', withoutStopReason],
    ['undefined', (content) => messageWith(content, { stop_reason: undefined })],
  ])('refuses every tool_use of a message whose stop_reason is %s: an unfinished snapshot', (_label, make) => {
    // What the SDK's partial-JSON parser makes of `{"order_id":"ORDER-7","amount":1`, cut mid-stream.
    const cut = toolUse('toolu_1', 'create_refund_draft', { order_id: 'ORDER-7' });
    assertParseRefused(parseAnthropicMessagesToolCalls(make([cut])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    assertParseRefused(
      parseAnthropicMessagesToolCalls(make([toolUse('t1', 'a', {}), { type: 'text', text: 'and then' }])),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
  ])('gives no calls for a message without tool_use whose stop_reason is %s', (_label, stopReason) => {
    expect(parseAnthropicMessagesToolCalls(messageWith([{ type: 'text', text: 'Hel' }], { stop_reason: stopReason }))).toEqual({
      ok: true,
      response_id: 'msg_1',
      calls: [],
    });
  });

  it('refuses every tool_use of a turn paused with pause_turn: it is continued by sending it back unchanged', () => {
    // "pause_turn: we paused a long-running turn. You may provide the response back as-is in a
    // subsequent request to let the model continue." Answering its tool_use would add a turn.
    const paused = [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'refund policy' } },
      toolUse('t1', 'create_refund_draft', { order_id: 'ORDER-7' }),
    ];
    assertParseRefused(
      parseAnthropicMessagesToolCalls(messageWith(paused, { stop_reason: 'pause_turn' })),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
  });

  it('gives no calls for a paused turn of server tools only: the host sends it back to continue', () => {
    const paused = [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'refund policy' } }];
    expect(parseAnthropicMessagesToolCalls(messageWith(paused, { stop_reason: 'pause_turn' }))).toEqual({
      ok: true,
      response_id: 'msg_1',
      calls: [],
    });
  });
});

describe('parseAnthropicMessagesToolCalls: hidden refusal fields', () => {
  /** `target` with `key` replaced by an own getter answering `answer`; records whether it ran. */
  function withGetter<T extends object>(target: T, key: string, answer: unknown): { value: T; ran: () => boolean } {
    let ran = false;
    const copy = { ...target } as Record<string, unknown>;
    delete copy[key];
    Object.defineProperty(copy, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        ran = true;
        return answer;
      },
    });
    return { value: copy as T, ran: () => ran };
  }

  it.each(['max_tokens', 'refusal', 'tool_use'])('refuses a message whose stop_reason is a getter (answering %s), without running it', (answer) => {
    const { value, ran } = withGetter(messageWith([toolUse('t1', 'a', {})]), 'stop_reason', answer);
    assertParseRefused(parseAnthropicMessagesToolCalls(value), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran()).toBe(false);
  });

  it('refuses a message whose stop_reason comes only from its prototype (a class, a polluted Object.prototype)', () => {
    class Message {
      get stop_reason(): string {
        return 'max_tokens';
      }
    }
    const { stop_reason: _stop, ...own } = messageWith([toolUse('t1', 'a', {})]) as unknown as Record<string, unknown>;
    assertParseRefused(
      parseAnthropicMessagesToolCalls(Object.assign(new Message(), own) as unknown as AnthropicMessagesResponse),
      'MALFORMED_TOOL_CALL',
      'malformed_response',
    );
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['stop_reason'] = 'refusal';
    try {
      assertParseRefused(
        parseAnthropicMessagesToolCalls(own as unknown as AnthropicMessagesResponse),
        'MALFORMED_TOOL_CALL',
        'malformed_response',
      );
    } finally {
      delete prototype['stop_reason'];
    }
  });

  it.each<[string, unknown]>([
    ['type', 'tool_use'],
    ['toolset_name', 'browser'],
    ['toolset_name', null],
    ['caller', { type: 'direct' }],
  ])('refuses a tool_use block whose %s is a getter (answering %j), without running it', (key, answer) => {
    const { value, ran } = withGetter(toolUse('t1', 'a', {}), key, answer);
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([value])), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(ran()).toBe(false);
  });

  it.each(['type', 'toolset_name'])('refuses a tool_use block whose %s comes only from its prototype', (key) => {
    const { [key]: inherited, ...own } = toolUse('t1', 'a', {}, { toolset_name: 'browser' }) as Record<string, unknown>;
    const block: unknown = Object.assign(Object.create({ [key]: inherited }) as object, own);
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith([block])), 'MALFORMED_TOOL_CALL', 'malformed_response');
  });
});

describe('parseAnthropicMessagesToolCalls: depth behind a value JSON cannot express', () => {
  // The conformance kit covers sizes before and after Infinity; nesting 100,000 deep only a
  // value-argument adapter can be handed (the kit's response builders would overflow building it).
  // What the SDK hands over: `JSON.parse` of the wire text, where 1e400 becomes Infinity.
  function sdkMessage(inputText: string): AnthropicMessagesResponse {
    const wire = `{"id":"msg_1","type":"message","role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_1","name":"get_order","caller":{"type":"direct"},"input":${inputText}}]}`;
    return JSON.parse(wire) as AnthropicMessagesResponse;
  }
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;

  it('refuses 100,000-deep nesting after 1e400 with INVALID_ARGUMENTS, as without the Infinity', () => {
    const withInfinity = `{"n":1e400,"a":${deep}}`;
    const without = `{"n":1,"a":${deep}}`;
    const expected = parseAnthropicMessagesToolCalls(sdkMessage(without));
    expect(!expected.ok && expected.error.code).toBe('INVALID_ARGUMENTS');
    expect(parseAnthropicMessagesToolCalls(sdkMessage(withInfinity))).toEqual(expected);
  });
});

describe('parseAnthropicMessagesToolCalls: how many content blocks it walks', () => {
  // The bound the OpenAI adapter keeps on `output` items (`MAX_RESPONSE_OUTPUT_ITEMS`), with the
  // same refusal: far above any real message, low enough that no host-made array is walked forever.
  const textBlock = { type: 'text', text: 'Looking that up.' };

  it('is 100,000 blocks, as OpenAI bounds output items', () => {
    expect(MAX_MESSAGE_CONTENT_BLOCKS).toBe(100_000);
  });

  it(`refuses a message of more than ${MAX_MESSAGE_CONTENT_BLOCKS} content blocks as OpenAI refuses a longer output, and accepts ${MAX_MESSAGE_CONTENT_BLOCKS}`, () => {
    const many = Array.from({ length: MAX_MESSAGE_CONTENT_BLOCKS + 1 }, () => textBlock);
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith(many)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(parseAnthropicMessagesToolCalls(messageWith(many.slice(1)))).toEqual({ ok: true, response_id: 'msg_1', calls: [] });
    // The bound counts blocks, whatever their type: a tool_use as the last of 100,000 is returned.
    const withCall = [...many.slice(2), toolUse('toolu_1', 'get_order', { order_id: 'ORDER-7' })];
    expect(withCall).toHaveLength(MAX_MESSAGE_CONTENT_BLOCKS);
    const outcome = parseAnthropicMessagesToolCalls(messageWith(withCall));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['toolu_1']);
  });

  it('refuses an overlong content before reading any block, with its length read once', () => {
    // A length that shrinks after the check cannot let the walk in: the first answer decides.
    const lying = createLyingLengthArray(textBlock, [MAX_MESSAGE_CONTENT_BLOCKS + 1, 1]);
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith(lying.array)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(lying.lengthReads()).toBe(1);
  });

  it('walks no further than the length it checked, however long the content claims to be later', () => {
    // Every index holds the same tool_use: a walk past index 0 would find its id twice.
    const lying = createLyingLengthArray(toolUse('toolu_1', 'get_order', {}), [1, 2 ** 32 - 1]);
    const outcome = parseAnthropicMessagesToolCalls(messageWith(lying.array));
    expect(outcome.ok && outcome.calls.map((call) => call.call_id)).toEqual(['toolu_1']);
    expect(lying.indexReads()).toBe(1);
    expect(lying.lengthReads()).toBe(1);
  });

  it.each(NON_INTEGER_LENGTHS)('refuses content whose length is %s (only a Proxy answers so) without reading a block', (_label, make) => {
    const { length, conversions } = make();
    const lying = createLyingLengthArray(toolUse('toolu_1', 'get_order', {}), [length]);
    assertParseRefused(parseAnthropicMessagesToolCalls(messageWith(lying.array)), 'MALFORMED_TOOL_CALL', 'malformed_response');
    expect(lying.indexReads()).toBe(0);
    expect(conversions()).toBe(0);
  });
});

describe('parseAnthropicMessagesToolCalls: properties', () => {
  it('never throws, and every refusal is a catalogued error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ id: fc.anything(), content: fc.array(fc.anything(), { maxLength: 5 }) }),
          fc.record({
            id: fc.string(),
            stop_reason: fc.oneof(
              fc.constantFrom('tool_use', 'end_turn', 'max_tokens', 'model_context_window_exceeded', 'stop_sequence', 'pause_turn', 'refusal', null),
              fc.string(),
            ),
            content: fc.array(
              fc.record({
                type: fc.constantFrom('tool_use', 'text', 'thinking'),
                id: fc.oneof(fc.string(), fc.anything()),
                name: fc.oneof(fc.string(), fc.anything()),
                input: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.anything()),
              }),
              { maxLength: 6 },
            ),
          }),
        ),
        (message) => {
          assertParseOutcomeCatalogued(parseAnthropicMessagesToolCalls(message as AnthropicMessagesResponse));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('returns exactly the tool_use blocks, in order, with their input untouched', () => {
    const block = fc.record({
      // No white space (the ASCII space among fast-check's characters): shown blank, refused.
      name: fc.string({ minLength: 1, maxLength: 20 }).filter((name) => !/[\s\ud800-\udfff]/.test(name)),
      // Integers beyond 2^53 - 1 are refused as possibly rounded (see the SDK tests).
      input: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }).filter((each) => !holdsUnsafeInteger(each)),
    });
    fc.assert(
      fc.property(fc.array(block, { maxLength: 10 }), (blocks) => {
        const content = blocks.flatMap((entry, index) => [{ type: 'text', text: `t${index}` }, toolUse(`t${index}`, entry.name, entry.input)]);
        const outcome = parseAnthropicMessagesToolCalls(messageWith(content));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.calls.map((call) => [call.call_id, call.tool_name])).toEqual(blocks.map((entry, index) => [`t${index}`, entry.name]));
        outcome.calls.forEach((call, index) => {
          expect(call.arguments).toEqual({ format: 'json_value', value: blocks[index]!.input });
        });
      }),
    );
  });
});
