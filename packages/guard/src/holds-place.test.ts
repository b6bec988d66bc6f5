import { describe, expect, it } from 'vitest';
import { heldPrefix, holdsPlace } from './holds-place.js';

describe('holdsPlace', () => {
  const proposal = { order_id: 'ORDER-C7', lines: [{ line_id: 'LINE-1', quantity: 1 }], note: null };

  it('holds the whole value, existing places, and a missing member at the end of the pointer', () => {
    for (const field of ['', '/order_id', '/lines', '/lines/0', '/lines/0/quantity', '/amount', '/lines/0/unit']) {
      expect(holdsPlace(proposal, field), field).toBe(true);
    }
  });

  it('refuses an index the array does not hold, a place below a missing member or a scalar, and a non-index segment of an array', () => {
    for (const field of ['/lines/1', '/lines/900100/quantity', '/amount/value', '/order_id/0', '/note/x', '/lines/first', '/lines/01', '/lines/-1']) {
      expect(holdsPlace(proposal, field), field).toBe(false);
    }
    expect(holdsPlace('text', '/0')).toBe(false);
    expect(holdsPlace(null, '/a')).toBe(false);
  });

  it('reads own members only: a name on the prototype is no place', () => {
    expect(holdsPlace({}, '/toString')).toBe(true); // a missing member, at the end
    expect(holdsPlace({}, '/toString/x')).toBe(false);
    expect(holdsPlace({}, '/__proto__/x')).toBe(false);
  });
});

describe('heldPrefix', () => {
  const proposal = { lines: [{ line_id: 'LINE-1' }] };
  it('cuts a field before the first segment the value does not hold', () => {
    expect(heldPrefix(proposal, '/lines/0/quantity')).toBe('/lines/0/quantity');
    expect(heldPrefix(proposal, '/lines/900100/quantity')).toBe('/lines');
    expect(heldPrefix(proposal, '/lines/0/line_id/x')).toBe('/lines/0/line_id');
    expect(heldPrefix(proposal, '/missing/below')).toBe('');
    expect(heldPrefix(null, '/a')).toBe('');
    expect(heldPrefix(null, '')).toBe('');
  });
});
