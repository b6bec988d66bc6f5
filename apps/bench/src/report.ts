// Collects the figures of one run and writes them as results.json and a markdown table.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Measurement } from './measure.js';

/** One figure. */
export interface ResultRow {
  /** Which part of the issue it belongs to. */
  section: string;
  /** What was measured. */
  name: string;
  /** The figure (median of the rounds). */
  value: number;
  /** Its unit: `calls/s`, `ops/s`, `MB/s`, `µs`, `MB`... */
  unit: string;
  /** Microseconds per operation, for throughput figures. */
  us_per_op?: number;
  /** Throughput of every round, for spread. */
  rounds?: number[];
  /** What exactly was timed. */
  note?: string;
}

/** A ratio of two figures of the same run, with its target when the issue sets one. */
export interface RatioRow {
  name: string;
  value: number;
  /** How it is computed. */
  formula: string;
  target?: { comparison: '>=' | '<='; threshold: number };
  met?: boolean;
  /** Unit of `value` when it is not a plain ratio (`×`). */
  unit?: string;
}

/** A part that did not run, and why. */
export interface SkippedRow {
  section: string;
  reason: string;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 10) return value.toFixed(1);
  if (magnitude >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export class Report {
  readonly rows: ResultRow[] = [];
  readonly ratios: RatioRow[] = [];
  readonly skipped: SkippedRow[] = [];
  readonly started = new Date();

  add(row: ResultRow): ResultRow {
    this.rows.push(row);
    console.log(`  ${row.section} | ${row.name}: ${formatNumber(row.value)} ${row.unit}${row.note ? ` (${row.note})` : ''}`);
    return row;
  }

  /** Adds a throughput measurement in `unit` (operations per second by default). */
  addMeasurement(section: string, measurement: Measurement, unit = 'ops/s', note?: string): ResultRow {
    return this.add({
      section,
      name: measurement.name,
      value: measurement.ops_per_second,
      unit,
      us_per_op: measurement.us_per_op,
      rounds: measurement.rounds.map((round) => Math.round(round * 100) / 100),
      ...(note === undefined ? {} : { note }),
    });
  }

  ratio(name: string, value: number, formula: string, target?: RatioRow['target'], unit?: string): RatioRow {
    const row: RatioRow = { name, value, formula };
    if (unit !== undefined) row.unit = unit;
    if (target !== undefined) {
      row.target = target;
      row.met = target.comparison === '>=' ? value >= target.threshold : value <= target.threshold;
    }
    this.ratios.push(row);
    const verdict = row.met === undefined ? '' : row.met ? ' MET' : ' MISSED';
    const suffix = unit === undefined ? '×' : ` ${unit}`;
    console.log(`  ratio ${name}: ${value.toFixed(3)}${suffix}${target ? ` (target ${target.comparison} ${target.threshold}${suffix})${verdict}` : ''}`);
    return row;
  }

  skip(section: string, reason: string): void {
    this.skipped.push({ section, reason });
    console.log(`  SKIPPED ${section}: ${reason}`);
  }

  environment(): Record<string, string | number> {
    const cpus = os.cpus();
    return {
      node: process.version,
      platform: `${os.platform()} ${os.release()} ${os.arch()}`,
      cpu: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      started_at: this.started.toISOString(),
      duration_s: Math.round((Date.now() - this.started.getTime()) / 100) / 10,
    };
  }

  toJSON(): object {
    return { environment: this.environment(), results: this.rows, ratios: this.ratios, skipped: this.skipped };
  }

  toMarkdown(): string {
    const environment = this.environment();
    const lines: string[] = [];
    lines.push(`Run of ${environment.started_at}: Node ${environment.node}, ${environment.cpu} (${environment.cores} cores), ${environment.platform}, ${environment.duration_s} s. Medians of several rounds after warm-up.`);
    lines.push('');
    lines.push('### Targets (ratios of the same run)');
    lines.push('');
    lines.push('| ratio | value | target | met | computed as |');
    lines.push('|---|---:|---|---|---|');
    for (const ratio of this.ratios.filter((row) => row.target !== undefined)) {
      const target = ratio.target;
      const suffix = ratio.unit === undefined ? '×' : ` ${ratio.unit}`;
      lines.push(
        `| ${cell(ratio.name)} | ${ratio.value.toFixed(3)}${suffix} | ${target ? `${target.comparison} ${target.threshold}${suffix}` : ''} | ${ratio.met ? 'yes' : '**no**'} | ${cell(ratio.formula)} |`,
      );
    }
    const informative = this.ratios.filter((row) => row.target === undefined);
    if (informative.length > 0) {
      lines.push('');
      lines.push('### Other ratios of the same run');
      lines.push('');
      lines.push('| ratio | value | computed as |');
      lines.push('|---|---:|---|');
      for (const ratio of informative) {
        lines.push(`| ${cell(ratio.name)} | ${ratio.value.toFixed(2)}${ratio.unit === undefined ? '×' : ` ${ratio.unit}`} | ${cell(ratio.formula)} |`);
      }
    }
    const sections = [...new Set(this.rows.map((row) => row.section))];
    for (const section of sections) {
      lines.push('');
      lines.push(`### ${section}`);
      lines.push('');
      lines.push('| measurement | figure | unit | µs/op | notes |');
      lines.push('|---|---:|---|---:|---|');
      for (const row of this.rows.filter((candidate) => candidate.section === section)) {
        const perOp = row.us_per_op === undefined ? '' : formatNumber(row.us_per_op);
        lines.push(`| ${cell(row.name)} | ${formatNumber(row.value)} | ${row.unit} | ${perOp} | ${cell(row.note ?? '')} |`);
      }
    }
    if (this.skipped.length > 0) {
      lines.push('');
      lines.push('### Skipped');
      lines.push('');
      for (const skipped of this.skipped) lines.push(`- ${skipped.section}: ${skipped.reason}`);
    }
    return lines.join('\n') + '\n';
  }

  write(jsonPath: string, markdownPath: string): string {
    const markdown = this.toMarkdown();
    writeFileSync(jsonPath, JSON.stringify(this.toJSON(), null, 2) + '\n');
    writeFileSync(markdownPath, `# toolseal benchmarks\n\n${markdown}`);
    return markdown;
  }
}
