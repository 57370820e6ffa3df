/**
 * Synthetic patient submissions for the whole-flow demo (`npm run demo`), written for this project:
 * made-up patients, shaped like NHSN acute-care submissions (a DEQM individual MeasureReport, a
 * Patient under the NHSN cross-measure profile, an Encounter under the NHSN acute-care profile).
 * Each says whether the service should judge it valid with the embedded packages and the default
 * categories, and why; scripts/demo/test/synthetic-submissions.spec.ts holds them to that.
 */

export const DEMO_FACILITY = 'demo-facility';
export const DEMO_MEASURES = ['NHSNdQMAcuteCareHospitalInitialPopulation'];
export const DEMO_PERIOD = { start: '2026-10-01T00:00:00Z', end: '2026-10-31T23:59:59Z' };

const NHSN = 'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/StructureDefinition';
const DEQM_INDIVIDUAL = 'http://hl7.org/fhir/us/davinci-deqm/StructureDefinition/indv-measurereport-deqm';
const MEASURE = 'http://www.cdc.gov/nhsn/fhirportal/dqm/ig/Measure/NHSNdQMAcuteCareHospitalInitialPopulation';

type Resource = Record<string, unknown> & { resourceType: string; id: string };

export interface DemoSubmission {
  readonly patientId: string;
  /** What the validation service should answer. */
  readonly expectValid: boolean;
  /** One line for the demo's table. */
  readonly description: string;
  /** What the report service answers for this patient: a submission Bundle, or a MeasureReport with contained resources. */
  readonly body: Record<string, unknown>;
}

function patient(id: string, overrides: Record<string, unknown> = {}): Resource {
  return {
    resourceType: 'Patient', id,
    meta: { profile: [`${NHSN}/cross-measure-patient`] },
    identifier: [{ system: 'http://demo-hospital.example/mrn', value: `MRN-${id}` }],
    name: [{ family: 'Example', given: ['Demo', id] }],
    gender: 'female', birthDate: '1958-04-12',
    ...overrides,
  };
}

function encounter(id: string, patientId: string, overrides: Record<string, unknown> = {}): Resource {
  const stay = { start: '2026-10-03T08:00:00Z', end: '2026-10-07T12:00:00Z' };
  return {
    resourceType: 'Encounter', id,
    meta: { profile: [`${NHSN}/ach-encounter`] },
    identifier: [{ system: 'http://demo-hospital.example/encounter', value: `ENC-${id}` }],
    status: 'finished',
    class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'IMP', display: 'inpatient encounter' },
    type: [{ coding: [{ system: 'http://snomed.info/sct', code: '183452005', display: 'Emergency hospital admission (procedure)' }] }],
    subject: { reference: `Patient/${patientId}` },
    period: stay,
    location: [{ location: { reference: 'Location/demo-icu', display: 'Medical ICU' }, period: stay }],
    ...overrides,
  };
}

function measureReport(id: string, patientId: string, evaluated: string[]): Resource {
  return {
    resourceType: 'MeasureReport', id,
    meta: { profile: [DEQM_INDIVIDUAL] },
    status: 'complete', type: 'individual', measure: MEASURE,
    subject: { reference: `Patient/${patientId}` },
    date: '2026-11-01T10:00:00Z',
    reporter: { reference: 'Organization/demo-hospital', display: 'Demo General Hospital' },
    period: DEMO_PERIOD,
    group: [{
      population: [{ code: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/measure-population', code: 'initial-population' }] }, count: 1 }],
      measureScore: { value: 1 },
    }],
    evaluatedResource: evaluated.map((reference) => ({ reference })),
  };
}

function submissionBundle(patientId: string, resources: Resource[]): Record<string, unknown> {
  return {
    resourceType: 'Bundle', id: `submission-${patientId}`, type: 'collection',
    entry: resources.map((resource) => ({ fullUrl: `http://demo-hospital.example/fhir/${resource.resourceType}/${resource.id}`, resource })),
  };
}

export function demoSubmissions(): DemoSubmission[] {
  const a = 'demo-patient-a';
  const b = 'demo-patient-b';
  const c = 'demo-patient-c';
  const d = 'demo-patient-d';
  return [
    {
      patientId: a, expectValid: true,
      description: 'complete submission (only acceptable warnings)',
      body: submissionBundle(a, [measureReport(`mr-${a}`, a, [`Encounter/enc-${a}`]), patient(a), encounter(`enc-${a}`, a)]),
    },
    {
      patientId: b, expectValid: true,
      description: 'the same as a MeasureReport with contained resources',
      body: { ...measureReport(`mr-${b}`, b, [`Encounter/enc-${b}`]), contained: [patient(b), encounter(`enc-${b}`, b)] },
    },
    {
      patientId: c, expectValid: false,
      description: 'Encounter without identifier, Patient gender not a FHIR code',
      body: submissionBundle(c, [
        measureReport(`mr-${c}`, c, [`Encounter/enc-${c}`]),
        patient(c, { gender: 'F' }),
        encounter(`enc-${c}`, c, { identifier: undefined }),
      ]),
    },
    {
      patientId: d, expectValid: false,
      description: 'claims an NHSN profile no package defines',
      body: submissionBundle(d, [
        measureReport(`mr-${d}`, d, [`Encounter/enc-${d}`]),
        patient(d, { meta: { profile: [`${NHSN}/cross-measure-patient-v9`] } }),
        encounter(`enc-${d}`, d),
      ]),
    },
  ];
}
