import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clockReadingMs, clockReadingText, isUtcTimestamp, parseUtcTimestamp } from './utc-timestamp.js';

// An independent oracle: the pattern of `Provenance.observed_at`, a calendar check, and `Date` for
// the instant (setUTCFullYear, so years 0000-0099 are not taken for 1900-1999).
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

function oracle(value: string): number {
  const match = PATTERN.exec(value);
  if (match === null) return Number.NaN;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, match[7] === undefined ? 0 : Number(match[7].slice(1, 4).padEnd(3, '0')));
  // A day or time that rolled over (31 April, 24:00, 60 seconds) does not exist.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return Number.NaN;
  if (date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second) return Number.NaN;
  return date.getTime();
}

const twoDigits = (max: number) => fc.integer({ min: 0, max }).map((value) => String(value).padStart(2, '0'));
/** Timestamps close to valid: every field may overflow, the fraction may be empty or too long. */
const nearTimestamp = fc
  .tuple(
    fc.integer({ min: 0, max: 9_999 }).map((value) => String(value).padStart(4, '0')),
    twoDigits(13),
    twoDigits(32),
    twoDigits(25),
    twoDigits(61),
    twoDigits(61),
    fc.option(fc.stringMatching(/^\.[0-9]{0,11}$/), { nil: '' }),
  )
  .map(([year, month, day, hour, minute, second, fraction]) => `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}Z`);

/** A valid timestamp with one character replaced by an arbitrary one. */
const mutated = fc
  .tuple(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), fc.nat(), fc.oneof(fc.constantFrom('0', '9', '-', ':', '.', 'T', 'Z', '/', ' '), fc.string({ minLength: 1, maxLength: 1, unit: 'binary' })))
  .map(([date, position, character]) => {
    const text = date.toISOString();
    const index = position % text.length;
    return text.slice(0, index) + character + text.slice(index + 1);
  });

describe('parseUtcTimestamp', () => {
  it('gives the instant of every valid timestamp, and NaN for everything else, like the pattern and Date', () => {
    fc.assert(
      fc.property(fc.oneof(nearTimestamp, mutated, fc.string({ maxLength: 32 })), (value) => {
        expect(parseUtcTimestamp(value)).toBe(oracle(value));
      }),
      { numRuns: 5_000 },
    );
  });

  it('round-trips every instant a four-digit year can write', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), (date) => {
        expect(parseUtcTimestamp(date.toISOString())).toBe(date.getTime());
      }),
    );
  });

  it('reads the examples of the specification and refuses near misses', () => {
    expect(parseUtcTimestamp('2026-07-19T00:00:00Z')).toBe(Date.UTC(2026, 6, 19));
    expect(parseUtcTimestamp('2024-02-29T23:59:59.9999Z')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    expect(parseUtcTimestamp('0000-01-01T00:00:00Z')).toBe(-62_167_219_200_000);
    expect(parseUtcTimestamp('0099-03-01T00:00:00.5Z')).toBe(oracle('0099-03-01T00:00:00.5Z'));
    for (const wrong of [
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-07-19T24:00:00Z',
      '2026-07-19T23:59:60Z',
      '2026-07-19T00:00:00.Z',
      '2026-07-19T00:00:00.1234567890Z',
      '2026-07-19t00:00:00Z',
      '2026-07-19T00:00:00z',
      '2026-07-19T00:00:00+00:00',
      '2026-07-19 00:00:00Z',
      '+02026-07-19T00:00:00Z',
      '２０２６-07-19T00:00:00Z',
    ]) {
      expect(parseUtcTimestamp(wrong), wrong).toBeNaN();
      expect(isUtcTimestamp(wrong), wrong).toBe(false);
    }
    expect(isUtcTimestamp(20260719)).toBe(false);
  });
});

describe('clockReadingMs and clockReadingText', () => {
  it('take the instant of a Date and its ISO text, or a UTC timestamp string as it is', () => {
    const date = new Date('2026-07-19T00:00:05.250Z');
    expect(clockReadingMs(date)).toBe(date.getTime());
    expect(clockReadingText(date)).toBe('2026-07-19T00:00:05.250Z');
    expect(clockReadingMs('2026-07-19T00:00:05Z')).toBe(Date.UTC(2026, 6, 19, 0, 0, 5));
    expect(clockReadingText('2026-07-19T00:00:05Z')).toBe('2026-07-19T00:00:05Z');
  });

  it('give text that parses back to the same instant for every Date of a four-digit year', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), (date) => {
        expect(parseUtcTimestamp(clockReadingText(date))).toBe(clockReadingMs(date));
      }),
    );
  });

  it('refuse readings a broken clock gives', () => {
    expect(() => clockReadingMs(new Date(Number.NaN))).toThrow(TypeError);
    expect(() => clockReadingMs(new Date('+010000-01-01T00:00:00Z'))).toThrow(/0000-9999/);
    expect(() => clockReadingMs(new Date(-62_167_219_200_001))).toThrow(/0000-9999/);
    expect(() => clockReadingMs('2026-07-19')).toThrow(TypeError);
    expect(() => clockReadingMs(1 as unknown as Date)).toThrow(TypeError);
  });
});
