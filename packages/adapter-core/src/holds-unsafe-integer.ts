/**
 * Whether JSON data holds an integer beyond `Number.MAX_SAFE_INTEGER` in magnitude: a value the
 * tool-call collector refuses in parsed (`json_value`) arguments as possibly rounded by a
 * provider SDK's `JSON.parse`. For adapter tests: an oracle, or a filter that keeps generated
 * arguments the collector accepts. Reads the data with `JSON.stringify`, so it is for JSON data only.
 */
export function holdsUnsafeInteger(data: unknown): boolean {
  let found = false;
  JSON.stringify(data, (_key, each: unknown) => {
    if (typeof each === 'number' && Number.isInteger(each) && !Number.isSafeInteger(each)) found = true;
    return each;
  });
  return found;
}
