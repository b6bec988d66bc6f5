// `pnpm bench`: every measurement of issue 8 in one process run; writes results.json and
// results.md beside package.json and prints the table.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchAdapters } from './bench-adapters.js';
import { benchAuditStores } from './bench-audit-stores.js';
import { benchGuardCost, benchRejection } from './bench-guard.js';
import { benchMemoryGrowth } from './bench-memory.js';
import { benchDurableSealedCall, benchSealedCall, benchSealedCallBreakdown } from './bench-sealed-call.js';
import { benchSealVerifySmall, benchSizeScaling } from './bench-seal-verify.js';
import { Report } from './report.js';

const packageDir = join(import.meta.dirname, '..');
const report = new Report();

const stages: [string, (report: Report) => Promise<void>][] = [
  ['sealed call vs MCP vs floor', benchSealedCall],
  ['sealed call breakdown', benchSealedCallBreakdown],
  ['sealResult / verifyResult', benchSealVerifySmall],
  ['size scaling', benchSizeScaling],
  ['guard cost', benchGuardCost],
  ['rejection cost', benchRejection],
  ['adapters', benchAdapters],
  ['audit stores', benchAuditStores],
  ['durable sealed call', benchDurableSealedCall],
  ['memory growth', benchMemoryGrowth],
];

const only = process.env.BENCH_ONLY;
for (const [name, stage] of stages) {
  if (only !== undefined && !name.includes(only)) continue;
  const started = Date.now();
  console.log(`\n== ${name}`);
  await stage(report);
  console.log(`   (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const markdown = report.write(join(packageDir, 'results.json'), join(packageDir, 'results.md'));

// A full run also refreshes the table in README.md (between its markers).
if (only === undefined && process.env.BENCH_QUICK !== '1') {
  const readmePath = join(packageDir, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- results:start -->';
  const end = '<!-- results:end -->';
  // The markers on lines of their own, so prose that quotes them is never taken for them.
  const startLine = readme.indexOf(`\n${start}\n`);
  const endLine = startLine === -1 ? -1 : readme.indexOf(`\n${end}`, startLine + 1);
  if (startLine !== -1 && endLine !== -1) {
    const from = startLine + 1;
    const to = endLine + 1;
    writeFileSync(readmePath, `${readme.slice(0, from + start.length)}\n${markdown}${readme.slice(to)}`);
  }
}
console.log('\n' + markdown);
