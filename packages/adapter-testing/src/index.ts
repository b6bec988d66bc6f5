export {
  adapterConformanceCases,
  type AdapterConformanceOptions,
  type ConformanceCall,
  type ConformanceCase,
  type ConformanceResultItem,
} from './adapter-conformance-cases.js';
export {
  createConformanceHarness,
  argumentsOf,
  type ConformanceHarness,
  type ConformanceSealOptions,
} from './create-conformance-harness.js';
export { KIT_LOOKUP_SPEC, KIT_WRITE_SPEC } from './conformance-tool-specs.js';
export { fakeSealedResult, type FakeSealedResultOverrides } from './fake-sealed-result.js';
export { createRecordingVerifier, type RecordingVerifier } from './create-recording-verifier.js';
export {
  findProtectedValues,
  PROTECTED_KEY_NAMES,
  type ProtectedValueHit,
} from './find-protected-values.js';
