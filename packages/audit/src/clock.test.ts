import { describe, expect, it } from 'vitest';
import { ManualClock, readClock, systemClock } from './clock.js';

describe('clocks', () => {
  it('a manual clock moves only when told, and refuses impossible times', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(500)).toBe(1_500);
    clock.set(200);
    expect(clock.now()).toBe(200);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.set(Number.NaN)).toThrow(RangeError);
    expect(() => new ManualClock(1.5)).toThrow(RangeError);
  });

  it('readClock rejects a misconfigured clock', () => {
    expect(() => readClock({ now: () => -1 })).toThrow(RangeError);
    expect(() => readClock({ now: () => 1e300 })).toThrow(RangeError);
    const before = Date.now();
    const now = readClock(systemClock);
    expect(now).toBeGreaterThanOrEqual(before);
  });
});
