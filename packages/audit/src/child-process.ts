// Test support for stores: runs a TypeScript fixture in a real child process (plain `node` plus
// module hooks), so crash-injection and race tests exercise the current sources without a build.
// The hooks load the `typescript` compiler, which the caller's workspace must provide.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const register = fileURLToPath(new URL('./register-typescript.mjs', import.meta.url));

/** Forks `script` (a `file:` URL to a `.ts` file, e.g. `new URL('./child.ts', import.meta.url)`) with an IPC channel. */
export function forkTypeScript(script: URL, args: readonly string[]): ChildProcess {
  return fork(fileURLToPath(script), [...args], {
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
