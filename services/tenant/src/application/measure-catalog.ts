import { InvalidInputError } from '#shared-kernel/domain/errors.js';
import { mappingNames } from '../domain/measure-mapping.js';
import { unknownMeasures } from '../domain/measure-check.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import type { TenantContext } from './context.js';

/**
 * Applies MeasureConfig__CheckIfMeasureExists to scheduled measures: when on, each must be a
 * known measure mapping (by dQM id or measure name), else 400 naming the measures.
 */
export async function assertMeasuresExist(context: TenantContext, tx: TenantTransaction, field: string, measures: readonly string[]): Promise<void> {
  if (!context.settings.checkIfMeasureExists || measures.length === 0) return;
  const known = new Set((await tx.mappings.list()).flatMap(mappingNames));
  const missing = unknownMeasures(measures, known);
  if (missing.length > 0) {
    throw InvalidInputError.of(field, `${field}: measure${missing.length > 1 ? 's' : ''} not found among the measure mappings: ${missing.join(', ')}`);
  }
}
