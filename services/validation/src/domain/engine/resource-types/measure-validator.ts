/**
 * MeasureReport against its Measure (when the Measure is loaded): each report group's
 * stratifiers match the Measure group's by code, and a cohort measure reports no score.
 * Named, as in the HL7 validator, after the Measure whose rules it applies.
 */
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

/** Two CodeableConcepts share a coding (system and code). */
function sameConcept(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b) || !Array.isArray(a.coding) || !Array.isArray(b.coding)) return false;
  for (const x of a.coding) {
    if (!isObject(x)) continue;
    for (const y of b.coding) if (isObject(y) && x.code === y.code && x.system === y.system) return true;
  }
  return false;
}

export class MeasureValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['MeasureReport'];

  validate(ctx: NodeContext, report: Record<string, unknown>): void {
    const url = report.measure;
    if (typeof url !== 'string') return;
    // groups are matched to the Measure's by id among others: an id names one group (DUPLICATE_ID)
    if (Array.isArray(report.group)) {
      const ids = new Set<string>();
      report.group.forEach((g, i) => {
        if (!isObject(g) || typeof g.id !== 'string') return;
        if (ids.has(g.id)) ctx.error('DUPLICATE_ID', [g.id], `${ctx.path}.group[${i}]`, ctx.pos(g));
        ids.add(g.id);
      });
    }
    const measure = ctx.services.resolve('Measure', url);
    if (!isObject(measure)) return;
    const scoring = isObject(measure.scoring) && Array.isArray(measure.scoring.coding) ? (measure.scoring.coding as unknown[]).find(isObject)?.code : undefined;
    if (Array.isArray(report.group) && Array.isArray(measure.group)) {
      const measureGroups = (measure.group as unknown[]).filter(isObject);
      report.group.forEach((g, gi) => {
        if (!isObject(g)) return;
        const mg = measureGroups.find((m) => sameConcept(m.code, g.code)) ?? (measureGroups.length === 1 && report.group && (report.group as unknown[]).length === 1 ? measureGroups[0] : undefined);
        if (mg) this.checkStratifiers(ctx, g, mg, `${ctx.path}.group[${gi}]`);
      });
    }
    if (scoring === 'cohort' && Array.isArray(report.group)) {
      report.group.forEach((g, i) => {
        if (isObject(g) && g.measureScore !== undefined) {
          ctx.error('MEASURE_COHORT_SCORE', [scoring], `${ctx.path}.group[${i}].measureScore`, ctx.propPos(g, 'measureScore'));
        }
      });
    }
  }

  /** Report stratifiers are matched to the Measure's by code; unmatched ones on either side are errors. */
  private checkStratifiers(ctx: NodeContext, group: Record<string, unknown>, measureGroup: Record<string, unknown>, groupPath: string): void {
    const defined = Array.isArray(measureGroup.stratifier) ? (measureGroup.stratifier as unknown[]).filter(isObject) : [];
    const reported = Array.isArray(group.stratifier) ? (group.stratifier as unknown[]) : [];
    const matched = new Set<Record<string, unknown>>();
    reported.forEach((rs, i) => {
      if (!isObject(rs)) return;
      const path = `${groupPath}.stratifier[${i}]`;
      const hit = rs.code === undefined ? undefined : defined.find((d) => sameConcept(d.code, Array.isArray(rs.code) ? rs.code[0] : rs.code));
      if (!hit) ctx.error('MR_STRATIFIER_NO_MATCH', [], path, ctx.pos(rs));
      else matched.add(hit);
    });
    for (const d of defined) {
      if (matched.has(d)) continue;
      const code = isObject(d.code) && Array.isArray(d.code.coding) ? ((d.code.coding as unknown[]).find(isObject)?.code ?? '') : '';
      ctx.error('MR_STRATIFIER_MISSING', [code, d.id ?? ''], groupPath, ctx.pos(group));
    }
  }
}
