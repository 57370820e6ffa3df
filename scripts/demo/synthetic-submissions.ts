/**
 * The submissions of the whole-flow demo (`npm run demo`): the shipped examples (examples/bundles,
 * synthetic patients written for this project) that are a patient's submission (a Bundle, or a
 * MeasureReport with its resources contained), each with the verdict and description
 * examples/README.md documents for it. test/examples.int.spec.ts holds the examples to those verdicts
 * through the API, test/demo/demo-flow.int.spec.ts through the validation flow.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEMO_FACILITY = 'demo-facility';
export const DEMO_MEASURES = ['NHSNdQMAcuteCareHospitalInitialPopulation'];
export const DEMO_PERIOD = { start: '2026-10-01T00:00:00Z', end: '2026-10-31T23:59:59Z' };

export const EXAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

export interface DocumentedExample {
  readonly file: string;
  readonly valid: boolean;
  readonly description: string;
}

/** The rows of the table between the `verdicts` markers of examples/README.md. */
export function documentedExamples(readme = readFileSync(path.join(EXAMPLES_DIR, 'README.md'), 'utf8')): DocumentedExample[] {
  const table = readme.slice(readme.indexOf('<!-- verdicts -->'), readme.indexOf('<!-- /verdicts -->'));
  return table.split('\n').flatMap((line) => {
    const cells = line.split('|').map((c) => c.trim());
    const file = /^`([^`]+\.json)`$/.exec(cells[1] ?? '')?.[1];
    return file ? [{ file, valid: cells[2] === 'valid', description: cells[3] ?? '' }] : [];
  });
}

export interface DemoSubmission {
  readonly patientId: string;
  /** What the validation service should answer. */
  readonly expectValid: boolean;
  /** One line for the demo's table. */
  readonly description: string;
  /** What the report service answers for this patient: a submission Bundle, or a MeasureReport with contained resources. */
  readonly body: Record<string, unknown>;
  /** How many resources the validation service validates in it. */
  readonly resourceCount: number;
}

type Resource = Record<string, unknown> & { resourceType: string; id?: string };

function resourcesOf(body: Resource): Resource[] {
  if (body.resourceType === 'Bundle') return ((body.entry ?? []) as { resource: Resource }[]).map((e) => e.resource);
  return [body, ...((body.contained ?? []) as Resource[])];
}

export function demoSubmissions(): DemoSubmission[] {
  return documentedExamples().flatMap((example) => {
    const body = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, 'bundles', example.file), 'utf8')) as Resource;
    if (body.resourceType !== 'Bundle' && body.resourceType !== 'MeasureReport') return [];
    const resources = resourcesOf(body);
    const patientId = resources.find((r) => r.resourceType === 'Patient')?.id;
    if (!patientId) throw new Error(`examples/bundles/${example.file} has no Patient`);
    return [{ patientId, expectValid: example.valid, description: example.description, body, resourceCount: resources.length }];
  });
}
