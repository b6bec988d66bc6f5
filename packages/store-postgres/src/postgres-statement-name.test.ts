import { describe, expect, it } from 'vitest';
import { postgresStatementName } from './postgres-statement-name.js';

/** The names `openPostgresStores` prepares, plus a few that are prefixes of others. */
const STATEMENTS = [
  'select_record',
  'insert_record',
  'update_record',
  'purge_records',
  'insert_audit',
  'select_head',
  'select_audit_at',
  'select_audit_page',
  'select',
  'select_audit',
  'audit_page',
];

describe('postgresStatementName', () => {
  it('keeps the schema itself when the name fits: schemas whose former 32-bit tags collided get different names', () => {
    // tenant_229599 and tenant_432382 shared the 32-bit FNV-1a tag of the former names.
    expect(postgresStatementName('tenant_229599', 'select_record')).toBe('toolseal:tenant_229599:select_record');
    expect(postgresStatementName('tenant_432382', 'select_record')).toBe('toolseal:tenant_432382:select_record');
  });

  it('fills the 63 bytes with a 36-character schema and the longest statement', () => {
    const name = postgresStatementName('b'.repeat(36), 'select_audit_page');
    expect(name).toBe(`toolseal:${'b'.repeat(36)}:select_audit_page`);
    expect(Buffer.byteLength(name)).toBe(63);
  });

  it('names a schema too long to fit by the first 32 hex digits of its SHA-256 (expected digests from sha256sum)', () => {
    expect(postgresStatementName('b'.repeat(37), 'select_audit_page')).toBe('toolseal#ecf7e0002ff9bd5969b394c349c1b17e:select_audit_page');
    expect(postgresStatementName('a'.repeat(63), 'select_record')).toBe('toolseal#7d3e74a05d7db15bce4ad9ec0658ea98:select_record');
    // Per statement: a shorter statement keeps the plain form for a longer schema.
    expect(postgresStatementName('b'.repeat(37), 'select_head')).toBe(`toolseal:${'b'.repeat(37)}:select_head`);
  });

  it('gives every (schema, statement) pair its own name, never over 63 bytes', () => {
    const schemas = new Set<string>(['_', '__', 'a', 'a_', 'a_select', 'a_select_audit', 'select', 'toolseal', 'tenant_229599', 'tenant_432382']);
    for (let length = 1; length <= 63; length += 1) {
      schemas.add('a'.repeat(length));
      schemas.add(`${'a'.repeat(length - 1)}b`);
      schemas.add(`${'a'.repeat(length - 1)}_`);
      schemas.add(`_${'9'.repeat(length - 1)}`);
    }
    const names = new Map<string, string>();
    for (const schema of schemas) {
      for (const statement of STATEMENTS) {
        const name = postgresStatementName(schema, statement);
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
        const pair = `${schema} ${statement}`;
        expect(names.get(name) ?? pair).toBe(pair);
        names.set(name, pair);
      }
    }
    expect(names.size).toBe(schemas.size * STATEMENTS.length);
  });

  it('refuses a schema that is not a plain identifier and a statement name that cannot fit', () => {
    expect(() => postgresStatementName('a:b', 'select_record')).toThrow(RangeError);
    expect(() => postgresStatementName('a'.repeat(64), 'select_record')).toThrow(RangeError);
    expect(Buffer.byteLength(postgresStatementName('a'.repeat(63), 'x'.repeat(21)))).toBe(63);
    expect(() => postgresStatementName('tenant', 'x'.repeat(22))).toThrow(RangeError);
    expect(() => postgresStatementName('tenant', 'select:record')).toThrow(RangeError);
  });
});
