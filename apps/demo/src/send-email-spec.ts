import type { ToolSpec } from '@toolseal/result';

/**
 * The demo's fourth tool: a write that sends one email through the (simulated) outbox. Its input
 * contract is exact; what may be sent to whom is the trusted email policy's business
 * (`email-policy.ts`), and every send needs a person's approval of the exact request.
 * Revisions and names are fabricated.
 */
export const SEND_EMAIL_SPEC: ToolSpec = {
  contract: {
    tool_name: 'send_email',
    effect: 'write',
    input_revision: 'send-email-input-v1',
    output_revision: 'send-email-output-v1',
    effect_revision: 'send-email-effect-v1',
    handler_revision: 'outbox-handler-v1',
    producer_revision: 'outbox-mock-v1',
    policy_revision: 'email-policy-v1',
  },
  source_label: 'outbox',
  input_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['to', 'subject', 'body'],
    properties: {
      to: { type: 'string', minLength: 3, maxLength: 254, format: 'email' },
      subject: { type: 'string', minLength: 1, maxLength: 120 },
      body: { type: 'string', minLength: 1, maxLength: 2000 },
    },
  },
  output_schema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    required: ['message_ref', 'to'],
    properties: {
      message_ref: { type: 'string', minLength: 1, maxLength: 48, pattern: '^MSG-[A-Z0-9-]{1,40}$' },
      to: { type: 'string', minLength: 3, maxLength: 254 },
    },
  },
  echo: { '/to': '/to' },
  limits: { maxBytes: 1024, maxDepth: 1, maxArrayItems: 1, maxObjectKeys: 4, maxStringLength: 254, maxTotalNodes: 8 },
  resource_revision: { pattern: '^outbox-r[0-9]{1,9}$' },
};
