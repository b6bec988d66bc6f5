import { deepFreeze } from '@toolseal/guard';

/**
 * "Identifiers are bounded strings" (spec 002): printable ASCII without the space, so an id a
 * model writes cannot carry controls (NUL), zero-width or bidirectional marks, or look-alike
 * letters to the host's order lookup, and its 64 characters are 64 bytes.
 */
const IDENTIFIER = '^[\\x21-\\x7e]+$';

/**
 * The refund proposal contract of spec 002 ("Write a bounded structural contract"), JSON Schema
 * 2020-12. The same object is kept as `fixtures/proposal/refund-proposal.schema.json`; a test fails
 * when they drift. Unknown properties are rejected at both levels, so a model cannot add
 * `approved`, `tenant_id` or `role`.
 */
export const REFUND_PROPOSAL_SCHEMA = deepFreeze({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:toolseal:proposal:refund:v1',
  title: 'Refund proposal (specification 002)',
  description:
    'A bounded structural contract for a model\'s refund proposal. Passing it proves shape only: ownership, state and amounts are checked separately against trusted facts.',
  type: 'object',
  additionalProperties: false,
  required: ['order_id', 'amount', 'unit', 'lines'],
  properties: {
    order_id: { type: 'string', minLength: 1, maxLength: 64, pattern: IDENTIFIER },
    amount: { type: 'integer', minimum: 1, maximum: 10000 },
    unit: { type: 'string', enum: ['CREDIT_A', 'CREDIT_B'] },
    lines: {
      type: 'array',
      minItems: 1,
      maxItems: 4,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['line_id', 'quantity'],
        properties: {
          line_id: { type: 'string', minLength: 1, maxLength: 64, pattern: IDENTIFIER },
          quantity: { type: 'integer', minimum: 1, maximum: 10 },
        },
      },
    },
  },
} as const);

/** The contract id the refund validator records. */
export const REFUND_PROPOSAL_CONTRACT_ID = 'refund-proposal.v1';
