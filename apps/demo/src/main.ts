// `pnpm demo`: the support-agent scenario of tenant Cedar through every toolseal layer, once per
// provider API, with constructed provider responses standing in for the model (no network).
import { runDemo } from './run-demo.js';

process.exitCode = await runDemo(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
// Everything is written and the exit code set. A store that stopped answering can still hold a
// connection the demo gave up on (runDemo bounds opening and closing): it must not keep the process
// alive. The timer itself holds nothing open, so a clean run exits at once.
setTimeout(() => process.exit(), 1_000).unref();
