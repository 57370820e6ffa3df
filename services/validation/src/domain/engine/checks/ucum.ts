/**
 * UCUM unit conversion for comparing quantities in different units (minValue/maxValue,
 * Questionnaire limits), on the service's one UCUM library (terminology/builtin/ucum.ts).
 */
import { MAX_UCUM_CODE_LENGTH, ucumLibrary } from '../../terminology/builtin/ucum.js';

export interface UnitConverter {
  /** value in `from` units expressed in `to` units; undefined when not convertible. */
  convert(value: number, from: string, to: string): number | undefined;
}

export const ucumConverter: UnitConverter = {
  convert(value: number, from: string, to: string): number | undefined {
    if (from === to) return value;
    if (from.length > MAX_UCUM_CODE_LENGTH || to.length > MAX_UCUM_CODE_LENGTH) return undefined; // the library's parser is quadratic on long codes
    try {
      const r = ucumLibrary().convertUnitTo(from, value, to);
      return r?.status === 'succeeded' && typeof r.toVal === 'number' ? r.toVal : undefined;
    } catch {
      return undefined;
    }
  },
};
