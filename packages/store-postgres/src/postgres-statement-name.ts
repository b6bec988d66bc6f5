import { createHash } from 'node:crypto';
import { quoteSchemaName } from './postgres-migrations.js';

/**
 * The longest prepared statement name PostgreSQL keeps: NAMEDATALEN - 1 bytes. The server cuts a
 * longer name to this length without an error, so two names sharing their first 63 bytes would
 * be one statement (https://www.postgresql.org/docs/current/sql-syntax-lexical.html#SQL-SYNTAX-IDENTIFIERS).
 */
const MAX_NAME_BYTES = 63;
/** Hex digits of SHA-256(schema) in a hashed name: 128 bits. */
const HASH_HEX_DIGITS = 32;
/** Statement names are constants of this package; 21 characters is what a hashed name leaves. */
const STATEMENT = /^[a-z][a-z_]{0,20}$/;

/**
 * The name under which the stores prepare `statement` for `schema` (pg prepares a named
 * statement once per connection). One pool, and so one connection, may serve several schemas,
 * and pg refuses a name already prepared on that connection for another text, so the name must
 * tell schemas apart exactly:
 *
 * - `toolseal:<schema>:<statement>` when that fits in 63 bytes (schemas up to 36 characters for
 *   the longest statement): the schema itself, so no two schemas can share it. Neither part
 *   contains `:`, so the name splits back into exactly one pair.
 * - otherwise `toolseal#<first 32 hex digits of SHA-256(schema)>:<statement>`. A truncated hash is
 *   the only way a 63-character schema fits, and it differs from every name of the first form at
 *   its ninth character; two long schemas share it only if their SHA-256 digests agree in their
 *   first 128 bits.
 */
export function postgresStatementName(schema: string, statement: string): string {
  quoteSchemaName(schema);
  if (!STATEMENT.test(statement)) throw new RangeError(`statement name must match ${STATEMENT.source}`);
  const plain = `toolseal:${schema}:${statement}`;
  // Schema and statement are ASCII (checked above): one byte per character.
  if (plain.length <= MAX_NAME_BYTES) return plain;
  const digest = createHash('sha256').update(schema).digest('hex').slice(0, HASH_HEX_DIGITS);
  return `toolseal#${digest}:${statement}`;
}
