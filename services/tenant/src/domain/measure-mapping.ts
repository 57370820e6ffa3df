import { ProblemCollector } from '#shared-kernel/domain/errors.js';
import { FREQUENCIES, type Frequency } from './reporting-period.js';

/** Links a measure (short name) to its dQM id and reporting frequency. Unique per (measure, dqm). */
export interface MeasureMapping {
  readonly id: string;
  readonly dqm: string;
  readonly measure: string;
  readonly frequency: Frequency;
  readonly createDate: Date;
  readonly modifyDate: Date | null;
}

export interface MeasureMappingInput {
  readonly dqm: string;
  readonly measure: string;
  readonly frequency: string;
}

export const MAPPING_TEXT_MAX_LENGTH = 255;

export function validateMeasureMappingInput(input: MeasureMappingInput): { dqm: string; measure: string; frequency: Frequency } {
  const problems = new ProblemCollector();
  const dqm = (input.dqm ?? '').trim();
  const measure = (input.measure ?? '').trim();
  for (const [field, value] of [['dqm', dqm], ['measure', measure]] as const) {
    if (value === '') problems.add(field, `${field} is required`);
    else if (value.length > MAPPING_TEXT_MAX_LENGTH) problems.add(field, `${field} must be at most ${MAPPING_TEXT_MAX_LENGTH} characters`);
  }
  const frequency = FREQUENCIES.find((known) => known.toLowerCase() === (input.frequency ?? '').trim().toLowerCase());
  if (!frequency) problems.add('frequency', `frequency must be one of ${FREQUENCIES.join(', ')}; got ${JSON.stringify(input.frequency)}`);
  problems.throwIfAny();
  if (!frequency) throw new Error('not reached: a missing frequency is one of the problems thrown above');
  return { dqm, measure, frequency };
}

/** A scheduled measure id refers to a mapping when it equals the mapping's dQM id or measure name. */
export function mappingNames(mapping: Pick<MeasureMapping, 'dqm' | 'measure'>): string[] {
  return [mapping.dqm, mapping.measure];
}
