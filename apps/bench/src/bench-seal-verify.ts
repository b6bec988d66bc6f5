// sealResult and verifyResult alone (issue 8, item 4), and size scaling of seal, verify and
// canonical JSON (item 5), with both hash backends.
import type { JsonObject, ModelResult } from '@toolseal/contracts';
import { canonicalize, createDigester, nobleBackend, type HashBackend } from '@toolseal/digests';
import { nodeCryptoBackend } from '@toolseal/digests/node';
import { createToolRegistry, sealResult, verifyResult, type SealResultInput, type ToolRegistry } from '@toolseal/result';
import { canonicalize as jsonCanonicalize } from 'json-canonicalize';
import {
  LIST_ITEMS_SPEC,
  NOW,
  PRINCIPAL,
  getOrderOutput,
  listItemsData,
  listItemsOutput,
  loadSharedToolSpecs,
  openAICallContext,
} from './bench-tools.js';
import { SLOW_PACING, measureGroup, type Measurement } from './measure.js';
import type { Report } from './report.js';

export const BACKENDS: readonly HashBackend[] = [nobleBackend, nodeCryptoBackend];

const encoder = new TextEncoder();

function sealInput(registry: ToolRegistry, toolName: string, args: JsonObject, output: unknown, backend: HashBackend): SealResultInput {
  return {
    registry,
    tool_name: toolName,
    principal: PRINCIPAL,
    call: openAICallContext('call_seal', 'op-seal'),
    arguments: args,
    subject: { kind: 'data', output },
    execution: { delivery: 'fresh' },
    now: NOW,
    digester: createDigester({ backend }),
  };
}

/** Seals once and checks the package verifies: a benchmark of a failing path would be meaningless. */
function sealChecked(input: SealResultInput): ReturnType<typeof sealResult> {
  const sealed = sealResult(input);
  if (sealed.violations.length > 0 || sealed.sealed.model_result.status !== 'succeeded') {
    throw new Error(`bench: ${input.tool_name} output was refused: ${JSON.stringify(sealed.violations)}`);
  }
  const verified = verifyResult(sealed.sealed, input);
  if (!verified.ok) throw new Error(`bench: ${input.tool_name} package does not verify: ${verified.reasons.join(', ')}`);
  return sealed;
}

/** sealResult and verifyResult per second on the ~400-byte get_order result. */
export async function benchSealVerifySmall(report: Report): Promise<void> {
  const section = 'sealResult / verifyResult, get_order (~400-byte result)';
  const registry = createToolRegistry(loadSharedToolSpecs());
  const args = { order_id: 'ORDER-C7' };
  const entries: { name: string; operation: () => unknown }[] = [];
  let bytes = 0;
  for (const backend of BACKENDS) {
    const input = sealInput(registry, 'get_order', args, getOrderOutput('ORDER-C7'), backend);
    const sealed = sealChecked(input);
    bytes = encoder.encode(sealed.canonical_model_result).length;
    entries.push({ name: `sealResult (${backend.name})`, operation: () => sealResult(input) });
    entries.push({ name: `verifyResult (${backend.name})`, operation: () => verifyResult(sealed.sealed, input) });
  }
  const measured = await measureGroup(entries);
  for (const measurement of measured) report.addMeasurement(section, measurement, 'ops/s', `model_result ${bytes} bytes canonical`);
}

interface SizeCase {
  label: string;
  data: JsonObject;
}

function mbPerSecond(measurement: Measurement, bytes: number): number {
  return (measurement.ops_per_second * bytes) / 1e6;
}

