import type { ErrorCode } from '@toolseal/contracts';
import { ERROR_CATALOG, ERROR_CODES, type CatalogEntry } from './catalog.js';

/** The catalog as plain data, as published in `schemas/error-catalog.json`. */
export interface ErrorCatalogDocument {
  /** Stable identifier of the document. */
  $id: 'https://toolseal.dev/schemas/error-catalog.json';
  /** Bumped whenever a row changes meaning. */
  catalog_version: 1;
  /** Every code, in catalog order. */
  codes: CatalogEntry[];
}

/** Builds the language-neutral catalog document (for `schemas/error-catalog.json`). */
export function errorCatalogDocument(): ErrorCatalogDocument {
  return {
    $id: 'https://toolseal.dev/schemas/error-catalog.json',
    catalog_version: 1,
    codes: ERROR_CODES.map((code: ErrorCode) => {
      const entry = ERROR_CATALOG[code];
      return { ...entry, retry_after: { ...entry.retry_after }, reason_rules: [...entry.reason_rules] };
    }),
  };
}
