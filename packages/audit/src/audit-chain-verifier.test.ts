import { createDigester, type Digester } from '@toolseal/digests';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditChainVerifier } from './audit-chain-verifier.js';
import type { AuditHead, ChainVerification, StoredAuditRow } from './audit-log.js';
import {
  AUDIT_ENTRY_SCHEMA_VERSION_V1,
  auditGenesisHash,
  computeAuditEntryHash,
  formatRecordedAt,
  GENESIS_HASH,
  prepareAuditEntry,
  sealAuditEntry,
} from './seal-audit-entry.js';

const key = new Uint8Array(32).fill(3);
const digester = createDigester({ key });
const attacker = createDigester({ key: new Uint8Array(32).fill(4) });

function chain(length: number, by: Digester = digester, genesis: string = GENESIS_HASH): StoredAuditRow[] {
  const rows: StoredAuditRow[] = [];
  let previous_hash = genesis;
  for (let sequence = 1; sequence <= length; sequence += 1) {
    const row = entry(sequence, previous_hash, by, `entry ${sequence}`);
    rows.push(row);
    previous_hash = row.entry_hash;
  }
  return rows;
}

function entry(sequence: number, previous_hash: string, by: Digester, note: string): StoredAuditRow {
  const prepared = prepareAuditEntry({ kind: 'sealed_call', call_id: `call-${sequence}`, operation_id: null, idempotency_key: null, body: { note } });
  return sealAuditEntry(prepared, { sequence, recorded_at: formatRecordedAt(1_784_419_200_000 + sequence), previous_hash }, by);
}

/** `row` as version 1 wrote it: the record says toolseal-audit-entry-v1, the link embeds it as a string. */
function asVersion1(row: StoredAuditRow): StoredAuditRow {
  const canonical = row.canonical.replace('"schema_version":"toolseal-audit-entry-v2"', `"schema_version":"${AUDIT_ENTRY_SCHEMA_VERSION_V1}"`);
  return { ...row, canonical, entry_hash: computeAuditEntryHash(digester, row.previous_hash, canonical, AUDIT_ENTRY_SCHEMA_VERSION_V1) };
}

function verify(rows: StoredAuditRow[], storedHead: AuditHead | null, options: { from?: number; previousHash?: string | null; anchor?: AuditHead } = {}): ChainVerification {
  const verifier = new AuditChainVerifier({ digester, storedHead, ...options });
  for (const row of rows) if (!verifier.push(row)) break;
  return verifier.finish();
}

const headOf = (rows: StoredAuditRow[]): AuditHead | null => {
  const last = rows[rows.length - 1];
  return last === undefined ? null : { sequence: last.sequence, entry_hash: last.entry_hash };
};