/** Seal and verify MB/s at 1 KB, 64 KB and 1 MB against JSON.stringify, raw SHA-256 and json-canonicalize. */
export async function benchSizeScaling(report: Report): Promise<void> {
  const section = 'Size scaling (MB/s of canonical model_result bytes)';
  const registry = createToolRegistry([LIST_ITEMS_SPEC]);
  const cases: SizeCase[] = [
    { label: '1 KB', data: listItemsData(1024) },
    { label: '64 KB', data: listItemsData(65_536) },
    { label: '1 MB', data: listItemsData(1_048_576) },
  ];
  for (const sizeCase of cases) {
    const args = { size: sizeCase.label.replace(' ', '') };
    const output = listItemsOutput(sizeCase.data);
    const inputs = BACKENDS.map((backend) => sealInput(registry, 'list_items', args, output, backend));
    const sealedPackages = inputs.map(sealChecked);
    const first = sealedPackages[0];
    if (first === undefined) throw new Error('bench: no backend');
    const modelResult: ModelResult = first.sealed.model_result;
    const canonicalText = first.canonical_model_result;
    if (jsonCanonicalize(modelResult) !== canonicalText || canonicalize(modelResult) !== canonicalText) {
      throw new Error('bench: canonicalizers disagree');
    }
    const canonicalBytes = encoder.encode(canonicalText);
    const bytes = canonicalBytes.length;
    const entries: { name: string; operation: () => unknown }[] = [];
    BACKENDS.forEach((backend, index) => {
      const input = inputs[index];
      const sealed = sealedPackages[index];
      if (input === undefined || sealed === undefined) return;
      entries.push({ name: `sealResult ${sizeCase.label} (${backend.name})`, operation: () => sealResult(input) });
      entries.push({ name: `verifyResult ${sizeCase.label} (${backend.name})`, operation: () => verifyResult(sealed.sealed, input) });
    });
    entries.push({ name: `JSON.stringify ${sizeCase.label}`, operation: () => JSON.stringify(modelResult) });
    entries.push({ name: `canonicalize ${sizeCase.label} (@toolseal/digests)`, operation: () => canonicalize(modelResult) });
    entries.push({ name: `json-canonicalize ${sizeCase.label}`, operation: () => jsonCanonicalize(modelResult) });
    // What a consumer of the text pays: JSON.stringify returns a rope (a tree of parts) that the
    // hash flattens first, canonicalize a flat string (see README, "Where the targets stand").
    const hashText = nodeCryptoBackend.sha256TextHex;
    if (hashText === undefined) throw new Error('bench: node-crypto has no text shortcut');
    entries.push({ name: `JSON.stringify + SHA-256 ${sizeCase.label}`, operation: () => hashText(JSON.stringify(modelResult)) });
    entries.push({ name: `canonicalize + SHA-256 ${sizeCase.label}`, operation: () => hashText(canonicalize(modelResult)) });
    for (const backend of BACKENDS) {
      entries.push({ name: `raw SHA-256 ${sizeCase.label} (${backend.name})`, operation: () => backend.sha256(canonicalBytes) });
    }
    const measured = await measureGroup(entries, sizeCase.label === '1 MB' ? SLOW_PACING : {});
    const byName = new Map(measured.map((measurement) => [measurement.name, measurement]));
    for (const measurement of measured) {
      report.add({
        section,
        name: measurement.name,
        value: mbPerSecond(measurement, bytes),
        unit: 'MB/s',
        us_per_op: measurement.us_per_op,
        rounds: measurement.rounds.map((round) => Math.round(((round * bytes) / 1e6) * 100) / 100),
        note: `${bytes.toLocaleString('en-US')} bytes`,
      });
    }
    const throughput = (name: string): number => byName.get(name)?.ops_per_second ?? Number.NaN;
    const canonical = throughput(`canonicalize ${sizeCase.label} (@toolseal/digests)`);
    report.ratio(
      `canonicalize / JSON.stringify, ${sizeCase.label}`,
      canonical / throughput(`JSON.stringify ${sizeCase.label}`),
      'MB/s of @toolseal/digests canonicalize ÷ MB/s of JSON.stringify, same value',
      { comparison: '>=', threshold: 0.5 },
    );
    report.ratio(
      `canonicalize / json-canonicalize, ${sizeCase.label}`,
      canonical / throughput(`json-canonicalize ${sizeCase.label}`),
      'MB/s of @toolseal/digests canonicalize ÷ MB/s of json-canonicalize 3.0.1, same value',
      { comparison: '>=', threshold: 3 },
    );
    report.ratio(
      `canonicalize + SHA-256 / JSON.stringify + SHA-256, ${sizeCase.label}`,
      throughput(`canonicalize + SHA-256 ${sizeCase.label}`) / throughput(`JSON.stringify + SHA-256 ${sizeCase.label}`),
      'each text then hashed (node:crypto): the cost a digest of the text pays, flattening included',
    );
    for (const backend of BACKENDS) {
      report.ratio(
        `sealResult / JSON.stringify, ${sizeCase.label} (${backend.name})`,
        throughput(`sealResult ${sizeCase.label} (${backend.name})`) / throughput(`JSON.stringify ${sizeCase.label}`),
        'throughput of a full seal (every output gate, canonical JSON, 4 digests) ÷ JSON.stringify of the model_result',
      );
      report.ratio(
        `verifyResult / raw SHA-256, ${sizeCase.label} (${backend.name})`,
        throughput(`verifyResult ${sizeCase.label} (${backend.name})`) / throughput(`raw SHA-256 ${sizeCase.label} (${backend.name})`),
        'throughput of a full verification ÷ SHA-256 of the canonical bytes alone, same backend',
      );
    }
  }
}
