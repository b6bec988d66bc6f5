import { canonicalize, createDigester, rememberCanonicalText } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_CHAIN_DOMAIN,
  AUDIT_CHAIN_DOMAIN_V1,
  AUDIT_ENTRY_SCHEMA_VERSION,
  AUDIT_ENTRY_SCHEMA_VERSION_V1,
  auditEntryFromRow,
  auditEntryWithBody,
  canonicalAuditRecord,
  computeAuditEntryHash,
  formatRecordedAt,
  GENESIS_HASH,
  prepareAuditEntry,
  sealAuditEntry,
} from './seal-audit-entry.js';
import { StoreInputError } from './store-input-error.js';
import type { JsonObject } from '@toolseal/contracts';

// Identifiers with every escape JSON has (quote, reverse solidus, controls) and astral characters.
const tricky = fc.constantFrom('"', '\\', '\n', '\u0001', '\u001f', '\u007f', '\u2028', 'é', '😀', '-', 'a');
const identifier = fc.option(
  fc
    .oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.string({ unit: tricky, minLength: 1, maxLength: 20 }))
    .filter((text) => !text.includes('\u0000')),
  { nil: null },
);
const body = fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.jsonValue({ stringUnit: 'grapheme', maxDepth: 4 })) as fc.Arbitrary<JsonObject>;

