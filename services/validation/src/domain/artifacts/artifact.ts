import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { isObject } from '../engine/json/json-value.js';

/**
 * Artifacts (specification, "Artifact record"): conformance content the engine validates against,
 * uploaded as a FHIR NPM package (`package.tgz`, type PACKAGE, name = package id) or as one FHIR
 * JSON resource (type RESOURCE, name = resource id).
 */
export const ARTIFACT_TYPES = ['RESOURCE', 'PACKAGE'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

/**
 * Resource types accepted as RESOURCE artifacts. The original accepted StructureDefinition, ValueSet
 * and CodeSystem only (a deficiency the specification lists, lines 142 and 312); the conformance
 * resources profiles and validation rely on are accepted as well: ImplementationGuide, NamingSystem,
 * ConceptMap, Library (measures and CQL-based profiles refer to them) and Questionnaire (a
 * QuestionnaireResponse is validated against the Questionnaire it names).
 */
export const RESOURCE_ARTIFACT_TYPES = ['StructureDefinition', 'ValueSet', 'CodeSystem', 'ImplementationGuide', 'NamingSystem', 'ConceptMap', 'Library', 'Questionnaire'] as const;

export const MAX_ARTIFACT_NAME_LENGTH = 255;
/** Names appear in URLs and file names: no slashes, spaces or control characters. */
const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._@#-]*$/;

export interface ArtifactSummary {
  readonly id: number;
  readonly type: ArtifactType;
  readonly name: string;
  /** PACKAGE: package.json name and version; RESOURCE: resourceType, url and version. */
  readonly packageName?: string;
  readonly version?: string;
  readonly fhirVersion?: string;
  readonly resourceType?: string;
  readonly url?: string;
  readonly size: number;
  readonly updatedAt: string;
}

export interface Artifact extends ArtifactSummary {
  readonly content: Buffer;
}

/** An artifact refused (400): the shared vocabulary's InvalidInputError, naming the field at fault (else the body). */
export class ArtifactRejectedError extends InvalidInputError {
  override readonly name = 'ArtifactRejectedError';
  constructor(message: string, readonly field?: string) {
    super(message, [{ field: field ?? 'body', message }]);
  }
}

/** Parses the `{type}` path segment in any case (`package`, `PACKAGE`). */
export function parseArtifactType(value: string): ArtifactType {
  const upper = value.toUpperCase();
  const known = ARTIFACT_TYPES.find((type) => type === upper);
  if (known !== undefined) return known;
  throw new ArtifactRejectedError(`Artifact type must be RESOURCE or PACKAGE; got "${value.slice(0, 40)}"`, 'type');
}

export function artifactNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'Artifact name is required';
  if (name.length > MAX_ARTIFACT_NAME_LENGTH) return `Artifact name must be at most ${MAX_ARTIFACT_NAME_LENGTH} characters`;
  if (!ARTIFACT_NAME.test(name)) return 'Artifact name may contain only letters, digits and . _ - @ #, and must start with a letter or digit';
  return undefined;
}

/** What was learned about a RESOURCE artifact from its content. */
export interface ResourceArtifactInfo {
  readonly resourceType: (typeof RESOURCE_ARTIFACT_TYPES)[number];
  readonly id?: string;
  readonly url?: string;
  readonly version?: string;
  readonly fhirVersion?: string;
  readonly resource: Record<string, unknown>;
}

/**
 * Reads a RESOURCE artifact: UTF-8 JSON (a BOM is tolerated), a FHIR resource of an accepted type.
 * Throws ArtifactRejectedError explaining what is wrong.
 */
export function inspectResourceArtifact(content: Buffer): ResourceArtifactInfo {
  if (content.length === 0) throw new ArtifactRejectedError('The artifact body is empty');
  if (content[0] === 0x1f && content[1] === 0x8b) {
    throw new ArtifactRejectedError('The body is a gzip archive; upload packages with type PACKAGE');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ArtifactRejectedError(`The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(parsed)) {
    throw new ArtifactRejectedError('The body is not a FHIR resource (a JSON object with resourceType)');
  }
  const resource = parsed;
  const resourceType = resource.resourceType;
  if (typeof resourceType !== 'string' || resourceType === '') {
    throw new ArtifactRejectedError('The body is not a FHIR resource: resourceType is missing', 'resourceType');
  }
  const acceptedType = RESOURCE_ARTIFACT_TYPES.find((type) => type === resourceType);
  if (acceptedType === undefined) {
    throw new ArtifactRejectedError(`A RESOURCE artifact must be one of ${RESOURCE_ARTIFACT_TYPES.join(', ')}; got ${resourceType.slice(0, 60)}`, 'resourceType');
  }
  const text = (key: string) => {
    const value = resource[key];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    resourceType: acceptedType,
    ...(text('id') ? { id: text('id') } : {}),
    ...(text('url') ? { url: text('url') } : {}),
    ...(text('version') ? { version: text('version') } : {}),
    ...(text('fhirVersion') ? { fhirVersion: text('fhirVersion') } : {}),
    resource,
  };
}
