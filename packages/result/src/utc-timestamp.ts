// UTC RFC 3339 with a `Z` suffix (spec 000: "observed_at ... UTC RFC 3339"), the same pattern as
// `Provenance.observed_at`, plus a calendar check the pattern cannot express.
const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** True when `value` is a real UTC instant written as RFC 3339 with `Z` (no leap second). */
export function isUtcTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 40) return false;
  const match = UTC_TIMESTAMP.exec(value);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

/**
 * The `observed_at` text for an injected clock reading: a `Date` becomes `toISOString()`; a string
 * must already be a UTC timestamp. Throws a `TypeError` otherwise (a broken clock is a host bug).
 */
export function toUtcTimestamp(reading: Date | string): string {
  if (typeof reading === 'string') {
    if (!isUtcTimestamp(reading)) throw new TypeError('clock returned a string that is not UTC RFC 3339 with Z');
    return reading;
  }
  if (!(reading instanceof Date) || Number.isNaN(reading.getTime())) {
    throw new TypeError('clock returned an invalid Date');
  }
  const text = reading.toISOString();
  if (!isUtcTimestamp(text)) throw new TypeError('clock returned a Date outside years 0000-9999');
  return text;
}

/** Milliseconds since the epoch of a string that passed `isUtcTimestamp` (fraction cut to ms). */
export function utcTimestampMs(value: string): number {
  const match = UTC_TIMESTAMP.exec(value);
  if (match === null) return Number.NaN;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] === undefined ? 0 : Number(match[7].slice(1, 4).padEnd(3, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, fraction);
  return date.getTime();
}