describe('canonicalAuditRecord', () => {
  it('equals RFC 8785 canonicalization of the whole record (property)', () => {
    fc.assert(
      fc.property(
        body,
        identifier,
        identifier,
        identifier,
        fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 253_402_300_799_999 }),
        (entryBody, call_id, operation_id, idempotency_key, kind, sequence, epochMs) => {
          const prepared = prepareAuditEntry({ kind, call_id, operation_id, idempotency_key, body: entryBody });
          const recorded_at = formatRecordedAt(epochMs);
          const text = canonicalAuditRecord(prepared, { sequence, recorded_at, previous_hash: GENESIS_HASH });
          expect(text).toBe(
            canonicalize({
              body: entryBody,
              call_id,
              idempotency_key,
              kind,
              operation_id,
              recorded_at,
              schema_version: AUDIT_ENTRY_SCHEMA_VERSION,
              sequence,
            }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('sealAuditEntry', () => {
  const prepared = prepareAuditEntry({ kind: 'approval', call_id: 'call-1', operation_id: 'op-1', idempotency_key: null, body: { a: 1 } });
  const position = { sequence: 7, recorded_at: '2026-07-19T00:00:00.000Z', previous_hash: 'c'.repeat(64) };

  it('hashes the domain, the previous hash and the canonical text', () => {
    const digester = createDigester();
    const row = sealAuditEntry(prepared, position, digester);
    expect(row.entry_hash).toBe(
      digester.digestText(
        canonicalize({ domain: AUDIT_CHAIN_DOMAIN, entry: JSON.parse(row.canonical) as unknown, previous_hash: position.previous_hash }),
      ),
    );
    expect(row).toMatchObject({ sequence: 7, kind: 'approval', call_id: 'call-1', operation_id: 'op-1', idempotency_key: null });
  });

  it('changes the hash with the key, the previous hash, the sequence and any body byte', () => {
    const digester = createDigester();
    const base = sealAuditEntry(prepared, position, digester).entry_hash;
    const keyed = sealAuditEntry(prepared, position, createDigester({ key: new Uint8Array(32).fill(1) })).entry_hash;
    const otherPrevious = sealAuditEntry(prepared, { ...position, previous_hash: 'd'.repeat(64) }, digester).entry_hash;
    const otherSequence = sealAuditEntry(prepared, { ...position, sequence: 8 }, digester).entry_hash;
    const otherBody = sealAuditEntry(prepareAuditEntry({ kind: 'approval', call_id: 'call-1', operation_id: 'op-1', idempotency_key: null, body: { a: 2 } }), position, digester).entry_hash;
    expect(new Set([base, keyed, otherPrevious, otherSequence, otherBody]).size).toBe(5);
  });

  it('round-trips through auditEntryFromRow', () => {
    const row = sealAuditEntry(prepared, position, createDigester());
    expect(auditEntryFromRow(row)).toEqual({ ...row, body: { a: 1 } });
  });

  it('gives the appended entry with the body in hand, equal to the entry parsed back from the row', () => {
    const row = sealAuditEntry(prepared, position, createDigester());
    const entry = auditEntryWithBody(row, prepared.body);
    expect(entry.body).toBe(prepared.body);
    expect(entry).toEqual(auditEntryFromRow(row));
  });
});

describe('computeAuditEntryHash', () => {
  // Any UTF-16 code unit, lone surrogates included: stored text may have been tampered with.
  const anyText = fc.oneof(
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)), maxLength: 30 }),
    fc.string({ unit: tricky, maxLength: 30 }),
  );
  const outcome = (run: () => string): string => {
    try {
      return run();
    } catch (error) {
      return `throws ${(error as Error).name}: ${(error as Error).message}`;
    }
  };

  const digesters = [createDigester(), createDigester({ key: new Uint8Array(32).fill(9) })];
  const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });

  it('version 2: equals digestTagged over { entry: the record object, previous_hash }, plain and keyed (property)', () => {
    fc.assert(
      fc.property(body, fc.oneof(hex64, anyText), (record, previousHash) => {
        const canonical = canonicalize(record);
        for (const digester of digesters) {
          expect(outcome(() => computeAuditEntryHash(digester, previousHash, canonical, AUDIT_ENTRY_SCHEMA_VERSION))).toBe(
            outcome(() => digester.digestTagged(AUDIT_CHAIN_DOMAIN, { entry: record, previous_hash: previousHash })),
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('version 2 embeds the record as an object: no second, escaped copy of it', () => {
    const digester = createDigester();
    const canonical = canonicalize({ body: { quote: '"' }, sequence: 1 });
    expect(computeAuditEntryHash(digester, GENESIS_HASH, canonical, AUDIT_ENTRY_SCHEMA_VERSION)).toBe(
      digester.digestText(`{"domain":"toolseal.audit_chain.v2","entry":${canonical},"previous_hash":"${GENESIS_HASH}"}`),
    );
    expect(computeAuditEntryHash(digester, GENESIS_HASH, canonical, AUDIT_ENTRY_SCHEMA_VERSION_V1)).toBe(
      digester.digestText(`{"domain":"toolseal.audit_chain.v1","entry":${JSON.stringify(canonical)},"previous_hash":"${GENESIS_HASH}"}`),
    );
  });

  it('version 1 (entries written before version 2): equals digestTagged over { entry: the text, previous_hash }, and throws where it throws (property)', () => {
    fc.assert(
      fc.property(anyText, anyText, (canonical, previousHash) => {
        for (const digester of digesters) {
          expect(outcome(() => computeAuditEntryHash(digester, previousHash, canonical, AUDIT_ENTRY_SCHEMA_VERSION_V1))).toBe(
            outcome(() => digester.digestTagged(AUDIT_CHAIN_DOMAIN_V1, { entry: canonical, previous_hash: previousHash })),
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it('the two versions never give the same link, and an unknown version throws', () => {
    const digester = createDigester();
    const canonical = canonicalize({ body: {}, sequence: 1 });
    expect(computeAuditEntryHash(digester, GENESIS_HASH, canonical, AUDIT_ENTRY_SCHEMA_VERSION)).not.toBe(
      computeAuditEntryHash(digester, GENESIS_HASH, canonical, AUDIT_ENTRY_SCHEMA_VERSION_V1),
    );
    expect(() => computeAuditEntryHash(digester, GENESIS_HASH, canonical, 'toolseal-audit-entry-v3')).toThrow(RangeError);
  });
});

describe('prepareAuditEntry', () => {
  const valid = { kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: {} };

  it('rejects malformed entries with StoreInputError naming the field', () => {
    const cases: Array<[unknown, string]> = [
      [{ ...valid, kind: 'Sealed' }, 'kind'],
      [{ ...valid, kind: 'a'.repeat(65) }, 'kind'],
      [{ ...valid, call_id: 5 }, 'call_id'],
      [{ ...valid, body: null }, 'body'],
      [{ ...valid, body: 'text' }, 'body'],
      [{ ...valid, body: { when: new Date(0) } }, 'body'],
      [{ ...valid, body: { nested: { deep: Number.POSITIVE_INFINITY } } }, 'body'],
      [{ ...valid, body: { ['\uDC00']: 1 } }, 'body'],
      [null, 'entry'],
    ];
    for (const [input, field] of cases) {
      let thrown: unknown;
      try {
        prepareAuditEntry(input as typeof valid);
      } catch (error) {
        thrown = error;
      }
      expect(StoreInputError.isInstance(thrown), JSON.stringify(input)).toBe(true);
      expect((thrown as StoreInputError).field).toBe(field);
    }
  });

  it('reads each field once: accessors answering differently per read get the value that was checked stored', () => {
    // Valid on the first read, not on any later one (the reviewer's kind that became 7 after the check).
    const reads: Record<string, number> = {};
    const firstBody = { stored: 'this' };
    const later: Record<string, unknown> = { kind: 7, call_id: 'nul\u0000', operation_id: '', idempotency_key: 42, body: { returned: 'that' } };
    const first: Record<string, unknown> = { kind: 'sealed_call', call_id: 'call-1', operation_id: null, idempotency_key: 'key-1', body: firstBody };
    const input = {};
    for (const field of Object.keys(first)) {
      reads[field] = 0;
      Object.defineProperty(input, field, {
        enumerable: true,
        get: () => ((reads[field] = (reads[field] ?? 0) + 1) === 1 ? first[field] : later[field]),
      });
    }
    const prepared = prepareAuditEntry(input as typeof valid);
    expect(reads).toEqual({ kind: 1, call_id: 1, operation_id: 1, idempotency_key: 1, body: 1 });
    expect(prepared).toEqual({
      kind: 'sealed_call',
      call_id: 'call-1',
      operation_id: null,
      idempotency_key: 'key-1',
      body: firstBody,
      bodyCanonical: '{"stored":"this"}',
    });
    // The returned entry carries the very object that was canonicalized.
    expect(prepared.body).toBe(firstBody);
    const row = sealAuditEntry(prepared, { sequence: 1, recorded_at: '2026-07-19T00:00:00.000Z', previous_hash: GENESIS_HASH }, createDigester());
    expect(auditEntryWithBody(row, prepared.body)).toEqual(auditEntryFromRow(row));

    // Invalid on the first read: refused, whatever later reads would answer.
    let kindReads = 0;
    const refused = { ...valid, get kind() { return (kindReads += 1) === 1 ? 'Sealed-Call' : 'sealed_call'; } };
    expect(() => prepareAuditEntry(refused)).toThrow(StoreInputError);
    expect(kindReads).toBe(1);
  });

  it('canonicalizes one reading of a body with accessors inside (each member is read once)', () => {
    let reads = 0;
    const body = {
      get amount() {
        reads += 1;
        return reads;
      },
      nested: { fixed: true },
    };
    const prepared = prepareAuditEntry({ ...valid, body: body as unknown as JsonObject });
    expect(reads).toBe(1);
    expect(prepared.bodyCanonical).toBe('{"amount":1,"nested":{"fixed":true}}');
    // The prepared body is the caller's object itself (not a copy): the stored record is the
    // canonical text, which a later read of the accessor no longer matches.
    expect(prepared.body).toBe(body);
    expect(canonicalize(prepared.body)).toBe('{"amount":2,"nested":{"fixed":true}}');
  });

  it('limits the canonical body size in UTF-8 bytes', () => {
    // 3 bytes per euro sign: {"text":"…"} with 350 of them is 1061 bytes, with 300 it is 911.
    expect(() => prepareAuditEntry({ ...valid, body: { text: '\u20ac'.repeat(350) } }, { maxBodyBytes: 1000 })).toThrow(/exceeds 1000 bytes/);
    expect(prepareAuditEntry({ ...valid, body: { text: '\u20ac'.repeat(300) } }, { maxBodyBytes: 1000 }).bodyCanonical).toHaveLength(311);
    // Exactly at the limit passes, one byte over does not (911 bytes for 300 euro signs).
    expect(prepareAuditEntry({ ...valid, body: { text: '\u20ac'.repeat(300) } }, { maxBodyBytes: 911 }).bodyCanonical).toHaveLength(311);
    expect(() => prepareAuditEntry({ ...valid, body: { text: '\u20ac'.repeat(300) } }, { maxBodyBytes: 910 })).toThrow(/exceeds 910 bytes/);
    // Astral characters: 4 bytes for 2 code units. {"t":"😀😀"} is 8 + 8 bytes.
    expect(prepareAuditEntry({ ...valid, body: { t: '😀😀' } }, { maxBodyBytes: 16 }).bodyCanonical).toBe('{"t":"😀😀"}');
    expect(() => prepareAuditEntry({ ...valid, body: { t: '😀😀' } }, { maxBodyBytes: 15 })).toThrow(/exceeds 15 bytes/);
  });
});

describe('formatRecordedAt', () => {
  it('gives fixed-width UTC RFC 3339 with milliseconds that sorts as text', () => {
    expect(formatRecordedAt(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(formatRecordedAt(Date.UTC(2026, 6, 19, 1, 2, 3, 4))).toBe('2026-07-19T01:02:03.004Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.integer({ min: 0, max: 253_402_300_799_999 }), (a, b) => {
        expect(formatRecordedAt(a) < formatRecordedAt(b)).toBe(a < b);
      }),
    );
    expect(() => formatRecordedAt(253_402_300_800_000)).toThrow(RangeError);
    expect(() => formatRecordedAt(-1)).toThrow(RangeError);
  });
});

describe('formatRecordedAt within one second and across seconds (the cached prefix)', () => {
  it('equals toISOString for runs of consecutive milliseconds and random times', () => {
    for (const start of [0, 999, 1_784_419_199_995, 253_402_300_799_990]) {
      for (let epochMs = start; epochMs < start + 10; epochMs++) {
        expect(formatRecordedAt(epochMs)).toBe(new Date(epochMs).toISOString());
      }
    }
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 253_402_300_799_999 }), { minLength: 1, maxLength: 8 }), (times) => {
        for (const epochMs of times) expect(formatRecordedAt(epochMs)).toBe(new Date(epochMs).toISOString());
      }),
    );
  });

  it('does not leave the cache behind on a refused time', () => {
    expect(formatRecordedAt(1_784_419_200_123)).toBe('2026-07-19T00:00:00.123Z');
    expect(() => formatRecordedAt(1_784_419_200_123.5)).toThrow(RangeError);
    expect(formatRecordedAt(1_784_419_200_124)).toBe('2026-07-19T00:00:00.124Z');
  });
});

describe('prepareAuditEntry with a remembered projection', () => {
  it('writes the text its builder remembered for a frozen projection in the body, instead of walking it', () => {
    const projection = Object.freeze({ b: 2, a: 1 });
    // Deliberately not the walk's text: shows which path ran (a builder must only remember the true one).
    rememberCanonicalText(projection, '{"a":1,"b":2,"remembered":true}', 1);
    const prepared = prepareAuditEntry({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { projection } });
    expect(prepared.bodyCanonical).toBe('{"projection":{"a":1,"b":2,"remembered":true}}');
    // An equal object nobody remembered is walked.
    const copy = prepareAuditEntry({ kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { projection: { ...projection } } });
    expect(copy.bodyCanonical).toBe('{"projection":{"a":1,"b":2}}');
  });

  it('refuses a body whose remembered text holds a raw NUL (no RFC 8785 text does), naming the body', () => {
    const projection = Object.freeze({ note: 'x' });
    rememberCanonicalText(projection, '{"note":"a\u0000b"}', 1);
    const entry = { kind: 'sealed_call', call_id: null, operation_id: null, idempotency_key: null, body: { projection } };
    expect(() => prepareAuditEntry(entry)).toThrow(StoreInputError);
    expect(() => prepareAuditEntry(entry)).toThrow(/body.*raw NUL/);
    // A lone surrogate in a remembered text is refused the same way.
    const lone = Object.freeze({ note: 'y' });
    rememberCanonicalText(lone, '{"note":"a\ud800b"}', 1);
    expect(() => prepareAuditEntry({ ...entry, body: { projection: lone } })).toThrow(/body.*lone surrogate/);
    // A walked NUL is escaped, and accepted.
    const walked = prepareAuditEntry({ ...entry, body: { note: 'a\u0000b' } });
    expect(walked.bodyCanonical).toBe('{"note":"a\\u0000b"}');
  });
});
