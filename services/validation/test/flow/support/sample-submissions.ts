/**
 * Patient submissions built from ../shared/samples/nhsn-ach (read at test time, never copied):
 * each patient Bundle becomes what the specification says the report service returns, the
 * patient's MeasureReport with the other entries as contained resources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';

export interface SampleSubmission {
  readonly file: string;
  readonly patientId: string;
  readonly bundle: { resourceType: 'Bundle'; entry: { resource: Record<string, unknown> & { resourceType: string } }[] };
}

export function sampleSubmissions(): SampleSubmission[] {
  const dir = sharedDir('samples', 'nhsn-ach');
  const files = readdirSync(dir).filter((f) => f.startsWith('patient-') && f.endsWith('.json')).sort();
  // patient-list.json is a List of the patients, not a submission.
  const bundles = files.map((file) => ({ file, bundle: JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as SampleSubmission['bundle'] }))
    .filter(({ bundle }) => bundle.resourceType === 'Bundle');
  return bundles.map(({ file, bundle }) => {
    bundle.entry = bundle.entry.filter((e) => e?.resource); // a few sample entries carry no resource
    const patient = bundle.entry.find((e) => e.resource.resourceType === 'Patient')?.resource;
    return { file, patientId: String(patient?.id ?? file), bundle };
  });
}

/** The MeasureReport of the Bundle with every other entry contained in it. */
export function measureReportOf(bundle: SampleSubmission['bundle']): Record<string, unknown> {
  const report = bundle.entry.find((e) => e.resource.resourceType === 'MeasureReport')?.resource;
  if (!report) throw new Error('sample bundle has no MeasureReport');
  return { ...report, contained: bundle.entry.filter((e) => e.resource !== report).map((e) => e.resource) };
}
