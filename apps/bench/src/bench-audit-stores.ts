// Audit appends per second and idempotency claims per second for each store, with 1 and 8
// concurrent clients.
import type { AuditEntryInput } from '@toolseal/audit';
import type { JsonObject } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createToolRegistry, sealResult } from '@toolseal/result';
import { NOW, PRINCIPAL, getOrderOutput, loadSharedToolSpecs, openAICallContext } from './bench-tools.js';
import { SLOW_PACING, measureConcurrent } from './measure.js';
import type { Report } from './report.js';
import { STORE_KINDS, openStoreClients } from './store-clients.js';

export const CONCURRENCY_LEVELS = [1, 8] as const;

/** The audit body of a sealed get_order call: its protected audit (about 1 KB of canonical JSON). */
export function sampleAuditBody(): JsonObject {
  const registry = createToolRegistry(loadSharedToolSpecs());
  const { sealed } = sealResult({
    registry,
    tool_name: 'get_order',
    principal: PRINCIPAL,
    call: openAICallContext('call_audit', 'op-audit'),
    arguments: { order_id: 'ORDER-C7' },
    subject: { kind: 'data', output: getOrderOutput('ORDER-C7') },
    execution: { delivery: 'fresh' },
    now: NOW,
    digester: createDigester({ backend: nodeCryptoBackend }),
  });
  return JSON.parse(JSON.stringify({ protected_audit: sealed.protected_audit })) as JsonObject;
}

export async function benchAuditStores(report: Report): Promise<void> {
  const section = 'Audit stores (node:crypto chain digests)';
  const digester = createDigester({ backend: nodeCryptoBackend });
  const body = sampleAuditBody();
  const requestDigest = 'a'.repeat(64);
  for (const kind of STORE_KINDS) {
    for (const concurrency of CONCURRENCY_LEVELS) {
      const opened = await openStoreClients(kind, concurrency, digester);
      if ('skipped' in opened) {
        report.skip(`${section}: ${kind}, ${concurrency} client(s)`, opened.skipped);
        continue;
      }
      try {
        const pacing = kind === 'memory' ? {} : SLOW_PACING;
        let sequence = 0;
        const appendClients = opened.clients.map((client, clientIndex) => () => {
          sequence += 1;
          const entry: AuditEntryInput = {
            kind: 'sealed_call',
            call_id: `call-${clientIndex}-${sequence}`,
            operation_id: `op-${clientIndex}-${sequence}`,
            idempotency_key: null,
            body,
          };
          return client.auditLog.append(entry);
        });
        const appends = await measureConcurrent(`${kind}: audit append, ${concurrency} client${concurrency > 1 ? 's' : ''}`, appendClients, pacing);
        report.addMeasurement(section, appends, 'appends/s', opened.description);

        let claimSequence = 0;
        const claimClients = opened.clients.map((client, clientIndex) => async () => {
          claimSequence += 1;
          const outcome = await client.idempotencyStore.claim({
            key: `bench-${clientIndex}-${claimSequence}`,
            request_sha256: requestDigest,
            owner: `host-${clientIndex}`,
            lease_ms: 30_000,
          });
          if (outcome.kind !== 'claimed') throw new Error(`bench: a fresh key was not claimed: ${outcome.kind}`);
        });
        const claims = await measureConcurrent(`${kind}: idempotency claim (new key), ${concurrency} client${concurrency > 1 ? 's' : ''}`, claimClients, pacing);
        report.addMeasurement(section, claims, 'claims/s', opened.description);

        const first = opened.clients[0];
        if (first !== undefined && kind !== 'postgres') {
          const verification = await first.auditLog.verifyChain();
          if (!verification.ok) throw new Error(`bench: ${kind} chain does not verify after the benchmark`);
        }
      } finally {
        await opened.close();
      }
    }
  }
}
