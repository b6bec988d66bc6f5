import { describe, expect, it } from 'vitest';
import { canonicalize } from './canonicalize.js';
import { CanonicalizationError } from './canonicalization-error.js';
import { rememberCanonicalText } from './remembered-texts.js';

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

describe('rememberCanonicalText', () => {
  it('is written in place of the object only when the caller asks for reuse', () => {
    const projection = deepFreeze({ b: 1, a: 'x' });
    // A text that differs from the walk shows which path ran.
    rememberCanonicalText(projection, '{"a":"x","b":1,"remembered":true}', 1);
    const body = { projection, gate: 'sealed' };
    expect(canonicalize(body)).toBe('{"gate":"sealed","projection":{"a":"x","b":1}}');
    expect(canonicalize(body, { reuseRemembered: true })).toBe('{"gate":"sealed","projection":{"a":"x","b":1,"remembered":true}}');
    // At the top level and in arrays too.
    expect(canonicalize(projection, { reuseRemembered: true })).toBe('{"a":"x","b":1,"remembered":true}');
    expect(canonicalize([projection, projection], { reuseRemembered: true })).toBe(
      '[{"a":"x","b":1,"remembered":true},{"a":"x","b":1,"remembered":true}]',
    );
  });

  it('gives the very text of the walk when the remembered text is the true one, whatever its length and characters', () => {
    const projection = deepFreeze({ id: 'café — Zoë 😀 "quoted" \u0001', list: [1, 2.5, null, { deep: true }], long: 'x'.repeat(9000) });
    rememberCanonicalText(projection, canonicalize(projection), 3);
    const body = { before: 'y'.repeat(3000), projection, after: [projection] };
    expect(canonicalize(body, { reuseRemembered: true })).toBe(canonicalize(body));
  });

  it('joins remembered texts with the walked output around them at any size: empty, one chunk and many chunks', () => {
    const small = deepFreeze({ a: 1 });
    rememberCanonicalText(small, canonicalize(small), 1);
    const wide = deepFreeze({ text: '😀é'.repeat(7000) });
    rememberCanonicalText(wide, canonicalize(wide), 1);
    const bodies = [
      [small],
      [small, small, small],
      { z: small, a: small },
      { before: 'b'.repeat(20_000), wide, between: [small, 'é'.repeat(40_000)], after: wide, tail: 'c'.repeat(300_000) },
      { only: 'x'.repeat(70_000), then: small },
    ];
    for (const body of bodies) {
      const text = canonicalize(body, { reuseRemembered: true });
      expect(text).toBe(canonicalize(body));
      expect(JSON.parse(text)).toEqual(body);
    }
    // The next call starts from a clean buffer: nothing of a remembered text is left in it.
    expect(canonicalize({ k: 'v' })).toBe('{"k":"v"}');
  });

  it('walks the object instead where its remembered depth would pass maxDepth, and fails as the walk does', () => {
    const projection = deepFreeze({ a: { b: { c: {} } } });
    rememberCanonicalText(projection, '{"remembered":true}', 4);
    expect(canonicalize({ projection }, { reuseRemembered: true, maxDepth: 5 })).toBe('{"projection":{"remembered":true}}');
    const failure = (() => {
      try {
        return canonicalize({ projection }, { reuseRemembered: true, maxDepth: 4 });
      } catch (error) {
        return error;
      }
    })();
    expect(failure).toBeInstanceOf(CanonicalizationError);
    expect(failure).toMatchObject({ reason: 'max_depth', path: '/projection/a/b/c' });
  });

  it('refuses what it cannot vouch for: unfrozen objects, arrays, other texts and depths', () => {
    expect(() => rememberCanonicalText({}, '{}', 1)).toThrow(TypeError);
    expect(() => rememberCanonicalText(Object.freeze([]), '[]', 1)).toThrow(TypeError);
    expect(() => rememberCanonicalText(null as unknown as object, 'null', 1)).toThrow(TypeError);
    expect(() => rememberCanonicalText(Object.freeze({}), 1 as unknown as string, 1)).toThrow(TypeError);
    expect(() => rememberCanonicalText(Object.freeze({}), '{}', 0)).toThrow(TypeError);
    expect(() => rememberCanonicalText(Object.freeze({}), '{}', 1.5)).toThrow(TypeError);
  });

  it('leaves nothing visible on the object, and never replaces a remembered text', () => {
    const projection = deepFreeze({ b: 1, a: 'x' });
    rememberCanonicalText(projection, '{"first":true}', 1);
    expect(() => rememberCanonicalText(projection, '{"second":true}', 1)).toThrow(TypeError);
    expect(Reflect.ownKeys(projection)).toEqual(['b', 'a']);
    expect(structuredClone(projection)).toEqual({ b: 1, a: 'x' });
    expect(JSON.stringify(projection)).toBe('{"b":1,"a":"x"}');
    expect(Object.getPrototypeOf(projection)).toBe(Object.prototype);
    expect(canonicalize(projection, { reuseRemembered: true })).toBe('{"first":true}');
  });

  it('leaves nothing remembered when it throws, even when the stack runs out inside it', () => {
    // Near the stack's end every call of rememberCanonicalText either keeps its text or throws;
    // one that threw must leave the object as it was: walked by canonicalize, and free to be
    // remembered later (a half-kept text would answer "remembered already").
    const outcomes: { projection: Readonly<{ level: number }>; kept: boolean }[] = [];
    const descend = (level: number): void => {
      const projection = Object.freeze({ level });
      try {
        rememberCanonicalText(projection, `{"level":${level},"remembered":true}`, 1);
        outcomes.push({ projection, kept: true });
      } catch {
        outcomes.push({ projection, kept: false });
      }
      try {
        descend(level + 1);
      } catch {
        // The stack ran out deeper down.
      }
    };
    descend(0);
    const thrown = outcomes.filter((outcome) => !outcome.kept);
    expect(thrown.length).toBeGreaterThan(0);
    for (const { projection, kept } of outcomes) {
      const expected = kept ? `{"level":${projection.level},"remembered":true}` : `{"level":${projection.level}}`;
      expect(canonicalize(projection, { reuseRemembered: true })).toBe(expected);
    }
    for (const { projection } of thrown) {
      rememberCanonicalText(projection, '{"later":true}', 1);
      expect(canonicalize(projection, { reuseRemembered: true })).toBe('{"later":true}');
    }
  });

  it('is never met by an equal object that was not remembered', () => {
    const projection = deepFreeze({ a: 1 });
    rememberCanonicalText(projection, '{"a":"remembered"}', 1);
    expect(canonicalize({ copy: { ...projection } }, { reuseRemembered: true })).toBe('{"copy":{"a":1}}');
  });
});
