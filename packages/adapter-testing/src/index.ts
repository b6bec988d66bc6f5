export {
  adapterConformanceCases,
  type AdapterConformanceOptions,
  type ConformanceCall,
  type ConformanceCase,
  type ConformanceEchoedCall,
  type ConformanceItemKind,
  type ConformanceResultItem,
  FAST_PATH_PREFIX,
  failingCases,
} from './adapter-conformance-cases.js';
export {
  createConformanceHarness,
  argumentsOf,
  KIT_DATA_MARKER,
  type ConformanceHarness,
  type ConformanceHarnessOptions,
  type ConformanceSealOptions,
} from './create-conformance-harness.js';
export { KIT_LOOKUP_MIXED_CASE_SPEC, KIT_LOOKUP_SPEC, KIT_WRITE_SPEC } from './conformance-tool-specs.js';
export {
  fakeSealedResult,
  fakeToolCall,
  createRecordingVerifier,
  type FakeSealedResultOverrides,
  type RecordingVerifier,
} from '@toolseal/adapter-core/testing';
export { assertParseRefused, assertParseOutcomeCatalogued, assertParsed } from './assert-parse-outcome.js';
export { createCapturingFetch, type CapturingFetch, type CapturedRequest } from './create-capturing-fetch.js';
export { fixtureDriftCases } from './fixture-drift-cases.js';
export { otherFieldsAsText } from './other-fields-as-text.js';
export {
  findProtectedValues,
  PROTECTED_KEY_NAMES,
  type ProtectedValueHit,
} from './find-protected-values.js';
export { createLyingLengthArray, type LyingLengthArray } from './create-lying-length-array.js';
export { createObjectLength, type ObjectLength } from './create-object-length.js';
export { NON_INTEGER_LENGTHS, type NonIntegerLength, type NonIntegerLengthCase } from './non-integer-lengths.js';
