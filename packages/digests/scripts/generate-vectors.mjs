// Writes fixtures/digests/vectors.json: inputs, canonical texts and expected digests (plain
// SHA-256 and HMAC-SHA-256 under a published test key) for every digest function, so another
// implementation can reproduce them. Run `pnpm --filter @toolseal/digests vectors` (it builds
// first). `src/digest-vectors.test.ts` checks the code against the file; regenerate only on a
// deliberate change of a digest definition, and say so in the changeset.
import { writeFileSync } from 'node:fs';
import { canonicalize, createDigester, DIGEST_DOMAINS } from '../dist/index.js';
import { nodeCryptoBackend } from '../dist/node.js';

// A PUBLIC test key: bytes 0x00..0x1f. Never use it for anything but these vectors.
const TEST_KEY = Uint8Array.from({ length: 32 }, (_, index) => index);
const plain = createDigester();
const keyed = createDigester({ key: TEST_KEY });
// Cross-check: the node:crypto backend must agree with the default one on every vector.
const plainNode = createDigester({ backend: nodeCryptoBackend });
const keyedNode = createDigester({ backend: nodeCryptoBackend, key: TEST_KEY });

const successResult = {
  schema_version: 'tool-model-result-v2',
  status: 'succeeded',
  data: { order_ref: 'ORDER-7', status: 'paid' },
  error: null,
  execution: { outcome: 'committed', delivery: 'fresh', complete: true, truncated: false },
  provenance: {
    source_label: 'orders',
    producer_revision: 'orders-mock-v2',
    resource_revision: 'order-7-r3',
    observed_at: '2026-07-19T00:00:00Z',
    trust: 'untrusted_data',
  },
};
const failureResult = {
  schema_version: 'tool-model-result-v2',
  status: 'failed',
  data: null,
  error: {
    code: 'INVALID_ARGUMENTS',
    category: 'input',
    safe_message: 'The arguments do not match the tool contract.',
    recovery: 'correct_input',
    retry_after_ms: null,
    reasons: [{ field: '/amount/value', rule: 'maximum' }],
  },
  execution: { outcome: 'not_started', delivery: 'fresh', complete: true, truncated: false },
  provenance: {
    source_label: 'dispatcher',
    producer_revision: 'dispatcher-v1',
    resource_revision: null,
    observed_at: '2026-07-19T00:00:00.125Z',
    trust: 'trusted_control',
  },
};
const readRequest = {
  tenant_id: 'acme',
  subject_id: 'user-42',
  tool_name: 'get_order',
  arguments: { order_ref: 'ORDER-7' },
  input_revision: 'get-order-in-1',
  output_revision: 'get-order-out-2',
  effect_revision: 'get-order-fx-1',
};
// Exercises key order (code units: "10" < "2", "B" < "a", "\u00e9" < "\ud83d\ude00" < "\uffff"),
// number forms, escapes and non-ASCII text.
const writeRequest = {
  tenant_id: 'Zoë GmbH',
  subject_id: '用户-7',
  tool_name: 'create_refund_draft',
  arguments: {
    order_ref: 'ORDER-7',
    lines: [
      { line_id: 'L2', quantity: 1 },
      { line_id: 'L1', quantity: 2 },
    ],
    amount: { value: 12.5, currency: 'EUR', minor_units: 1250 },
    numbers: [0, -1, 0.1, 1e21, 1e-7, 333333333.3333333, -1.5e-10, 9007199254740991],
    note: 'Line one\nTab\tQuote" Backslash\\ Control\u0001 Emoji 😀',
    keys: { 2: 'two', 10: 'ten', a: 'a', B: 'B', é: 'e-acute', '😀': 'emoji', '\uffff': 'max-bmp', '': 'empty' },
    flags: { dry_run: false, urgent: true, parent: null },
  },
  input_revision: 'refund-in-3',
  output_revision: 'refund-out-2',
  effect_revision: 'refund-fx-1',
};
const refundContract = {
  tool_name: 'create_refund_draft',
  effect: 'write',
  input_revision: 'refund-in-3',
  output_revision: 'refund-out-2',
  effect_revision: 'refund-fx-1',
  handler_revision: 'refund-handler-5',
  producer_revision: 'payments-v7',
  policy_revision: 'refund-policy-2',
};
const orderContract = {
  tool_name: 'get_order',
  effect: 'read',
  input_revision: 'get-order-in-1',
  output_revision: 'get-order-out-2',
  effect_revision: 'get-order-fx-1',
  handler_revision: 'get-order-handler-3',
  producer_revision: 'orders-mock-v2',
  policy_revision: 'read-policy-1',
};

const tagged = (domain, fields) => canonicalize({ domain, ...fields });

