// `@toolseal/adapter-core/testing`: fakes for adapter unit tests, never for production paths.
export { fakeSealedResult, type FakeSealedResultOverrides } from './fake-sealed-result.js';
export { createRecordingVerifier, type RecordedVerification, type RecordingVerifier } from './create-recording-verifier.js';
export { fakeToolCall } from './fake-tool-call.js';
export { holdsUnsafeInteger } from './holds-unsafe-integer.js';
