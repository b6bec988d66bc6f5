export { createDispatcher } from './create-dispatcher.js';
export type {
  Dispatcher,
  DispatcherOptions,
  DispatcherStores,
  DispatchContext,
  DispatchedCall,
  DispatchedTurn,
  DispatchGate,
  AuditPosition,
} from './dispatch-types.js';
export type {
  DispatcherTool,
  ToolHandler,
  HandlerInput,
  HandlerOutcome,
  HandlerError,
  HandlerErrorCode,
  ToolInvocation,
  TrustedCheck,
  TrustedCheckOutcome,
  StatusQuery,
  StatusQueryInput,
  StatusQueryOutcome,
  ProposalGate,
  RateLimit,
} from './dispatcher-tool.js';
export { matchApproval, type Approval, type ApprovalRequest, type ApprovalMatch } from './approval.js';
export { DispatcherConfigError } from './dispatcher-config-error.js';
export { MAX_DEADLINE_MS, MAX_WRITE_OUTPUT_BYTES } from './compile-dispatcher-tools.js';
export { CLOCK_RESYNC_MS } from './dispatcher-clock.js';
