import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One ```ts block of a README. */
export interface ReadmeExample {
  /** Repository path of the README, `/`-separated (`packages/guard/README.md`). */
  readonly readme: string;
  /** 1-based position of the block among the README's TypeScript blocks. */
  readonly index: number;
  /** 1-based README line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  /** `readme#index`: how contexts and expectations name the block. */
  readonly key: string;
}

const TYPESCRIPT_FENCE = /^```(?:ts|typescript)\s*$/;
const ANY_FENCE = /^```/;

/**
 * The TypeScript blocks of one README, in order. Other fenced blocks (shell, JSON) are skipped
 * whole, so a ```ts line inside them is not taken for code. An unclosed fence throws: a README
 * whose last block swallows the rest of the file would otherwise check less than it shows.
 */
export function extractExamples(markdown: string, readme: string): ReadmeExample[] {
  const lines = markdown.split(/\r?\n/);
  const examples: ReadmeExample[] = [];
  for (let at = 0; at < lines.length; at++) {
    const opening = lines[at] as string;
    if (!ANY_FENCE.test(opening)) continue;
    let closing = at + 1;
    while (closing < lines.length && (lines[closing] as string).trimEnd() !== '```') closing++;
    if (closing === lines.length) throw new Error(`${readme}:${at + 1}: the fenced block opened here is never closed`);
    if (TYPESCRIPT_FENCE.test(opening)) {
      const index = examples.length + 1;
      examples.push({ readme, index, line: at + 2, code: lines.slice(at + 1, closing).join('\n'), key: `${readme}#${index}` });
    }
    at = closing;
  }
  return examples;
}

/** Every TypeScript block of the top-level README and of each README under `packages/` and `apps/`. */
export function readAllExamples(rootDir: string): ReadmeExample[] {
  const readmes = ['README.md'];
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(rootDir, group)).sort()) {
      if (existsSync(join(rootDir, group, dir, 'README.md'))) readmes.push(`${group}/${dir}/README.md`);
    }
  }
  return readmes.flatMap((readme) => extractExamples(readFileSync(join(rootDir, readme), 'utf8'), readme));
}
