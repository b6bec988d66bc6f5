// The guard: cost per KB of scan + parse against bare JSON.parse, and the rejection cost of
// oversized and over-deep arguments (issue 8, item 6).
import { createAnthropicMessagesAdapter } from '@toolseal/adapter-anthropic';
import { createOpenAIResponsesAdapter } from '@toolseal/adapter-openai';
import { DEFAULT_JSON_LIMITS, checkUntrustedValue, parseUntrustedJson } from '@toolseal/guard';
import { measureGroup, timeOnce } from './measure.js';
import type { Report } from './report.js';

const encoder = new TextEncoder();

function recordsDocument(bytes: number): string {
  const items: object[] = [];
  while (JSON.stringify(items).length < bytes) {
    const index = items.length;
    items.push({ item_ref: `ITEM-${index}`, title: `Item number ${index}`, price: index * 1.25, quantity: index % 7, tags: ['a', 'b'], available: index % 2 === 0, note: null });
  }
  return JSON.stringify({ items });
}

function textDocument(bytes: number): string {
  const hits: object[] = [];
  while (JSON.stringify(hits).length < bytes) {
    hits.push({ source: `https://kb.example.com/${hits.length}`, snippet: 'Lorem ipsum dolor sit amet, «ünïcödé» text with "quotes"\n. '.repeat(20) });
  }
  return JSON.stringify({ hits });
}

/** Guard (scan, then JSON.parse) against bare JSON.parse, per KB of input. */
export async function benchGuardCost(report: Report): Promise<void> {
  const section = 'Guard cost per KB (parseUntrustedJson = scan + JSON.parse, default limits)';
  const documents: Record<string, string> = {
    'refund proposal arguments': JSON.stringify({
      order_id: 'ORDER-C7',
      amount: 6000,
      unit: 'CREDIT_A',
      lines: [{ line_id: 'LINE-1', quantity: 1 }],
      reason: 'Arrived damaged; refund the whole line.',
    }),
    'records 64 KB': recordsDocument(65_536),
    'text-heavy 64 KB': textDocument(65_536),
  };
  for (const [name, text] of Object.entries(documents)) {
    if (!parseUntrustedJson(text, DEFAULT_JSON_LIMITS).ok) throw new Error(`bench: guard rejected ${name}`);
    const kilobytes = encoder.encode(text).length / 1024;
    const [guard, bare] = await measureGroup([
      { name: `parseUntrustedJson, ${name}`, operation: () => parseUntrustedJson(text, DEFAULT_JSON_LIMITS) },
      { name: `JSON.parse, ${name}`, operation: () => JSON.parse(text) },
    ]);
    if (guard === undefined || bare === undefined) throw new Error('bench: missing measurement');
    for (const measurement of [guard, bare]) {
      report.add({
        section,
        name: measurement.name,
        value: measurement.us_per_op / kilobytes,
        unit: 'µs/KB',
        us_per_op: measurement.us_per_op,
        note: `${(kilobytes * 1024).toLocaleString('en-US')} bytes`,
      });
    }
    report.ratio(`guard / JSON.parse cost, ${name}`, guard.us_per_op / bare.us_per_op, 'µs of parseUntrustedJson ÷ µs of JSON.parse, same text');
  }
}

/** A value nested `depth` arrays deep, built without recursion. */
function deepValue(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** Rejection of a 100 MB argument string and a 100,000-deep argument, against smaller ones. */
export async function benchRejection(report: Report): Promise<void> {
  const section = 'Rejection cost (µs, median of repeated calls)';
  const limits = DEFAULT_JSON_LIMITS;
  const openai = createOpenAIResponsesAdapter();
  const anthropic = createAnthropicMessagesAdapter();

  const expectRule = (outcome: { ok: boolean; violation?: { rule: string } }, rule: string, what: string): void => {
    if (outcome.ok || outcome.violation?.rule !== rule) throw new Error(`bench: ${what} was not rejected with ${rule}`);
  };

  for (const megabytes of [2, 100]) {
    const text = `{"order_id":"${'A'.repeat(megabytes * 1_000_000)}"}`;
    expectRule(parseUntrustedJson(text, limits), 'max_bytes', `${megabytes} MB text`);
    report.add({
      section,
      name: `parseUntrustedJson, ${megabytes} MB argument string`,
      value: await timeOnce(() => parseUntrustedJson(text, limits), 21),
      unit: 'µs',
      note: 'max_bytes (limit 1 MiB)',
    });
    const response = {
      id: 'resp_big',
      output: [{ type: 'function_call', id: 'fc_big', call_id: 'call_big', name: 'get_order', arguments: text, status: 'completed' }],
    };
    const parsed = openai.parseToolCalls(response);
    if (parsed.ok || parsed.error.code !== 'INVALID_ARGUMENTS') throw new Error('bench: OpenAI adapter accepted a huge argument');
    report.add({
      section,
      name: `OpenAI adapter parseToolCalls, ${megabytes} MB arguments`,
      value: await timeOnce(() => openai.parseToolCalls(response), 21),
      unit: 'µs',
      note: 'INVALID_ARGUMENTS / max_bytes',
    });
  }
  const hundredMegabytes = `{"order_id":"${'A'.repeat(100_000_000)}"}`;
  report.add({
    section,
    name: 'reference: JSON.parse, 100 MB argument string',
    value: await timeOnce(() => JSON.parse(hundredMegabytes), 3),
    unit: 'µs',
    note: 'what parsing before checking would cost',
  });

  for (const depth of [1_000, 100_000]) {
    const text = `{"order_id":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    expectRule(parseUntrustedJson(text, limits), 'max_depth', `${depth}-deep text`);
    report.add({
      section,
      name: `parseUntrustedJson, ${depth.toLocaleString('en-US')}-deep argument`,
      value: await timeOnce(() => parseUntrustedJson(text, limits), 21),
      unit: 'µs',
      note: `max_depth (limit ${limits.maxDepth}); text ${text.length.toLocaleString('en-US')} bytes`,
    });
    const value = { order_id: deepValue(depth) };
    expectRule(checkUntrustedValue(value, limits), 'max_depth', `${depth}-deep value`);
    report.add({
      section,
      name: `checkUntrustedValue, ${depth.toLocaleString('en-US')}-deep parsed argument`,
      value: await timeOnce(() => checkUntrustedValue(value, limits), 21),
      unit: 'µs',
      note: 'max_depth; the path Anthropic/Gemini values take',
    });
    const message = { id: 'msg_deep', content: [{ type: 'tool_use', id: 'toolu_deep', name: 'get_order', input: value }], stop_reason: 'tool_use' };
    const parsed = anthropic.parseToolCalls(message);
    if (parsed.ok) throw new Error('bench: Anthropic adapter accepted a deep argument');
    report.add({
      section,
      name: `Anthropic adapter parseToolCalls, ${depth.toLocaleString('en-US')}-deep input`,
      value: await timeOnce(() => anthropic.parseToolCalls(message), 21),
      unit: 'µs',
      note: 'INVALID_ARGUMENTS / max_depth',
    });
  }
}