const specs = [
  {
    name: 'principal_ref_ascii',
    function: 'principalRef',
    input: { tenant_id: 'acme', subject_id: 'user-42' },
    text: (input) => tagged(DIGEST_DOMAINS.principalRef, input),
  },
  {
    name: 'principal_ref_unicode',
    function: 'principalRef',
    input: { tenant_id: 'Zoë GmbH', subject_id: '用户-7 😀' },
    text: (input) => tagged(DIGEST_DOMAINS.principalRef, input),
  },
  {
    name: 'request_read',
    function: 'requestDigest',
    input: readRequest,
    text: (input) => tagged(DIGEST_DOMAINS.request, input),
  },
  {
    name: 'request_write_sorting_numbers_escapes',
    function: 'requestDigest',
    input: writeRequest,
    text: (input) => tagged(DIGEST_DOMAINS.request, input),
  },
  {
    name: 'result_succeeded',
    function: 'resultDigest',
    input: successResult,
    text: (input) => tagged(DIGEST_DOMAINS.result, { model_result: input }),
  },
  {
    name: 'result_failed',
    function: 'resultDigest',
    input: failureResult,
    text: (input) => tagged(DIGEST_DOMAINS.result, { model_result: input }),
  },
  {
    name: 'result_from_canonical_text',
    function: 'resultDigestFromCanonical',
    input: canonicalize(successResult),
    text: (input) => `{"domain":"${DIGEST_DOMAINS.result}","model_result":${input}}`,
  },
  {
    name: 'call_binding_write',
    function: 'callBindingDigest',
    input: {
      provider: 'openai',
      api_family: 'responses',
      response_id: 'resp_68a1',
      call_id: 'call_Xy12',
      operation_id: 'op_0001',
      idempotency_key: 'idem-7f3a',
      adapter_revision: 'openai-responses-v1',
      tool_contract: refundContract,
      request_sha256: plain.requestDigest(writeRequest),
      result_sha256: plain.resultDigest(successResult),
    },
    text: (input) => tagged(DIGEST_DOMAINS.callBinding, input),
  },
  {
    name: 'call_binding_read_without_idempotency_key',
    function: 'callBindingDigest',
    input: {
      provider: 'anthropic',
      api_family: 'messages',
      response_id: 'msg_01',
      call_id: 'toolu_01',
      operation_id: 'op_0002',
      idempotency_key: null,
      adapter_revision: 'anthropic-messages-v1',
      tool_contract: orderContract,
      request_sha256: plain.requestDigest(readRequest),
      result_sha256: plain.resultDigest(successResult),
    },
    text: (input) => tagged(DIGEST_DOMAINS.callBinding, input),
  },
  { name: 'text_empty', function: 'digestText', input: '', text: (input) => input },
  { name: 'text_unicode', function: 'digestText', input: 'Zoë 😀\n', text: (input) => input },
  {
    name: 'tagged_custom_domain',
    function: 'digestTagged',
    input: { domain: 'example.custom.v1', fields: { z: [3, 2, 1], a: { y: true, x: null } } },
    text: (input) => tagged(input.domain, input.fields),
  },
];

function call(digester, spec) {
  switch (spec.function) {
    case 'digestTagged':
      return digester.digestTagged(spec.input.domain, spec.input.fields);
    default:
      return digester[spec.function](spec.input);
  }
}

const vectors = specs.map((spec) => {
  const canonicalText = spec.text(spec.input);
  const sha256 = call(plain, spec);
  const hmacSha256 = call(keyed, spec);
  if (sha256 !== plain.digestText(canonicalText) || hmacSha256 !== keyed.digestText(canonicalText)) {
    throw new Error(`${spec.name}: digest is not the hash of its canonical text`);
  }
  if (sha256 !== call(plainNode, spec) || hmacSha256 !== call(keyedNode, spec)) {
    throw new Error(`${spec.name}: backends disagree`);
  }
  return { name: spec.name, function: spec.function, input: spec.input, canonical_text: canonicalText, sha256, hmac_sha256: hmacSha256 };
});

const file = {
  description:
    'Digest test vectors for @toolseal/digests. Each digest is SHA-256 (plain mode) or HMAC-SHA-256 under test_key_hex (keyed mode) over the UTF-8 bytes of canonical_text, which is the RFC 8785 canonical JSON of {"domain": <tag>, ...fields}. Digests are lowercase hex. For digestText the canonical text is the input itself; for digestTagged the input is {domain, fields}.',
  generator: 'packages/digests/scripts/generate-vectors.mjs',
  test_key_hex: Buffer.from(TEST_KEY).toString('hex'),
  test_key_note: 'PUBLIC test key for these vectors only. A real deployment keeps its key secret.',
  domains: DIGEST_DOMAINS,
  vectors,
};

const target = new URL('../../../fixtures/digests/vectors.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`);
console.log(`wrote ${vectors.length} vectors to ${target.pathname}`);
