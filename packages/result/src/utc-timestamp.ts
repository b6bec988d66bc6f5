// UTC RFC 3339 with a `Z` suffix (spec 000: "observed_at ... UTC RFC 3339"), the same pattern as
// `Provenance.observed_at` (`YYYY-MM-DDTHH:MM:SS(.f{1,9})?Z`, ASCII digits), plus a calendar check
// the pattern cannot express. One pass over the character codes, no regular expression and no
// `Date` object: the seal reads each timestamp once.

const SHORTEST = 20; // 2026-07-19T00:00:00Z
const LONGEST = 30; // 2026-07-19T00:00:00.123456789Z
const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the instants four-digit years can write. */
const EARLIEST_MS = -62_167_219_200_000;
const LATEST_MS = 253_402_300_799_999;

const DASH = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const UPPER_T = 0x54;
const UPPER_Z = 0x5a;
const ZERO = 0x30;

/** The value of the ASCII digits `text[from, to)`, or -1 when one of them is not a digit. */
function digitsAt(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days from 1970-01-01 to `year-month-day` in the proleptic Gregorian calendar (H. Hinnant's
 * `days_from_civil`), exact for every four-digit year, including 0000-0099 where `Date.UTC` would
 * add 1900.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const shifted = month <= 2 ? year - 1 : year;
  const era = Math.floor(shifted / 400);
  const yearOfEra = shifted - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * Milliseconds since the epoch of a UTC RFC 3339 timestamp with `Z` (a fraction is cut to
 * milliseconds), or `NaN` when `value` is not one: wrong shape, a date that does not exist, or a
 * time past 23:59:59 (no leap second).
 */
export function parseUtcTimestamp(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  const { length } = value;
  if (length < SHORTEST || length > LONGEST || value.charCodeAt(length - 1) !== UPPER_Z) return Number.NaN;
  if (
    value.charCodeAt(4) !== DASH ||
    value.charCodeAt(7) !== DASH ||
    value.charCodeAt(10) !== UPPER_T ||
    value.charCodeAt(13) !== COLON ||
    value.charCodeAt(16) !== COLON
  ) {
    return Number.NaN;
  }
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  const hour = digitsAt(value, 11, 13);
  const minute = digitsAt(value, 14, 16);
  const second = digitsAt(value, 17, 19);
  let fraction = 0;
  if (length > SHORTEST) {
    // `.` and one to nine digits between the seconds and the `Z`.
    if (length === SHORTEST + 1 || value.charCodeAt(19) !== DOT) return Number.NaN;
    const digits = digitsAt(value, 20, length - 1);
    if (digits < 0) return Number.NaN;
    const millisecondDigits = Math.min(3, length - 21);
    fraction = digitsAt(value, 20, 20 + millisecondDigits) * 10 ** (3 - millisecondDigits);
  }
  if (
    year < 0 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour < 0 ||
    hour > 23 ||
    minute < 0 ||
    minute > 59 ||
    second < 0 ||
    second > 59
  ) {
    return Number.NaN;
  }
  return daysFromCivil(year, month, day) * MS_PER_DAY + hour * 3_600_000 + minute * 60_000 + second * 1_000 + fraction;
}

/** True when `value` is a real UTC instant written as RFC 3339 with `Z` (no leap second). */
export function isUtcTimestamp(value: unknown): value is string {
  return !Number.isNaN(parseUtcTimestamp(value));
}

/**
 * Milliseconds since the epoch of an injected clock value: `getTime()` of a `Date`, or the instant
 * of a string that must already be a UTC timestamp. Throws a `TypeError` otherwise, or for an
 * instant outside years 0000-9999 (a broken clock is a host bug).
 */
export function clockReadingMs(reading: Date | string): number {
  if (typeof reading === 'string') {
    const ms = parseUtcTimestamp(reading);
    if (Number.isNaN(ms)) throw new TypeError('clock returned a string that is not UTC RFC 3339 with Z');
    return ms;
  }
  if (!(reading instanceof Date)) throw new TypeError('clock returned an invalid Date');
  const ms = reading.getTime();
  if (Number.isNaN(ms)) throw new TypeError('clock returned an invalid Date');
  if (ms < EARLIEST_MS || ms > LATEST_MS) throw new TypeError('clock returned a Date outside years 0000-9999');
  return ms;
}

/**
 * The `observed_at` text of a reading `clockReadingMs` accepted: the string itself, or the Date's
 * `toISOString()` (`YYYY-MM-DDTHH:MM:SS.sssZ` within years 0000-9999, the same instant). Only
 * error results need it, so a data seal never formats the clock.
 */
export function clockReadingText(reading: Date | string): string {
  return typeof reading === 'string' ? reading : reading.toISOString();
}

/**
 * The fraction digits of a timestamp `parseUtcTimestamp` accepts (`''` without a fraction): the one
 * part of it where a handler chooses six or more characters in a row (the date and time allow at
 * most four digits between separators), so the one part that could spell a protected value.
 */
export function timestampFraction(timestamp: string): string {
  const dot = timestamp.indexOf('.');
  return dot === -1 ? '' : timestamp.slice(dot + 1, timestamp.length - 1);
}
