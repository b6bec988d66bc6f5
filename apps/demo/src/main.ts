// Placeholder demo: prints the fixed error catalog until the full host demo replaces this file.
import { ERROR_CATALOG } from '@toolseal/errors';

function retryText(entry: (typeof ERROR_CATALOG)[keyof typeof ERROR_CATALOG]): string {
  const { retry_after: retryAfter } = entry;
  return retryAfter.policy === 'forbidden'
    ? 'no retry_after_ms'
    : `retry_after_ms ${retryAfter.policy} (${retryAfter.min_ms}-${retryAfter.max_ms} ms)`;
}

const entries = Object.values(ERROR_CATALOG);
const codeWidth = Math.max(...entries.map(({ code }) => code.length));
console.log(`toolseal error catalog (${entries.length} codes)\n`);
for (const entry of entries) {
  console.log(
    `${entry.code.padEnd(codeWidth)}  ${entry.status}/${entry.outcome}, recovery ${entry.recovery}, ${retryText(entry)}`,
  );
  console.log(`${' '.repeat(codeWidth)}  "${entry.safe_message}"`);
}
console.log('\nsealed example coming: the full demo host will seal a tool result here.');
