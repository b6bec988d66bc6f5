// What the host has in scope where a README example leaves it out ("The host's, set up once"),
// declared with the packages' own types so that the example is checked against them. Written
// before the example's code in the file the type check reads; type queries (`import('...')`), not
// imports, so that no name collides with the example's own imports.

const DISPATCHER_SETUP = `
declare const registry: import('@toolseal/dispatcher').DispatcherOptions['registry'];
declare const tools: import('@toolseal/dispatcher').DispatcherOptions['tools'];
declare const stores: import('@toolseal/dispatcher').DispatcherOptions['stores'];
declare const digester: import('@toolseal/dispatcher').DispatcherOptions['digester'];
declare const principal: import('@toolseal/contracts').PrincipalContext;
`;

const VITEST_IT = `declare const it: typeof import('vitest').it;\n`;

/** Declarations an example needs, by example key (`readme#index`). */
export const EXAMPLE_CONTEXTS: Readonly<Record<string, string>> = {
  'packages/adapter-openai/README.md#1': `${DISPATCHER_SETUP}declare const toolDefinitions: import('openai').OpenAI.Responses.Tool[];\n`,
  'packages/adapter-anthropic/README.md#1': `${DISPATCHER_SETUP}declare const toolDefinitions: import('@anthropic-ai/sdk').Anthropic.Messages.ToolUnion[];\n`,
  'packages/adapter-gemini/README.md#1': `${DISPATCHER_SETUP}declare const toolDefinitions: import('@google/genai').Interactions.Tool[];\n`,
  // The second block continues the first one's file with Gemini: its imports and a response builder.
  'packages/adapter-testing/README.md#2': `${VITEST_IT}
import { adapterConformanceCases, otherFieldsAsText, type ConformanceCall } from '@toolseal/adapter-testing';
import { createGeminiInteractionsAdapter } from '@toolseal/adapter-gemini';
declare function interaction(id: string, steps: readonly unknown[], status: string): import('@google/genai').Interactions.Interaction;
`,
  'packages/audit/README.md#2': `
declare const auditLog: import('@toolseal/audit').AuditLog;
declare let saved: import('@toolseal/audit').AuditHead;
`,
  'packages/audit/README.md#3': `${VITEST_IT}
declare function openMyStores(
  options: { clock: import('@toolseal/audit').Clock; digester: import('@toolseal/digests').Digester; logId?: string },
): Promise<{ auditLog: import('@toolseal/audit').AuditLog; idempotencyStore: import('@toolseal/audit').IdempotencyStore; close(): Promise<void> }>;
declare const myRawRowAccess: import('@toolseal/audit').AuditTamper;
`,
};

/** Packages whose examples call a provider over the network: type-checked, never run. */
export const PROVIDER_SDKS: readonly string[] = ['openai', '@anthropic-ai/sdk', '@google/genai'];
