// Test-only: runs a TypeScript fixture in a real child process (plain `node` plus module hooks).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const register = fileURLToPath(new URL('./register-typescript.mjs', import.meta.url));

export function forkTypeScript(script: string, args: string[]): ChildProcess {
  return fork(fileURLToPath(new URL(script, import.meta.url)), args, {
    execArgv: ['--import', register],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The child's next IPC message, or a rejection if it exits first. */
export function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`child exited (${code ?? signal}) before sending a message`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

/** Resolves with how the child ended. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}
