import fc from 'fast-check';

/** JSON-shaped values whose numbers include integers at and beyond 2^53 - 1 and 1e21 (NaN and the infinities too). */
export function jsonWithLargeNumbers(): fc.Arbitrary<unknown> {
  const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, 1e21));
  return fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      number,
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
    ),
  })).node;
}
