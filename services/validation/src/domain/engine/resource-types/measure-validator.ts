/**
 * MeasureReport against its Measure (when the Measure is loaded), as HL7's MeasureValidator:
 * report groups, their populations and stratifiers match the Measure's by code (each reported
 * once, none missing), a subject list's counts match its subjects, and a cohort measure reports no score.
 * Named, as in the HL7 validator, after the Measure whose rules it applies.
 */
import type { NodeContext } from '../context/node-context.js';
import { isArray, isObject, str } from '../json/json-value.js';
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

const hasCodings = (cc: unknown): boolean => isObject(cc) && Array.isArray(cc.coding) && cc.coding.length > 0;

/** As HL7 matches a stratifier: a shared coding, or, when neither has codings, the same text. */
function sameStratifierCode(defined: unknown, reported: unknown): boolean {
  if (sameConcept(defined, reported)) return true;
  return isObject(defined) && isObject(reported) && !hasCodings(defined) && !hasCodings(reported)
    && typeof defined.text === 'string' && defined.text === reported.text;
}

/** A CodeableConcept as HL7's DataRenderer shows it in a message: its text, else its first coding's display or code. */
function displayConcept(cc: unknown): string {
  if (!isObject(cc)) return '';
  if (typeof cc.text === 'string') return cc.text;
  const first = isArray(cc.coding) ? cc.coding.find(isObject) : undefined;
  return first ? (str(first.display) ?? str(first.code) ?? '') : '';
}

const MEASURE_OBSERVATION = (cc: unknown) => isObject(cc) && Array.isArray(cc.coding)
  && cc.coding.some((c) => isObject(c) && c.system === 'http://terminology.hl7.org/CodeSystem/measure-population' && c.code === 'measure-observation');

const objects = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** ELM's statement names (`<statements><def name="…">`) of the Library's compiled CQL (application/elm+xml); undefined when it has none. */
function elmStatementNames(library: Record<string, unknown>): Set<string> | undefined {
  for (const content of objects(library.content)) {
    if (content.contentType !== 'application/elm+xml' || typeof content.data !== 'string') continue;
    const xml = Buffer.from(content.data, 'base64').toString('utf8');
    const names = new Set<string>();
    const start = xml.indexOf('<statements');
    if (start < 0) return names;
    const end = xml.indexOf('</statements>', start);
    const body = xml.slice(start, end < 0 ? xml.length : end);
    // each `<def ` tag: its name attribute (indexOf scans, nothing backtracks over the content)
    for (let at = body.indexOf('<def '); at >= 0; at = body.indexOf('<def ', at + 5)) {
      const close = body.indexOf('>', at);
      const tag = body.slice(at, close < 0 ? body.length : close);
      const n = tag.indexOf(' name="');
      if (n < 0) continue;
      const q = tag.indexOf('"', n + 7);
      if (q > n) names.add(tag.slice(n + 7, q));
    }
    return names;
  }
  return undefined;
}

/** A MeasureReport and the Measure it reports on, as each of its groups is checked against the Measure's. */
interface ReportAndMeasure {
  readonly report: Record<string, unknown>;
  readonly measure: Record<string, unknown>;
}

