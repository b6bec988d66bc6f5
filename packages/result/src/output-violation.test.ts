import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundViolations,
  MAX_OUTPUT_VIOLATIONS,
  MAX_VIOLATION_PATH_LENGTH,
  OUTPUT_VIOLATION_RULES,
  type OutputViolation,
} from './output-violation.js';

const segment = (index: number): string => `/${`k${index}`.padEnd(64, 'x')}`;

describe('boundViolations', () => {
  it('keeps a short list as it is, without duplicates', () => {
    const list = [
      { rule: 'type', path: '/data/a' },
      { rule: 'type', path: '/data/a' },
      { rule: 'sensitive_key', path: '/data' },
    ];
    expect(boundViolations(list)).toEqual([
      { rule: 'type', path: '/data/a' },
      { rule: 'sensitive_key', path: '/data' },
    ]);
  });

  it(`keeps exactly ${MAX_OUTPUT_VIOLATIONS} violations whole`, () => {
    const list = Array.from({ length: MAX_OUTPUT_VIOLATIONS }, (_, index) => ({ rule: 'type', path: `/data/f${index}` }));
    expect(boundViolations(list)).toEqual(list);
  });

  it(`cuts a longer list to ${MAX_OUTPUT_VIOLATIONS} entries, the last one saying too_many_violations`, () => {
    const list = Array.from({ length: 5_000 }, (_, index) => ({ rule: 'sensitive_key', path: `/data/f${index}` }));
    const bounded = boundViolations(list);
    expect(bounded).toHaveLength(MAX_OUTPUT_VIOLATIONS);
    expect(bounded.slice(0, -1)).toEqual(list.slice(0, MAX_OUTPUT_VIOLATIONS - 1));
    expect(bounded.at(-1)).toEqual({ rule: 'too_many_violations', path: '' });
    expect(OUTPUT_VIOLATION_RULES).toContain('too_many_violations');
  });

  it(`cuts a path over ${MAX_VIOLATION_PATH_LENGTH} characters at a segment boundary`, () => {
    const long = `/data${Array.from({ length: 16 }, (_, index) => segment(index)).join('')}`;
    const [bounded] = boundViolations([{ rule: 'sensitive_key', path: long }]);
    expect(bounded?.path.length).toBeLessThanOrEqual(MAX_VIOLATION_PATH_LENGTH);
    expect(long.startsWith(`${bounded?.path}/`)).toBe(true);
    expect(bounded?.path).toBe(`/data${segment(0)}${segment(1)}${segment(2)}`);
  });

  it('property: bounded size, paths are segment prefixes of the originals, order kept', () => {
    const path = fc
      .array(fc.stringMatching(/^[a-z0-9_]{1,64}$/), { maxLength: 16 })
      .map((segments) => segments.map((each) => `/${each}`).join(''));
    const violation = fc.record({ rule: fc.constantFrom('type', 'sensitive_key', 'echo_mismatch'), path });
    fc.assert(
      fc.property(fc.array(violation, { maxLength: 200 }), (list: OutputViolation[]) => {
        const bounded = boundViolations(list);
        expect(bounded.length).toBeLessThanOrEqual(MAX_OUTPUT_VIOLATIONS);
        expect(bounded.length).toBeGreaterThanOrEqual(Math.min(1, list.length));
        for (const { rule, path: kept } of bounded) {
          expect(kept.length).toBeLessThanOrEqual(MAX_VIOLATION_PATH_LENGTH);
          if (rule === 'too_many_violations') continue;
          expect(list.some((each) => each.rule === rule && (each.path === kept || each.path.startsWith(`${kept}/`)))).toBe(true);
        }
        const size = bounded.reduce((total, each) => total + each.rule.length + each.path.length, 0);
        expect(size).toBeLessThanOrEqual(MAX_OUTPUT_VIOLATIONS * (MAX_VIOLATION_PATH_LENGTH + 64));
      }),
    );
  });
});
