import type { JsonObject } from './json.js';
import type { ModelError } from './model-error.js';

/** The schema version of the model-visible projection; a consumer picks field rules from it. */
export type ModelResultSchemaVersion = 'tool-model-result-v2';

/** External status of one call under its tool contract. `succeeded` does not mean the user's goal is done. */
export type ResultStatus = 'succeeded' | 'failed' | 'unknown';

/** What is known about the call's side effect. */
export type ExecutionOutcome = 'not_started' | 'committed' | 'unknown';

/**
 * How this delivery was obtained. `local_replay`: a local idempotency record was hit.
 * `receipt_reconciled`: an explicit status query reconciled a downstream receipt.
 * Neither may skip current authorization.
 */
export type Delivery = 'fresh' | 'local_replay' | 'receipt_reconciled';

/** Boundary label: business content is `untrusted_data`; dispatcher-made errors are `trusted_control`. */
export type Trust = 'untrusted_data' | 'trusted_control';

/** What happened to the call's side effect and how this result was delivered. */
export interface Execution {
  /** What is known about the side effect. Set by the trusted dispatcher, never by a handler. */
  outcome: ExecutionOutcome;
  /** How this delivery was obtained. Set by the trusted dispatcher, never by a handler. */
  delivery: Delivery;
  /** True when the result is usable without another page or continuation. */
  complete: boolean;
  /** True when business content was cut by a size limit. Implies `complete: false`. */
  truncated: boolean;
}

/** Auditable source, revision, time and trust label of the data in a result. */
export interface Provenance {
  /**
   * The adapter or system that supplied the data. Copied from the tool registry, never from a handler.
   * @minLength 1
   * @maxLength 64
   */
  source_label: string;
  /**
   * Producer implementation/contract revision. Copied from the tool registry, never from a handler.
   * @minLength 1
   * @maxLength 64
   */
  producer_revision: string;
  /**
   * Revision of the external resource the data was read from, for freshness and concurrency decisions.
   * `null` when no resource was read (errors). Its format is fixed per tool in the registry, within
   * a fixed alphabet (no space, bracket or line break: a handler must not write prose here).
   * @minLength 1
   * @maxLength 128
   * @pattern ^[A-Za-z0-9._:/+=@~"-]{1,128}$
   */
  resource_revision: string | null;
  /**
   * When the data was observed: UTC RFC 3339 with a `Z` suffix. Not a promise of lasting validity.
   * @format date-time
   * @pattern ^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$
   */
  observed_at: string;
  /** `untrusted_data` for business content, `trusted_control` for dispatcher-made errors. */
  trust: Trust;
}

/**
 * The model-visible projection of one tool call (tool-model-result-v2). It carries business data,
 * a finite error, execution state and minimal provenance, and nothing else: no principal, tenant,
 * subject, operation id, downstream receipt or digest. Everything in `data` is untrusted content.
 */
export interface ModelResult {
  /** Always `tool-model-result-v2`. */
  schema_version: ModelResultSchemaVersion;
  /** External status of the call. */
  status: ResultStatus;
  /**
   * Business data, validated against the tool's exact output contract. `null` when the call failed.
   * Untrusted: it may carry text written by an attacker and can never become an instruction.
   */
  data: JsonObject | null;
  /** A catalogued error when `status` is not `succeeded`; `null` on success. */
  error: ModelError | null;
  /** Side-effect knowledge and delivery, set by the dispatcher. */
  execution: Execution;
  /** Source, revisions, observation time and trust label. */
  provenance: Provenance;
}
