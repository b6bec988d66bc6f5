import { ManualClock } from '@toolseal/audit';
import { describe, expect, it } from 'vitest';
import { CLOCK_RESYNC_MS, DispatcherClock } from './dispatcher-clock.js';

const START = Date.UTC(2026, 6, 19);

describe('DispatcherClock', () => {
  it('refuses a clock whose first reading is not epoch milliseconds (start-up)', () => {
    expect(() => new DispatcherClock({ now: () => 1.5 })).toThrow(RangeError);
  });

  it('answers the last good reading when the clock throws or answers garbage later, never throwing', () => {
    let reading: () => number = () => START;
    const clock = new DispatcherClock({ now: () => reading() });
    expect(clock.now()).toBe(START);
    for (const broken of [
      () => {
        throw new Error('gone');
      },
      () => START + 0.5,
      () => Number.NaN,
      () => -1,
      () => 'soon' as unknown as number,
    ]) {
      reading = broken;
      expect(clock.now()).toBe(START);
      expect(clock.date().getTime()).toBe(START);
    }
    reading = () => START + 10;
    expect(clock.now()).toBe(START + 10);
  });

  it('now() never goes below an earlier reading; date() follows the clock as it reads', () => {
    const manual = new ManualClock(START);
    const clock = new DispatcherClock(manual);
    manual.set(START + 1_000);
    expect(clock.now()).toBe(START + 1_000);
    manual.set(START - 5_000);
    expect(clock.now()).toBe(START + 1_000);
    // Sealing and verification compare observed_at with the clock as it reads now.
    expect(clock.date().getTime()).toBe(START - 5_000);
    manual.set(START + 1_500);
    expect(clock.now()).toBe(START + 1_500);
  });

  it('the review: follows the clock back once it has read behind for CLOCK_RESYNC_MS of real time, so a glitch cannot hold it', () => {
    let reading = START;
    let monotonic = 0;
    const clock = new DispatcherClock({ now: () => reading }, () => monotonic);
    const tenYears = 10 * 365 * 86_400_000;
    reading = START + tenYears;
    expect(clock.now()).toBe(START + tenYears);
    reading = START + 1_000;
    expect(clock.now()).toBe(START + tenYears);
    monotonic += CLOCK_RESYNC_MS - 1;
    reading = START + 1_000 + CLOCK_RESYNC_MS - 1;
    expect(clock.now()).toBe(START + tenYears);
    monotonic += 1;
    reading = START + 1_000 + CLOCK_RESYNC_MS;
    expect(clock.now()).toBe(START + 1_000 + CLOCK_RESYNC_MS);
    // From there on it holds again against a new swing.
    reading -= 5_000;
    expect(clock.now()).toBe(START + 1_000 + CLOCK_RESYNC_MS);
  });

  it('a swing shorter than CLOCK_RESYNC_MS is held however often it repeats', () => {
    let reading = START;
    let monotonic = 0;
    const clock = new DispatcherClock({ now: () => reading }, () => monotonic);
    for (let swing = 0; swing < 10; swing++) {
      reading = START + 3_600_000;
      expect(clock.now()).toBe(START + 3_600_000);
      monotonic += 1_000;
      reading = START;
      expect(clock.now()).toBe(START + 3_600_000);
      monotonic += 1_000;
    }
  });
});
