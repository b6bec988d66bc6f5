export { fakeSealedResult, type FakeSealedResultOverrides } from './fake-sealed-result.js';
export { createRecordingVerifier, type RecordingVerifier } from './create-recording-verifier.js';
export {
  findProtectedValues,
  PROTECTED_KEY_NAMES,
  type ProtectedValueHit,
} from './find-protected-values.js';
