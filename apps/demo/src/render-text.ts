import type { CallRecord, ScenarioReport, TurnRecord } from './run-scenario.js';

/** ANSI styling, or none. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
  yellow(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

/** Colour when the output is a terminal and `NO_COLOR` is unset (`FORCE_COLOR` forces it). */
export function chooseStyle(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv): Style {
  const forced = environment['FORCE_COLOR'] !== undefined && environment['FORCE_COLOR'] !== '0';
  const colour = forced || (stream.isTTY === true && (environment['NO_COLOR'] ?? '') === '');
  if (!colour) return { bold: plain, dim: plain, green: plain, red: plain, cyan: plain, yellow: plain };
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), red: wrap(31, 39), cyan: wrap(36, 39), yellow: wrap(33, 39) };
}

function short(digest: string | null): string {
  return digest === null ? '—' : digest.length > 12 ? `${digest.slice(0, 4)}…${digest.slice(-4)}` : digest;
}

function decision(call: CallRecord): string {
  const reasons = call.reasons.length === 0 ? '' : ` [${call.reasons.map(({ field, rule }) => `${field || '(root)'} ${rule}`).join(', ')}]`;
  return `${call.status}${call.code === null ? '' : ` ${call.code}`}${reasons} · ${call.delivery} · at ${call.gate}`;
}

function renderCall(call: CallRecord, turn: TurnRecord, style: Style): string[] {
  const mark = call.met ? style.green('✓') : style.red(`✗ expected ${call.expected}`);
  const audit = call.audit;
  const auditParts = [
    `#${audit.sequence ?? '—'}`,
    `principal ${short(audit.principal_ref)}`,
    `request ${short(audit.request_sha256)}`,
    `result ${short(audit.result_sha256)}`,
    `call ${short(audit.call_binding_sha256)}`,
    `op ${short(audit.operation_id)}`,
    `key ${audit.idempotency_key ?? '—'}`,
  ];
  if (audit.receipt !== null) auditParts.push(`receipt ${audit.receipt}`);
  if (audit.proposal_decision !== null) auditParts.push(`proposal ${audit.proposal_decision}`);
  if (audit.violations.length > 0) auditParts.push(`violations ${audit.violations.join(', ')}`);
  const model = turn.payload.ok
    ? JSON.stringify(call.model_payload)
    : style.yellow('nothing: the adapter refused the whole turn (see below)');
  return [
    `  ${style.bold('→')} ${style.bold(call.tool_name)} ${style.dim(JSON.stringify(call.arguments))}`,
    `    decision  ${decision(call)}  ${mark}`,
    `    model     ${model}`,
    `    audit     ${style.dim(auditParts.join(' · '))}`,
  ];
}

/** The lines of one turn, for a person. */
export function renderTurn(turn: TurnRecord, style: Style): string[] {
  const lines = [
    '',
    style.cyan(style.bold(`━━ ${turn.provider_label} · turn ${turn.index} · ${turn.title}`)),
    ...turn.notes.map((note) => `  ${style.yellow(note)}`),
  ];
  for (const call of turn.calls) lines.push(...renderCall(call, turn, style));
  if (!turn.payload.ok) {
    for (const failure of turn.payload.failures) {
      lines.push(`  ${style.bold('adapter')}   refused ${failure.call_id ?? '(unnamed)'}: ${failure.reason} [${failure.verify_reasons.join(', ')}]`);
    }
  }
  for (const check of turn.checks) {
    lines.push(`  ${check.met ? style.green('✓') : style.red('✗')} ${style.dim(check.description)}`);
  }
  return lines;
}

/** The closing lines: failures, the chain, the one-line summary. */
export function renderSummary(report: ScenarioReport, style: Style): string[] {
  const lines = [''];
  for (const failure of report.failures) lines.push(style.red(`✗ ${failure}`));
  lines.push(
    report.chain.ok
      ? style.green(`audit chain: ${report.chain.checked} entries re-derived from the stored text, every link verified`)
      : style.red(`audit chain: broken at entry ${report.chain.position} (${report.chain.problem}, ${report.chain.detail})`),
  );
  lines.push(report.ok ? style.green(style.bold(report.summary)) : style.red(style.bold(report.summary)));
  return lines;
}
