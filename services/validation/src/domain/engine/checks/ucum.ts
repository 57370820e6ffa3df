/**
 * UCUM unit conversion for comparing quantities in different units (minValue/maxValue,
 * Questionnaire limits), with @lhncbc/ucum-lhc loaded on first use (its unit tables are big
 * and most validations never need them).
 */
import { createRequire } from 'node:module';
import { MAX_UCUM_CODE_LENGTH } from '../../terminology/builtin/ucum.js';

export interface UnitConverter {
  /** value in `from` units expressed in `to` units; undefined when not convertible. */
  convert(value: number, from: string, to: string): number | undefined;
}

let utils: any;

function ucum(): any {
  if (utils === undefined) {
    try {
      const require = createRequire(import.meta.url);
      utils = require('@lhncbc/ucum-lhc').UcumLhcUtils.getInstance();
    } catch {
      utils = null;
    }
  }
  return utils;
}

export const ucumConverter: UnitConverter = {
  convert(value: number, from: string, to: string): number | undefined {
    if (from === to) return value;
    if (from.length > MAX_UCUM_CODE_LENGTH || to.length > MAX_UCUM_CODE_LENGTH) return undefined; // the library's parser is quadratic on long codes
    const u = ucum();
    if (!u) return undefined;
    try {
      const r = u.convertUnitTo(from, value, to);
      return r?.status === 'succeeded' && typeof r.toVal === 'number' ? r.toVal : undefined;
    } catch {
      return undefined;
    }
  },
};