export class MeasureValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['MeasureReport', 'Measure'];

  validate(ctx: NodeContext, resource: Record<string, unknown>): void {
    if (resource.resourceType === 'Measure') this.validateMeasure(ctx, resource);
    else this.validateReport(ctx, resource);
  }

  /**
   * A Measure's stratifier criteria in CQL, as HL7's validateMeasure checks them: the expression's
   * library (by the name before the dot, or the only one) must be among the Measure's libraries
   * that resolve, and name a definition its compiled ELM has.
   */
  private validateMeasure(ctx: NodeContext, measure: Record<string, unknown>): void {
    const libraries: Record<string, unknown>[] = [];
    if (Array.isArray(measure.library)) {
      for (const ref of measure.library) {
        const lib = typeof ref === 'string' ? ctx.services.resolve('Library', ref) : undefined;
        if (isObject(lib)) libraries.push(lib);
      }
    }
    objects(measure.group).forEach((group, gi) => {
      objects(group.stratifier).forEach((st, si) => {
        const path = `${ctx.path}.group[${String(gi)}].stratifier[${String(si)}]`;
        if (isObject(st.criteria)) this.checkCriteria(ctx, st.criteria, libraries, `${path}.criteria`);
        objects(st.component).forEach((cp, ci) => {
          if (isObject(cp.criteria)) this.checkCriteria(ctx, cp.criteria, libraries, `${path}.component[${String(ci)}].criteria`);
        });
      });
    });
  }

  private checkCriteria(ctx: NodeContext, criteria: Record<string, unknown>, libraries: Record<string, unknown>[], path: string): void {
    if (criteria.language !== 'text/cql' && criteria.language !== 'text/cql.identifier') return;
    if (typeof criteria.expression !== 'string') return;
    if (libraries.length === 0) {
      ctx.error('MEASURE_CQL_NO_LIBRARY', [], path, ctx.pos(criteria));
      return;
    }
    let ref = criteria.expression;
    let lib: Record<string, unknown>;
    const dot = ref.indexOf('.');
    if (dot >= 0) {
      const name = ref.slice(0, dot);
      ref = ref.slice(dot + 1);
      const named = libraries.find((l) => l.name === name);
      if (!named) {
        ctx.error('MEASURE_CQL_LIBRARY_NOT_FOUND', [name], path, ctx.pos(criteria));
        return;
      }
      lib = named;
    } else if (libraries.length === 1 && libraries[0]) {
      lib = libraries[0];
    } else {
      ctx.error('MEASURE_CQL_ONLY_ONE_LIBRARY', [], path, ctx.pos(criteria));
      return;
    }
    const names = elmStatementNames(lib);
    // a library without compiled ELM: nothing to check the name against here
    if (names && !names.has(ref)) ctx.error('MEASURE_CQL_NOT_FOUND', [str(lib.url) ?? '', ref], path, ctx.pos(criteria));
  }

  private validateReport(ctx: NodeContext, report: Record<string, unknown>): void {
    const url = report.measure;
    if (typeof url !== 'string') return;
    // groups are matched to the Measure's by id among others: an id names one group (DUPLICATE_ID)
    if (Array.isArray(report.group)) {
      const ids = new Set<string>();
      report.group.forEach((g, i) => {
        if (!isObject(g) || typeof g.id !== 'string') return;
        if (ids.has(g.id)) ctx.error('DUPLICATE_ID', [g.id], `${ctx.path}.group[${String(i)}]`, ctx.pos(g));
        ids.add(g.id);
      });
    }
    const measure = ctx.services.resolve('Measure', url);
    if (!isObject(measure)) return;
    this.checkGroups(ctx, report, measure);
  }

  /**
   * As HL7's MeasureValidator: one report group against one Measure group is matched whatever its
   * code; otherwise each report group names its Measure group by code, and every Measure group is
   * reported (unless the report is a data collection).
   */
  private checkGroups(ctx: NodeContext, report: Record<string, unknown>, measure: Record<string, unknown>): void {
    const measureGroups = objects(measure.group);
    const against: ReportAndMeasure = { report, measure };
    const raw = isArray(report.group) ? report.group : [];
    const groups = raw.map((g, i) => ({ g, i })).filter((x): x is { g: Record<string, unknown>; i: number } => isObject(x.g));
    const type = report.type;
    const only = groups.length === 1 && measureGroups.length === 1 ? groups[0] : undefined;
    const onlyMeasureGroup = measureGroups[0];
    if (only && onlyMeasureGroup) {
      // one group each: matched whatever its code, but codes both give must agree
      const { g, i } = only;
      const path = `${ctx.path}.group[${String(i)}]`;
      if (onlyMeasureGroup.code !== undefined && isObject(g.code)) {
        const usable = Array.isArray(g.code.coding) && g.code.coding.some((c) => isObject(c) && typeof c.system === 'string' && typeof c.code === 'string');
        if (!usable) ctx.error('MR_GROUP_NO_USABLE_CODE', [], path, ctx.pos(g));
        else if (!sameConcept(g.code, onlyMeasureGroup.code)) ctx.error('MR_GROUP_WRONG_CODE', [displayConcept(g.code), displayConcept(onlyMeasureGroup.code)], path, ctx.pos(g));
      }
      this.checkGroup(ctx, against, g, onlyMeasureGroup, path);
      return;
    }
    const matched = new Set<Record<string, unknown>>();
    for (const { g, i } of groups) {
      const path = `${ctx.path}.group[${String(i)}]`;
      if (g.code === undefined) {
        ctx.error('MR_GROUP_NO_CODE', [], path, ctx.pos(g));
        continue;
      }
      const mg = measureGroups.find((m) => m.code !== undefined && sameConcept(m.code, g.code));
      if (!mg) {
        ctx.error('MR_GROUP_NO_MATCH', [displayConcept(g.code)], path, ctx.pos(g));
        continue;
      }
      if (matched.has(mg)) {
        ctx.error('MR_GROUP_DUPLICATE', [], path, ctx.pos(g));
        continue;
      }
      matched.add(mg);
      this.checkGroup(ctx, against, g, mg, path);
    }
    if (type === 'data-collection') return;
    for (const mg of measureGroups) if (!matched.has(mg)) ctx.error('MR_GROUP_MISSING', [displayConcept(mg.code)], ctx.path, ctx.pos(report));
  }

  private checkGroup(ctx: NodeContext, against: ReportAndMeasure, group: Record<string, unknown>, measureGroup: Record<string, unknown>, groupPath: string): void {
    const { report, measure } = against;
    this.checkPopulations(ctx, report, group, measureGroup, groupPath);
    this.checkScore(ctx, report, measure, group, groupPath);
    this.checkStratifiers(ctx, group, measureGroup, groupPath);
  }

  /**
   * The group's measureScore as HL7's validateScore checks it: none in a data collection or for a
   * cohort measure; required for proportion, ratio and continuous-variable scoring, with a value (or
   * DEQM's alternateScoreType extension's); a proportion is a unitless number from 0 to 1; a unit
   * the Measure fixes (questionnaire-unit) must be the score's.
   */
  private checkScore(ctx: NodeContext, report: Record<string, unknown>, measure: Record<string, unknown>, group: Record<string, unknown>, groupPath: string): void {
    const scoring = isObject(measure.scoring) && isArray(measure.scoring.coding) ? measure.scoring.coding.find(isObject)?.code : undefined;
    const ms = group.measureScore;
    const msPath = `${groupPath}.measureScore`;
    if (report.type === 'data-collection') {
      if (ms !== undefined) ctx.error('MEASURE_MR_SCORE_PROHIBITED_RT', [], msPath, ctx.propPos(group, 'measureScore'));
      return;
    }
    if (scoring === 'cohort') {
      if (ms !== undefined) ctx.error('MEASURE_COHORT_SCORE', [scoring], msPath, ctx.propPos(group, 'measureScore'));
      return;
    }
    if (scoring !== 'proportion' && scoring !== 'ratio' && scoring !== 'continuous-variable') return;
    if (!isObject(ms)) {
      ctx.error('MEASURE_MR_SCORE_REQUIRED', [scoring], groupPath, ctx.pos(group));
      return;
    }
    let value = ms.value;
    if (value === undefined) {
      const alternate = objects(ms.extension).find((x) => x.url === 'http://hl7.org/fhir/us/davinci-deqm/StructureDefinition/extension-alternateScoreType');
      if (alternate) {
        const key = Object.keys(alternate).find((k) => k.startsWith('value'));
        if (key) value = alternate[key];
      }
    }
    if (scoring === 'proportion') {
      for (const key of ['unit', 'system', 'code']) {
        if (ms[key] !== undefined) ctx.error('MEASURE_MR_SCORE_UNIT_PROHIBITED', ['proportion'], `${msPath}.${key}`, ctx.propPos(ms, key));
      }
      if (value === undefined) ctx.error('MEASURE_MR_SCORE_VALUE_REQUIRED', ['proportion'], msPath, ctx.pos(ms));
      else if (typeof value === 'number' && (value < 0 || value > 1)) ctx.error('MEASURE_MR_SCORE_VALUE_INVALID_01', [], `${msPath}.value`, ctx.propPos(ms, 'value'));
      return;
    }
    if (value === undefined) {
      ctx.error('MEASURE_MR_SCORE_VALUE_REQUIRED', [scoring], msPath, ctx.pos(ms));
      return;
    }
    const unitExt = objects(measure.extension).find((x) => x.url === 'http://hl7.org/fhir/StructureDefinition/questionnaire-unit');
    const fixed = isObject(unitExt?.valueCoding) ? unitExt.valueCoding : undefined;
    if (ms.code !== undefined) {
      if (fixed) {
        if (fixed.code !== ms.code) ctx.error('MEASURE_MR_SCORE_FIXED', [fixed.code], `${msPath}.code`, ctx.propPos(ms, 'code'));
        if (ms.system !== undefined && fixed.system !== ms.system) ctx.error('MEASURE_MR_SCORE_FIXED', [fixed.system], msPath, ctx.pos(ms));
      }
    } else if (fixed) {
      ctx.error('MEASURE_MR_SCORE_FIXED', [str(fixed.display) ?? str(fixed.code) ?? ''], msPath, ctx.pos(ms));
    } else if (scoring === 'ratio') {
      ctx.warning('MEASURE_MR_SCORE_UNIT_REQUIRED', ['ratio'], msPath, ctx.pos(ms));
    }
  }

  /** Each report population names a Measure population by code; each Measure population (but measure-observation) is reported. */
  private checkPopulations(ctx: NodeContext, report: Record<string, unknown>, group: Record<string, unknown>, measureGroup: Record<string, unknown>, groupPath: string): void {
    const defined = objects(measureGroup.population);
    const matched = new Set<Record<string, unknown>>();
    const raw = isArray(group.population) ? group.population : [];
    raw.forEach((p, i) => {
      if (!isObject(p)) return;
      const path = `${groupPath}.population[${String(i)}]`;
      if (p.code === undefined) {
        ctx.error('MR_POPULATION_NO_CODE', [], path, ctx.pos(p));
        return;
      }
      const mp = defined.find((d) => d.code !== undefined && sameConcept(d.code, p.code));
      if (!mp) {
        ctx.error('MR_POPULATION_NO_MATCH', [], path, ctx.pos(p));
        return;
      }
      if (matched.has(mp)) {
        ctx.error('MR_POPULATION_DUPLICATE', [], path, ctx.pos(p));
        return;
      }
      matched.add(mp);
      const subjects = Array.isArray(p.subjectResults) ? p.subjectResults.length : p.subjectResults === undefined ? 0 : 1;
      if (report.type === 'subject-list') {
        if (typeof p.count === 'number' && Number.isInteger(p.count) && p.count !== subjects) ctx.error('MR_POPULATION_COUNT_MISMATCH', [p.count, subjects], path, ctx.pos(p));
      } else if (subjects > 0) {
        ctx.error('MR_POPULATION_NO_SUBJECTS', [], path, ctx.pos(p));
      }
    });
    for (const d of defined) {
      if (!matched.has(d) && !MEASURE_OBSERVATION(d.code)) ctx.error('MR_GROUP_MISSING', [displayConcept(d.code)], groupPath, ctx.pos(group));
    }
  }

  /** Report stratifiers are matched to the Measure's by code; unmatched ones on either side are errors. */
  private checkStratifiers(ctx: NodeContext, group: Record<string, unknown>, measureGroup: Record<string, unknown>, groupPath: string): void {
    const defined = objects(measureGroup.stratifier);
    const reported = isArray(group.stratifier) ? group.stratifier : [];
    const matched = new Set<Record<string, unknown>>();
    reported.forEach((rs, i) => {
      if (!isObject(rs)) return;
      const path = `${groupPath}.stratifier[${String(i)}]`;
      const hit = rs.code === undefined ? undefined : defined.find((d) => sameStratifierCode(d.code, Array.isArray(rs.code) ? rs.code[0] : rs.code));
      if (!hit) ctx.error('MR_STRATIFIER_NO_MATCH', [], path, ctx.pos(rs));
      else matched.add(hit);
    });
    for (const d of defined) {
      if (matched.has(d)) continue;
      const code = isObject(d.code) && isArray(d.code.coding) ? (d.code.coding.find(isObject)?.code ?? '') : '';
      ctx.error('MR_STRATIFIER_MISSING', [code, d.id ?? ''], groupPath, ctx.pos(group));
    }
  }
}
