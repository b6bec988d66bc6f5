// Findings of an attack review of the output gate: a protected value through `observed_at`, the
// final sigma, and handler code that throws after the guard's walk.
import type { JsonObject, PrincipalContext } from '@toolseal/contracts';
import { createDigester } from '@toolseal/digests';
import { describe, expect, it } from 'vitest';
import { loadToolSpecs } from './__fixtures__/load-fixtures.js';
import { sealResult } from './seal-result.js';
import { createToolRegistry } from './tool-registry.js';
import { verifyResult } from './verify-result.js';

const registry = createToolRegistry([loadToolSpecs().kbSearch]);
const digester = createDigester();
const call = {
  provider: 'openai',
  api_family: 'responses',
  response_id: 'resp_1',
  call_id: 'call_1',
  adapter_revision: 'openai-responses-v1',
  operation_id: 'op-000001',
  idempotency_key: null,
};
const args = { query: 'refunds' };
const now = (): string => '2026-07-19T00:00:01Z';
const hit = (snippet: string): JsonObject => ({ title: 't', snippet, source: 'https://kb.example.com/a', revision: 'r1' });

function seal(principal: PrincipalContext, output: unknown) {
  return sealResult({
    registry,
    tool_name: 'kb_search',
    principal,
    call,
    arguments: args,
    digester,
    subject: { kind: 'data', output },
    execution: { delivery: 'fresh' },
    now,
  });
}

const envelope = (snippet = 'ok', observedAt = '2026-07-19T00:00:00Z'): JsonObject => ({
  data: { hits: [hit(snippet)] },
  resource_revision: 'kb-index-r1',
  observed_at: observedAt,
});

describe('observed_at, a handler string the model sees', () => {
  // A numeric subject id, as the README's example: the fraction of a timestamp can spell it.
  const principal = { tenant_id: 'tenant-cedar', subject_id: '900100200', roles: [] };

  it('is refused at sealing when its fraction spells a protected value of the call', () => {
    const sealed = seal(principal, envelope('ok', '2026-07-19T00:00:00.900100200Z'));
    expect(sealed.sealed.model_result.status).toBe('failed');
    expect(sealed.violations).toContainEqual({ rule: 'protected_value', path: '/observed_at' });
    expect(sealed.canonical_model_result).not.toContain('900100200');
    // An ordinary fraction passes.
    expect(seal(principal, envelope('ok', '2026-07-19T00:00:00.123456789Z')).sealed.model_result.status).toBe('succeeded');
  });

  it('is searched in its fraction only: a date-shaped protected value does not refuse every output of that day', () => {
    const dated = { tenant_id: 'tenant-cedar', subject_id: '2026-07-19', roles: [] };
    const sealed = seal(dated, envelope('ok', '2026-07-19T00:00:00.123Z'));
    expect(sealed.violations).toEqual([]);
    expect(sealed.sealed.model_result.status).toBe('succeeded');
  });

  it('fails verification with provenance when a package carries one there', () => {
    const sealed = seal(principal, envelope('ok', '2026-07-19T00:00:00.123456789Z'));
    const model = sealed.sealed.model_result;
    const forged = {
      model_result: { ...model, provenance: { ...model.provenance, observed_at: '2026-07-19T00:00:00.900100200Z' } },
      protected_audit: sealed.sealed.protected_audit,
    };
    const outcome = verifyResult(forged, { registry, tool_name: 'kb_search', principal, call, arguments: args, digester, now });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? [] : outcome.reasons).toContain('provenance');
  });
});

describe('a protected value ending in a capital sigma', () => {
  const principal = { tenant_id: 'tenant-cedar', subject_id: 'user-ΝΙΚΟΣ', roles: [] };

  it.each(['owner user-ΝΙΚΟΣ.', 'owner user-ΝΙΚΟΣa', 'owner user-ΝΙΚΟΣΑ', 'owner USER-νικοσ', 'owner user-νικος'])(
    'is found in %j, whatever follows it',
    (snippet) => {
      const sealed = seal(principal, envelope(snippet));
      expect(sealed.sealed.model_result.status).toBe('failed');
      expect(sealed.violations.map((violation) => violation.rule)).toContain('protected_value');
    },
  );
});

describe('handler code that throws or changes the output after the guard has copied it', () => {
  const principal = { tenant_id: 'tenant-cedar', subject_id: 'drafter-1', roles: [] };

  it('a Proxy whose get trap throws is read through its own-property answers, never thrown', () => {
    const output = new Proxy(envelope(), {
      get() {
        throw new Error('get trap');
      },
    });
    const sealed = seal(principal, output);
    expect(sealed.violations).toEqual([]);
    expect(sealed.sealed.model_result.status).toBe('succeeded');
    expect(sealed.sealed.model_result.data).toEqual(envelope().data);
  });

  it('a Proxy that revokes itself during the guard walk (data or the envelope itself) is sealed as it read, never thrown', () => {
    const selfRevoking = (target: object): object => {
      let traps = 0;
      const { proxy, revoke } = Proxy.revocable(target, {
        ownKeys(inner) {
          // The guard lists names, then symbols: revoked on the second, the last trap of its walk.
          if (++traps === 2) revoke();
          return Reflect.ownKeys(inner);
        },
      });
      return proxy;
    };
    // Each copy is what the walk read: an empty data object, an empty envelope.
    const cases: [object, { rule: string; path: string }[]][] = [
      [{ ...envelope(), data: selfRevoking({}) }, [{ rule: 'required', path: '/data/hits' }]],
      [selfRevoking({}), [{ rule: 'required', path: '' }, { rule: 'resource_revision', path: '/resource_revision' }, { rule: 'observed_at', path: '/observed_at' }]],
    ];
    for (const [output, violations] of cases) {
      const sealed = seal(principal, output);
      expect(sealed.sealed.model_result.status).toBe('failed');
      expect(sealed.violations).toEqual(violations);
    }
  });

  it('an array-index accessor that turns an envelope member into a throwing getter changes nothing already copied', () => {
    const output: Record<string, unknown> = envelope();
    const hits: unknown[] = [];
    let reads = 0;
    Object.defineProperty(hits, 0, {
      enumerable: true,
      configurable: true,
      get() {
        reads += 1;
        Object.defineProperty(output, 'observed_at', {
          enumerable: true,
          configurable: true,
          get() {
            throw new Error('late getter');
          },
        });
        return hit('s');
      },
    });
    output['data'] = { hits };
    const sealed = seal(principal, output);
    expect(reads).toBe(1);
    expect(sealed.violations).toEqual([]);
    expect(sealed.sealed.model_result.status).toBe('succeeded');
    expect(sealed.sealed.model_result.data).toEqual({ hits: [hit('s')] });
    expect(sealed.sealed.model_result.provenance.observed_at).toBe('2026-07-19T00:00:00Z');
  });
});
