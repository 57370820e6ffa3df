/** The FHIR engine of the validation service process: host (rebuilds), stored-artifact inputs, instance notification. */
export { EngineHost, type EngineHostOptions, type EngineGeneration, type EngineValidateOptions } from './engine-host.js';
export { ArtifactChangeNotifier, ARTIFACTS_CHANGED_SUBJECT, artifactsChangedSubject, type ArtifactsChangedMessage, type ArtifactChangeNotifierOptions } from './artifact-change-notifier.js';
export { readStoredArtifacts, type StoredArtifactInputs } from './stored-artifacts.js';
export { conformanceSource } from './scoped-source.js';
