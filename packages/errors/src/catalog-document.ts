import type { ErrorCode } from '@toolseal/contracts';
import { ERROR_CATALOG, ERROR_CODES, type CatalogEntry } from './catalog.js';

/**
 * The catalog as plain data, as published in `schemas/error-catalog.json`: a data document beside
 * the schemas, not a schema (no `$id` or `$schema` member, so a validator given every file there
 * cannot register it as a schema that accepts anything).
 */
export interface ErrorCatalogDocument {
  /** Stable identifier of the document. */
  catalog_id: 'https://toolseal.dev/catalogs/error-catalog.json';
  /** Bumped whenever a row changes meaning. */
  catalog_version: 1;
  /** Every code, in catalog order. */
  codes: CatalogEntry[];
}

/** Builds the language-neutral catalog document (for `schemas/error-catalog.json`). */
export function errorCatalogDocument(): ErrorCatalogDocument {
  return {
    catalog_id: 'https://toolseal.dev/catalogs/error-catalog.json',
    catalog_version: 1,
    codes: ERROR_CODES.map((code: ErrorCode) => {
      const entry = ERROR_CATALOG[code];
      return { ...entry, retry_after: { ...entry.retry_after }, reason_rules: [...entry.reason_rules] };
    }),
  };
}
