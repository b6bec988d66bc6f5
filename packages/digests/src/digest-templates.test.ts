// The fixed-shape digests write their canonical text from templates (digester.ts). These
// properties check them against the general path they replace: SHA-256 (or HMAC) over
// `canonicalize({ domain, ...fields })`, computed here with node:crypto, and the same
// CanonicalizationError (reason and path) whenever the general path throws.
import { createHash, createHmac } from 'node:crypto';
import type { JsonValue, ToolContract } from '@toolseal/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalizationError } from './canonicalization-error.js';
import { canonicalize } from './canonicalize.js';
import { createDigester, DIGEST_DOMAINS, type Digester } from './digester.js';
import { nobleBackend } from './hash-backend.js';
import { nodeCryptoBackend } from './node.js';

const KEY = Uint8Array.from({ length: 32 }, (_, index) => 255 - index);
const digesters: [string, Digester, (text: string) => string][] = [
  ['noble, plain', createDigester({ backend: nobleBackend }), (text) => createHash('sha256').update(text, 'utf8').digest('hex')],
  ['node, plain', createDigester({ backend: nodeCryptoBackend }), (text) => createHash('sha256').update(text, 'utf8').digest('hex')],
  ['noble, keyed', createDigester({ backend: nobleBackend, key: KEY }), (text) => createHmac('sha256', KEY).update(text, 'utf8').digest('hex')],
  ['node, keyed', createDigester({ backend: nodeCryptoBackend, key: KEY }), (text) => createHmac('sha256', KEY).update(text, 'utf8').digest('hex')],
];

// Strings that need every kind of escape, astral characters, and (sometimes) lone surrogates.
const codeUnit = fc.oneof(
  fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '😀', '\ud800', '\udfff', 'a', '-', '0'),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
);
const anyText = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: codeUnit, maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));
// Mostly strings, sometimes what the types forbid but a caller bug could pass.
const member = fc.oneof({ weight: 8, arbitrary: anyText }, fc.constantFrom<unknown>(undefined, null, 7, -0, true, {}, []));
const json = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
const argumentsValue = fc.oneof(
  { weight: 8, arbitrary: json },
  fc.constantFrom<unknown>({ bad: undefined }, { when: new Date(0) }, ['\ud800'], Number.NaN),
);

type Outcome = { digest: string } | { reason: string; path: string };

function outcomeOf(run: () => string): Outcome {
  try {
    return { digest: run() };
  } catch (error) {
    if (CanonicalizationError.isInstance(error)) return { reason: error.reason, path: error.path };
    throw error;
  }
}

/** The general path: the hash of the canonical tagged object, or its canonicalization failure. */
function expected(hash: (text: string) => string, tagged: Record<string, unknown>): Outcome {
  return outcomeOf(() => hash(canonicalize(tagged)));
}

/** A request digest input from its six string members, in the order of `RequestDigestInput`. */
function requestInputOf(members: readonly unknown[], args: unknown) {
  const [tenant, subject, tool, inputRevision, outputRevision, effectRevision] = members;
  return {
    tenant_id: tenant,
    subject_id: subject,
    tool_name: tool,
    arguments: args,
    input_revision: inputRevision,
    output_revision: outputRevision,
    effect_revision: effectRevision,
  };
}

/** A tool contract from its eight members. */
function contractOf(values: readonly unknown[]) {
  const [toolName, effect, inputRevision, outputRevision, effectRevision, handlerRevision, producerRevision, policyRevision] = values;
  return {
    tool_name: toolName,
    effect,
    input_revision: inputRevision,
    output_revision: outputRevision,
    effect_revision: effectRevision,
    handler_revision: handlerRevision,
    producer_revision: producerRevision,
    policy_revision: policyRevision,
  };
}

