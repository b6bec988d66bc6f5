// Runs one command with explicit arguments (never through a shell) and describes its run for a
// failing assertion's message: the command, where it ran, how it ended, stderr and stdout.
import { spawnSync } from 'node:child_process';

/** How a command ended and what it printed. */
export interface CommandRun {
  /** The command line, for messages. */
  command: string;
  cwd: string;
  /** Exit code; `null` when it was killed or could not start. */
  status: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not start or was killed (ENOENT, timeout). */
  error: string | undefined;
}

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

export function runCommand(command: string, args: readonly string[], { cwd, env, timeoutMs = 120_000 }: RunOptions): CommandRun {
  const result = spawnSync(command, args, {
    cwd,
    env: env ?? process.env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return {
    command: [command, ...args].join(' '),
    cwd,
    status: result.status,
    stdout: result.stdout ?? '',
    stderr: result.stderr ?? '',
    error: result.error === undefined ? (result.signal === null ? undefined : `killed by ${result.signal}`) : String(result.error),
  };
}

const LIMIT = 8_000;

function tail(text: string): string {
  return text.length > LIMIT ? `…${text.slice(-LIMIT)}` : text;
}

/** The whole story of a run, for an assertion message. */
export function describeRun(run: CommandRun): string {
  return [
    `\n$ ${run.command}`,
    `  (in ${run.cwd}) exited ${run.status ?? 'without a status'}${run.error === undefined ? '' : `: ${run.error}`}`,
    `--- stderr ---\n${tail(run.stderr)}`,
    `--- stdout ---\n${tail(run.stdout)}`,
  ].join('\n');
}

/** Throws with the run's story unless it exited 0. */
export function mustSucceed(run: CommandRun): CommandRun {
  if (run.status !== 0) throw new Error(describeRun(run));
  return run;
}
