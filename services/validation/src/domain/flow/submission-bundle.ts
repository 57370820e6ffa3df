/**
 * Step (2) of the flow: the Bundle that is validated, from whatever the report service answered.
 *
 * - A MeasureReport (the specification's shape): its contained resources become entries, followed
 *   by the MeasureReport itself WITHOUT `contained` (each resource is validated once, on its own).
 * - A Bundle: used as given (entries without a resource are dropped).
 * - The original system's PatientSubmissionModel `{patientResources, otherResources}`: both are JSON
 *   strings of Bundles; the entries of `otherResources` are appended to the patient Bundle, whose
 *   type, meta and fullUrls are kept (link-cloud §1.5).
 *
 * Anything else is a SubmissionFormatError: a definite answer, the submission cannot be validated.
 */
import type { FhirResourceJson, SubmissionBundle } from '../ports/submission-source.js';

export class SubmissionFormatError extends Error {
  override readonly name = 'SubmissionFormatError';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isResource = (value: unknown): value is FhirResourceJson => isObject(value) && typeof value.resourceType === 'string' && value.resourceType !== '';

export function submissionBundle(body: unknown): SubmissionBundle {
  if (typeof body === 'string') body = parseJson(body, 'the report service answer');
  if (!isObject(body)) throw new SubmissionFormatError('The report service answer is not a JSON object');
  if (body.resourceType === 'MeasureReport') return fromMeasureReport(body);
  if (body.resourceType === 'Bundle') return fromBundle(body);
  if ('patientResources' in body || 'otherResources' in body) return fromSubmissionModel(body);
  const what = typeof body.resourceType === 'string' ? `a ${body.resourceType.slice(0, 60)}` : 'neither a FHIR resource nor a PatientSubmissionModel';
  throw new SubmissionFormatError(`The report service answered ${what}; expected a MeasureReport, a Bundle or a PatientSubmissionModel`);
}

/**
 * The Bundle of a submission received as bytes (the report service's answer as it came off the
 * wire): decoded as UTF-8 and read exactly as `submissionBundle` reads the text, so that where the
 * bytes are read (a worker, this thread) never changes the outcome. No bytes read as no answer. A
 * byte order mark is kept, as Buffer#toString keeps it: JSON.parse then refuses it, as before.
 */
export function submissionFromBytes(bytes: Uint8Array): SubmissionBundle {
  return submissionBundle(bytes.byteLength === 0 ? undefined : UTF8.decode(bytes));
}

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

function fromMeasureReport(report: Json): SubmissionBundle {
  const { contained, ...withoutContained } = report;
  const containedResources = Array.isArray(contained) ? contained.filter(isResource) : [];
  // resourceType is already among the members: set again, it keeps its place.
  const measureReport: FhirResourceJson = { ...withoutContained, resourceType: 'MeasureReport' };
  return {
    resourceType: 'Bundle',
    type: 'collection',
    entry: [...containedResources, measureReport].map((resource) => ({ resource })),
  };
}

function fromBundle(bundle: Json): SubmissionBundle {
  const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
  return {
    ...bundle,
    resourceType: 'Bundle',
    entry: entries.filter((e): e is { fullUrl?: string; resource: FhirResourceJson } => isObject(e) && isResource(e.resource)),
  };
}

function fromSubmissionModel(model: Json): SubmissionBundle {
  const patient = bundleField(model, 'patientResources');
  const other = bundleField(model, 'otherResources');
  if (!patient) throw new SubmissionFormatError('The PatientSubmissionModel has no patientResources Bundle');
  return other ? { ...patient, entry: [...patient.entry, ...other.entry] } : patient;
}

function bundleField(model: Json, field: string): SubmissionBundle | undefined {
  const raw = model[field];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'string' ? parseJson(raw, field) : raw;
  if (!isObject(value) || value.resourceType !== 'Bundle') throw new SubmissionFormatError(`PatientSubmissionModel.${field} is not a FHIR Bundle`);
  return fromBundle(value);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SubmissionFormatError(`${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}