describe('AuditChainVerifier', () => {
  it('accepts every intact chain and reports its head (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), (length) => {
        const rows = chain(length);
        expect(verify(rows, headOf(rows))).toEqual({ ok: true, checked: length, head: headOf(rows), anchored: false });
      }),
      { numRuns: 40 },
    );
  });

  it('names the right problem at the right position for each tampering (property)', () => {
    const tampering = fc.oneof(
      fc.record({ type: fc.constant('edit' as const), at: fc.nat() }),
      fc.record({ type: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ type: fc.constant('swap' as const), at: fc.nat() }),
      fc.record({ type: fc.constant('move_to_end' as const), at: fc.nat() }),
      fc.record({ type: fc.constant('insert_forged' as const), at: fc.nat() }),
      fc.record({ type: fc.constant('replay' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 25 }), tampering, (length, change) => {
        const rows = chain(length);
        const head = headOf(rows);
        const k = (change.at % length) + 1; // 1..length
        const at = (sequence: number) => rows[sequence - 1] as StoredAuditRow;
        let tampered: StoredAuditRow[];
        let expected: { position: number; problem: string };
        switch (change.type) {
          case 'edit': {
            const edited = { ...at(k), canonical: at(k).canonical.replace(`entry ${k}"`, `entry ${k}!"`) };
            tampered = rows.map((row) => (row.sequence === k ? edited : row));
            expected = { position: k, problem: 'edited' };
            break;
          }
          case 'delete':
            tampered = rows.filter((row) => row.sequence !== k);
            expected = { position: k, problem: 'deleted' };
            break;
          case 'swap': {
            const first = Math.min(k, length - 1);
            tampered = rows.map((row) =>
              row.sequence === first ? { ...at(first + 1), sequence: first } : row.sequence === first + 1 ? { ...at(first), sequence: first + 1 } : row,
            );
            expected = { position: first, problem: 'reordered' };
            break;
          }
          case 'move_to_end': {
            const moved = Math.min(k, length - 1);
            const order = [...rows.filter((row) => row.sequence !== moved), at(moved)];
            tampered = order.map((row, index) => ({ ...row, sequence: index + 1 }));
            expected = { position: moved, problem: 'reordered' };
            break;
          }
          case 'insert_forged': {
            const forged = entry(k, k === 1 ? GENESIS_HASH : at(k - 1).entry_hash, attacker, 'forged');
            tampered = [...rows.slice(0, k - 1), forged, ...rows.slice(k - 1).map((row) => ({ ...row, sequence: row.sequence + 1 }))];
            expected = { position: k, problem: 'inserted' };
            break;
          }
          case 'replay':
            tampered = [...rows, { ...at(k), sequence: length + 1 }];
            expected = { position: length + 1, problem: 'inserted' };
            break;
        }
        expect(verify(tampered, head)).toMatchObject({ ok: false, ...expected });
      }),
      { numRuns: 400 },
    );
  });

  it('finds a self-consistent unkeyed forgery where it was inserted', () => {
    const unkeyed = createDigester();
    const rows = chain(6, unkeyed);
    const forged = entry(3, (rows[1] as StoredAuditRow).entry_hash, unkeyed, 'forged');
    const tampered = [...rows.slice(0, 2), forged, ...rows.slice(2).map((row) => ({ ...row, sequence: row.sequence + 1 }))];
    const verifier = new AuditChainVerifier({ digester: unkeyed, storedHead: headOf(rows) });
    for (const row of tampered) if (!verifier.push(row)) break;
    expect(verifier.finish()).toEqual({ ok: false, position: 3, problem: 'inserted', detail: 'forked' });
  });

  it('checks from a later position against the given link, and a missing link is a deletion', () => {
    const rows = chain(5);
    const from3 = rows.slice(2);
    expect(verify(from3, headOf(rows), { from: 3, previousHash: (rows[1] as StoredAuditRow).entry_hash })).toEqual({
      ok: true,
      checked: 3,
      head: headOf(rows),
      anchored: false,
    });
    expect(verify(from3, headOf(rows), { from: 3, previousHash: 'f'.repeat(64) })).toMatchObject({ ok: false, position: 3, problem: 'broken_link' });
    expect(verify(from3, headOf(rows), { from: 3, previousHash: null })).toEqual({ ok: false, position: 2, problem: 'deleted', detail: 'missing' });
  });

  it('compares with the stored head and an anchor', () => {
    const rows = chain(4);
    expect(verify(rows, { sequence: 4, entry_hash: 'f'.repeat(64) })).toEqual({ ok: false, position: 4, problem: 'edited', detail: 'head_mismatch' });
    expect(verify(rows, { sequence: 6, entry_hash: 'f'.repeat(64) })).toEqual({ ok: false, position: 5, problem: 'deleted', detail: 'truncated' });
    expect(verify(rows, { sequence: 3, entry_hash: (rows[2] as StoredAuditRow).entry_hash })).toEqual({
      ok: false,
      position: 4,
      problem: 'inserted',
      detail: 'beyond_head',
    });
    expect(verify(rows, null)).toEqual({ ok: false, position: 1, problem: 'inserted', detail: 'beyond_head' });
    expect(verify(rows, headOf(rows), { anchor: { sequence: 2, entry_hash: (rows[1] as StoredAuditRow).entry_hash } })).toMatchObject({ ok: true });
  });

  it('returns no head when no row was checked, and still compares the stored head with entry from - 1', () => {
    const rows = chain(5);
    const hashOf = (sequence: number) => (rows[sequence - 1] as StoredAuditRow).entry_hash;
    const past = (storedHead: AuditHead | null) => verify([], storedHead, { from: 6, previousHash: hashOf(5) });
    // Nothing after entry 5: nothing checked, nothing to save as a new anchor.
    expect(past(headOf(rows))).toEqual({ ok: true, checked: 0, head: null, anchored: false });
    // The reviewer's forged head row: it verified from 6, and was returned as the head.
    expect(past({ sequence: 5, entry_hash: 'e'.repeat(64) })).toEqual({ ok: false, position: 5, problem: 'edited', detail: 'head_mismatch' });
    expect(past({ sequence: 4, entry_hash: hashOf(4) })).toEqual({ ok: false, position: 5, problem: 'inserted', detail: 'beyond_head' });
    expect(past(null)).toEqual({ ok: false, position: 5, problem: 'inserted', detail: 'beyond_head' });
    expect(past({ sequence: 7, entry_hash: 'e'.repeat(64) })).toEqual({ ok: false, position: 6, problem: 'deleted', detail: 'truncated' });
    // The same heads checked from 1 fail at the same positions.
    expect(verify(rows, { sequence: 5, entry_hash: 'e'.repeat(64) })).toEqual({ ok: false, position: 5, problem: 'edited', detail: 'head_mismatch' });
    expect(verify(rows, { sequence: 4, entry_hash: hashOf(4) })).toEqual({ ok: false, position: 5, problem: 'inserted', detail: 'beyond_head' });
    // An empty log verifies with no head; a row checked gives the head recomputed from it.
    expect(verify([], null)).toEqual({ ok: true, checked: 0, head: null, anchored: false });
    expect(verify(rows.slice(4), headOf(rows), { from: 5, previousHash: hashOf(4) })).toEqual({ ok: true, checked: 1, head: headOf(rows), anchored: false });
  });

  it('never returns a malformed stored head: it is reported as head_malformed', () => {
    const rows = chain(3);
    const hash = (rows[2] as StoredAuditRow).entry_hash;
    const malformed: unknown[] = [
      { sequence: 0, entry_hash: 'f'.repeat(64) }, // the reviewer's head: used as an anchor, it threw a RangeError
      { sequence: -1, entry_hash: hash },
      { sequence: 2.5, entry_hash: hash },
      { sequence: '3', entry_hash: hash },
      { sequence: Number.NaN, entry_hash: hash },
      { sequence: 2 ** 53, entry_hash: hash },
      { sequence: 3, entry_hash: hash.toUpperCase() },
      { sequence: 3, entry_hash: hash.slice(1) },
      { sequence: 3 },
      [3, hash],
      'head',
      undefined,
    ];
    for (const head of malformed) {
      const storedHead = head as AuditHead;
      expect(verify([], storedHead), JSON.stringify(head)).toEqual({ ok: false, position: 1, problem: 'edited', detail: 'head_malformed' });
      expect(verify(rows, storedHead), JSON.stringify(head)).toEqual({ ok: false, position: 3, problem: 'edited', detail: 'head_malformed' });
      expect(verify([], storedHead, { from: 4, previousHash: hash }), JSON.stringify(head)).toEqual({
        ok: false,
        position: 3,
        problem: 'edited',
        detail: 'head_malformed',
      });
    }
    // An earlier bad row is still the first bad position.
    const edited = rows.map((row) => (row.sequence === 2 ? { ...row, canonical: row.canonical.replace('entry 2', 'entry 9') } : row));
    expect(verify(edited, { sequence: 0, entry_hash: hash })).toMatchObject({ ok: false, position: 2, problem: 'edited' });
  });

  it('verifies only with the genuine stored head, and returns a head it recomputed or null (property)', () => {
    const hex64 = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.nat(),
        fc.nat(),
        fc.oneof(hex64, fc.string(), fc.constant('E'.repeat(64))),
        fc.oneof(fc.integer({ min: -2, max: 11 }), fc.double(), fc.string()),
        fc.anything(),
        (length, fromSeed, choice, hash, sequence, anything) => {
          const rows = chain(length);
          const genuine = headOf(rows);
          const from = (fromSeed % (length + 1)) + 1; // 1..length + 1
          const rowHash = (rows[choice % Math.max(length, 1)] as StoredAuditRow | undefined)?.entry_hash ?? hash;
          const candidates: unknown[] = [genuine, null, { sequence, entry_hash: hash }, { sequence, entry_hash: rowHash }, { sequence: length, entry_hash: rowHash }, anything];
          const storedHead = candidates[choice % candidates.length] as AuditHead | null;
          const previousHash = from === 1 ? GENESIS_HASH : (rows[from - 2] as StoredAuditRow).entry_hash;
          const result = verify(rows.slice(from - 1), storedHead, { from, previousHash });
          if (!result.ok) return;
          // Verified: the stored head is the genuine one, and the head returned was recomputed.
          expect(storedHead === null ? null : { sequence: storedHead.sequence, entry_hash: storedHead.entry_hash }).toEqual(genuine);
          expect(result).toEqual({ ok: true, checked: length - from + 1, head: from > length ? null : genuine, anchored: false });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('verifies entries written before version 2 with their own link, and a log continued in version 2', () => {
    const old1 = asVersion1(entry(1, GENESIS_HASH, digester, 'entry 1'));
    const old2 = asVersion1(entry(2, old1.entry_hash, digester, 'entry 2'));
    const new3 = entry(3, old2.entry_hash, digester, 'entry 3');
    const rows = [old1, old2, new3];
    expect(verify(rows, headOf(rows))).toEqual({ ok: true, checked: 3, head: headOf(rows), anchored: false });

    // Relabelling a version 2 record as version 1 (or back) without the key breaks its link.
    const relabelled = { ...new3, canonical: new3.canonical.replace('toolseal-audit-entry-v2', AUDIT_ENTRY_SCHEMA_VERSION_V1) };
    expect(verify([old1, old2, relabelled], headOf(rows))).toEqual({ ok: false, position: 3, problem: 'edited', detail: 'entry_hash_mismatch' });
    const forged = { ...relabelled, entry_hash: computeAuditEntryHash(attacker, relabelled.previous_hash, relabelled.canonical, AUDIT_ENTRY_SCHEMA_VERSION_V1) };
    expect(verify([old1, old2, forged], { sequence: 3, entry_hash: forged.entry_hash })).toMatchObject({ ok: false, position: 3, problem: 'edited' });
  });

  it('refuses a version 1 entry after a version 2 one (an older writer appending to an upgraded log)', () => {
    const first = entry(1, GENESIS_HASH, digester, 'entry 1');
    // Linked correctly, with the key: only its version is out of order.
    const second = asVersion1(entry(2, first.entry_hash, digester, 'entry 2'));
    const rows = [first, second];
    expect(verify(rows, headOf(rows))).toEqual({ ok: false, position: 2, problem: 'edited', detail: 'version_downgrade' });
  });

  it('treats rows that are not canonical JSON records as edited', () => {
    const rows = chain(3);
    const variants = [
      'not json',
      '[]',
      (rows[1] as StoredAuditRow).canonical.replace('{"body"', '{ "body"'),
      (rows[1] as StoredAuditRow).canonical.replace('"schema_version":"toolseal-audit-entry-v2"', '"schema_version":"v0"'),
      (rows[1] as StoredAuditRow).canonical.replace('{"body":', '{"extra":1,"body":'),
    ];
    for (const canonical of variants) {
      const tampered = rows.map((row) => (row.sequence === 2 ? { ...row, canonical } : row));
      expect(verify(tampered, headOf(rows)), canonical).toEqual({ ok: false, position: 2, problem: 'edited', detail: 'not_canonical' });
    }
  });

  it('says anchored only when the anchor was compared with the row at its position', () => {
    const rows = chain(5);
    const at = (sequence: number): AuditHead => ({ sequence, entry_hash: (rows[sequence - 1] as StoredAuditRow).entry_hash });
    const intact = (anchored: boolean, from = 1) => ({ ok: true, checked: 5 - from + 1, head: headOf(rows), anchored });
    expect(verify(rows, headOf(rows), { anchor: at(1) })).toEqual(intact(true));
    expect(verify(rows, headOf(rows), { anchor: at(5) })).toEqual(intact(true));
    expect(verify(rows.slice(2), headOf(rows), { from: 3, previousHash: at(2).entry_hash, anchor: at(3) })).toEqual(intact(true, 3));
    // At `from - 1`: compared with the stored hash the check starts from.
    expect(verify(rows.slice(2), headOf(rows), { from: 3, previousHash: at(2).entry_hash, anchor: at(2) })).toEqual(intact(true, 3));
    // Further before `from`: never compared, so not anchored.
    expect(verify(rows.slice(2), headOf(rows), { from: 3, previousHash: at(2).entry_hash, anchor: at(1) })).toEqual(intact(false, 3));
    expect(verify(rows, headOf(rows))).toEqual(intact(false));
  });

  it('compares an anchor at from - 1 with the stored hash the check starts from', () => {
    const rows = chain(5);
    const at = (sequence: number): AuditHead => ({ sequence, entry_hash: (rows[sequence - 1] as StoredAuditRow).entry_hash });
    // The incremental check: from just past the saved anchor, nothing new since.
    expect(verify([], headOf(rows), { from: 6, previousHash: at(5).entry_hash, anchor: at(5) })).toEqual({
      ok: true,
      checked: 0,
      head: null,
      anchored: true,
    });
    // The whole chain rewritten (an unkeyed forger, here another key): the stored hash of entry 5
    // and the stored head agree with each other, but not with the anchor kept outside the store.
    const forged = chain(5, attacker);
    const forgedHash = (forged[4] as StoredAuditRow).entry_hash;
    expect(verify([], headOf(forged), { from: 6, previousHash: forgedHash, anchor: at(5) })).toEqual({
      ok: false,
      position: 5,
      problem: 'edited',
      detail: 'anchor_mismatch',
    });
    // With rows after it, the anchor at from - 1 is still reported first.
    expect(verify(forged.slice(3), headOf(forged), { from: 4, previousHash: (forged[2] as StoredAuditRow).entry_hash, anchor: at(3) })).toEqual({
      ok: false,
      position: 3,
      problem: 'edited',
      detail: 'anchor_mismatch',
    });
    // Reported before a stored head problem found from just past the end.
    expect(verify([], null, { from: 6, previousHash: forgedHash, anchor: at(5) })).toEqual({
      ok: false,
      position: 5,
      problem: 'edited',
      detail: 'anchor_mismatch',
    });
    // A matching anchor does not hide a rewritten head.
    expect(verify([], { sequence: 5, entry_hash: 'e'.repeat(64) }, { from: 6, previousHash: at(5).entry_hash, anchor: at(5) })).toEqual({
      ok: false,
      position: 5,
      problem: 'edited',
      detail: 'head_mismatch',
    });
    // Entry from - 1 missing: reported as deleted, never as anchored.
    expect(verify([], headOf(rows), { from: 6, previousHash: null, anchor: at(5) })).toEqual({ ok: false, position: 5, problem: 'deleted', detail: 'missing' });
  });

  it('throws a RangeError for an anchor that could never be compared with a row', () => {
    const rows = chain(3);
    const hash = (rows[2] as StoredAuditRow).entry_hash;
    const bad: unknown[] = [
      { sequence: '3', entry_hash: hash },
      { sequence: 2.5, entry_hash: 'not-a-hash' },
      { sequence: 3.000001, entry_hash: hash },
      { sequence: 0, entry_hash: hash },
      { sequence: Number.MAX_SAFE_INTEGER + 1, entry_hash: hash },
      { sequence: 3, entry_hash: hash.toUpperCase() },
      { sequence: 3, entry_hash: ` ${hash.slice(1)}` },
      { sequence: 3 },
      null,
      [3, hash],
    ];
    for (const anchor of bad) {
      expect(() => new AuditChainVerifier({ digester, storedHead: headOf(rows), anchor: anchor as AuditHead }), JSON.stringify(anchor)).toThrow(
        /^anchor/,
      );
      expect(() => new AuditChainVerifier({ digester, storedHead: headOf(rows), anchor: anchor as AuditHead })).toThrow(RangeError);
    }
    expect(() => new AuditChainVerifier({ digester, storedHead: null, from: 0 })).toThrow(RangeError);
  });

  it('binds a log identity into the link of entry 1: another log fails there as genesis_mismatch', () => {
    const genesisA = auditGenesisHash(digester, 'tenant-a');
    const genesisB = auditGenesisHash(digester, 'tenant-b');
    expect(genesisA).toBe(digester.digestTagged('toolseal.audit_genesis.v1', { log_id: 'tenant-a' }));
    expect(new Set([genesisA, genesisB, GENESIS_HASH, auditGenesisHash(createDigester(), 'tenant-a')]).size).toBe(4);
    const rowsA = chain(3, digester, genesisA);
    expect(verify(rowsA, headOf(rowsA), { previousHash: genesisA })).toMatchObject({ ok: true, checked: 3 });
    expect(verify(rowsA, headOf(rowsA), { previousHash: genesisB })).toEqual({ ok: false, position: 1, problem: 'broken_link', detail: 'genesis_mismatch' });
    // A log without an identity, or one that gained an identity later, fails the same way.
    const unlabelled = chain(3);
    expect(verify(unlabelled, headOf(unlabelled), { previousHash: genesisA })).toEqual({ ok: false, position: 1, problem: 'broken_link', detail: 'genesis_mismatch' });
    expect(verify(rowsA, headOf(rowsA))).toEqual({ ok: false, position: 1, problem: 'broken_link', detail: 'genesis_mismatch' });
    expect(auditGenesisHash(digester, undefined)).toBe(GENESIS_HASH);
  });
});
