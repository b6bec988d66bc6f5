// The README example, run exactly as the README shows it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';

it('the README shows the example file verbatim, and it prints what the README says', async () => {
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
  const example = readFileSync(join(import.meta.dirname, '__fixtures__', 'readme-example.ts'), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.join(' ').trim());
  });
  try {
    await import('./__fixtures__/readme-example.js');
  } finally {
    log.mockRestore();
  }
  expect(lines).toEqual(['call_1 sealed succeeded', 'call_2 trusted_checks failed NOT_FOUND']);
});