/** A call binding input from its eight other members, the idempotency key and the tool contract. */
function bindingOf(members: readonly unknown[], idempotencyKey: unknown, toolContract: unknown) {
  const [provider, apiFamily, responseId, callId, operationId, adapterRevision, requestSha256, resultSha256] = members;
  return {
    provider,
    api_family: apiFamily,
    response_id: responseId,
    call_id: callId,
    operation_id: operationId,
    idempotency_key: idempotencyKey,
    adapter_revision: adapterRevision,
    tool_contract: toolContract as ToolContract,
    request_sha256: requestSha256,
    result_sha256: resultSha256,
  };
}

describe.each(digesters)('fixed-shape digests (%s) equal the general canonical path', (name, digester, hash) => {
  const otherMode = digesters.find(([other]) => other.endsWith('keyed') !== name.endsWith('keyed'));
  if (otherMode === undefined) throw new Error('digest-templates: no digester of the other mode');
  it('principalRef', () => {
    fc.assert(
      fc.property(member, member, (tenant, subject) => {
        const principal = { tenant_id: tenant, subject_id: subject } as { tenant_id: string; subject_id: string };
        expect(outcomeOf(() => digester.principalRef(principal))).toEqual(
          expected(hash, { domain: DIGEST_DOMAINS.principalRef, tenant_id: tenant, subject_id: subject }),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('requestDigest', () => {
    fc.assert(
      fc.property(fc.array(member, { minLength: 6, maxLength: 6 }), argumentsValue, (members, args) => {
        const input = requestInputOf(members, args);
        expect(outcomeOf(() => digester.requestDigest(input as never))).toEqual(
          expected(hash, { domain: DIGEST_DOMAINS.request, ...input }),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('requestDigest keeps the depth limit of the tagged object (arguments nest one level below it)', () => {
    let deep: unknown = [];
    for (let level = 1; level < 999; level++) deep = [deep];
    const input = {
      tenant_id: 't',
      subject_id: 's',
      tool_name: 'x',
      arguments: deep as JsonValue,
      input_revision: 'i',
      output_revision: 'o',
      effect_revision: 'e',
    };
    expect(outcomeOf(() => digester.requestDigest(input))).toEqual(expected(hash, { domain: DIGEST_DOMAINS.request, ...input }));
    const deeper = { ...input, arguments: [deep] as JsonValue };
    const failure = outcomeOf(() => digester.requestDigest(deeper));
    expect(failure).toMatchObject({ reason: 'max_depth' });
    expect(failure).toEqual(expected(hash, { domain: DIGEST_DOMAINS.request, ...deeper }));
  });

  it('callBindingDigest, with and without an idempotency key', () => {
    const contractMembers = fc.array(member, { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.array(member, { minLength: 8, maxLength: 8 }),
        fc.oneof(fc.constant(null), member),
        contractMembers,
        (members, idempotencyKey, contractValues) => {
          const contract = contractOf(contractValues);
          // An extra member is never bound.
          const input = bindingOf(members, idempotencyKey, { ...contract, note: 'ignored' });
          expect(outcomeOf(() => digester.callBindingDigest(input as never))).toEqual(
            expected(hash, { domain: DIGEST_DOMAINS.callBinding, ...input, tool_contract: contract }),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('requestDigest and callBindingDigest reuse the text of repeated members only while every one is equal', () => {
    // Few distinct values, so that consecutive calls often repeat the principal, the contract or
    // the adapter exactly, or differ from the last call in one member only (also in a member that
    // stops being a string). Strings equal in value but built separately must hit the same text.
    // `read` twice: a literal and the same text made at run time (another string object).
    const madeRead = ['re', 'ad'].join('');
    // Mostly strings, so that whole contracts are often texts that can be reused.
    const pooled = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom<unknown>('a', 'b', '"', 'é', 'read', madeRead) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>('\ud800', new String('a'), undefined) },
    );
    const first = fc.record({
      request: fc.array(pooled, { minLength: 6, maxLength: 6 }),
      contract: fc.array(pooled, { minLength: 8, maxLength: 8 }),
      context: fc.array(pooled, { minLength: 8, maxLength: 8 }),
    });
    // Each later call is the one before with one member changed (or none).
    const edit = fc.record({
      part: fc.constantFrom('request', 'contract', 'context', 'none'),
      index: fc.nat({ max: 7 }),
      value: pooled,
    });
    fc.assert(
      fc.property(first, fc.array(edit, { minLength: 1, maxLength: 12 }), (start, edits) => {
        const calls = [start];
        for (const { part, index, value } of edits) {
          const previous = calls[calls.length - 1] ?? start;
          const next = { request: [...previous.request], contract: [...previous.contract], context: [...previous.context] };
          if (part !== 'none') next[part][index % next[part].length] = value;
          calls.push(next);
        }
        const args: JsonValue = { order_id: 'O-1' };
        for (const { request, contract: contractValues, context } of calls) {
          const input = requestInputOf(request, args);
          const binding = bindingOf(context, null, contractOf(contractValues));
          // Each call also through a digester of the other mode (keyed or plain): the reused
          // texts are shared by every digester of the process.
          for (const [, each, eachHash] of [[undefined, digester, hash], otherMode] as const) {
            expect(outcomeOf(() => each.requestDigest(input as never))).toEqual(
              expected(eachHash, { domain: DIGEST_DOMAINS.request, ...input }),
            );
            expect(outcomeOf(() => each.callBindingDigest(binding as never))).toEqual(
              expected(eachHash, { domain: DIGEST_DOMAINS.callBinding, ...binding }),
            );
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('digestTagged, string members and any others', () => {
    const key = fc.oneof(anyText, fc.constantFrom('__proto__', 'domaim', 'domain ', 'Domain', 'entry', 'previous_hash', ''));
    fc.assert(
      fc.property(
        anyText.filter((domain) => domain.length > 0),
        fc.uniqueArray(fc.tuple(key, fc.oneof({ weight: 6, arbitrary: anyText }, json)), {
          selector: ([name]) => name,
          maxLength: 6,
        }),
        (domain, entries) => {
          const fields = Object.fromEntries(entries.filter(([name]) => name !== 'domain'));
          expect(outcomeOf(() => digester.digestTagged(domain, fields))).toEqual(expected(hash, { domain, ...fields }));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('digestTagged refuses symbol-keyed and non-enumerable members as canonicalize refuses them, never leaving one out', () => {
    // Expected: what canonicalize says of the same object, at the tagged object's path ''.
    const withSymbol = { entry: 'x', [Symbol('hidden')]: 'y' };
    const withHiddenSymbol = Object.defineProperty({ entry: 'x' }, Symbol('hidden'), { value: 'y', enumerable: false });
    const withHidden = Object.defineProperty({ entry: 'x' }, 'previous_hash', { value: 'y', enumerable: false });
    // Every member a string (the direct path) and one that is not (the general path).
    const withHiddenObject = Object.defineProperty({ entry: { a: 1 } }, 'hidden', { value: 'y', enumerable: false });
    for (const fields of [withSymbol, withHiddenSymbol, withHidden, withHiddenObject]) {
      expect(outcomeOf(() => canonicalize(fields))).toEqual({ reason: 'unsupported_type', path: '' });
      expect(outcomeOf(() => digester.digestTagged('x.v1', fields))).toEqual({ reason: 'unsupported_type', path: '' });
    }
  });

  it('resultDigestFromCanonical and digestText check the whole text for lone surrogates', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const wellFormed = !/\p{Cs}/u.test(text);
        const fromCanonical = outcomeOf(() => digester.resultDigestFromCanonical(text));
        const direct = outcomeOf(() => digester.digestText(text));
        if (wellFormed) {
          expect(fromCanonical).toEqual({ digest: hash(`{"domain":"toolseal.result.v1","model_result":${text}}`) });
          expect(direct).toEqual({ digest: hash(text) });
        } else {
          expect(fromCanonical).toEqual({ reason: 'lone_surrogate', path: '' });
          expect(direct).toEqual({ reason: 'lone_surrogate', path: '' });
        }
      }),
    );
  });
});
