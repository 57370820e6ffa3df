/**
 * MeasureReport against its Measure (when the Measure is loaded), as HL7's MeasureValidator:
 * report groups, their populations and stratifiers match the Measure's by code (each reported
 * once, none missing), a subject list's counts match its subjects, and a cohort measure reports no score.
 * Named, as in the HL7 validator, after the Measure whose rules it applies.
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isArray, isObject, str } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

/** The codings of a CodeableConcept (read as plain JSON: the Measure's are a definition's, not the instance's). */
function codingsOf(cc: unknown): Record<string, unknown>[] {
  return isObject(cc) && isArray(cc.coding) ? cc.coding.filter(isObject) : [];
}

/** Two CodeableConcepts share a coding (system and code). */
function sameConcept(a: unknown, b: unknown): boolean {
  const theirs = codingsOf(b);
  return codingsOf(a).some((x) => theirs.some((y) => x.code === y.code && x.system === y.system));
}

const hasCodings = (cc: unknown): boolean => codingsOf(cc).length > 0;

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
  const first = codingsOf(cc)[0];
  return first ? (str(first.display) ?? str(first.code) ?? '') : '';
}

const MEASURE_OBSERVATION = (cc: unknown) => codingsOf(cc)
  .some((c) => c.system === 'http://terminology.hl7.org/CodeSystem/measure-population' && c.code === 'measure-observation');

const objects = (v: unknown): Record<string, unknown>[] => (isArray(v) ? v.filter(isObject) : []);

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

/** The scorings whose scores HL7's MeasureValidator knows how to check. */
const KNOWN_SCORINGS = new Set(['proportion', 'ratio', 'continuous-variable', 'cohort']);

/** The Measure a report names as `#id` among its own contained resources. */
function containedMeasure(report: JsonNode, id: string): Record<string, unknown> | undefined {
  return report.listedObjects('contained').map((c) => c.object).find((c) => isObject(c) && c.resourceType === 'Measure' && c.id === id);
}

/** A MeasureReport and the Measure it reports on, as each of its groups is checked against the Measure's. */
interface ReportAndMeasure {
  readonly report: JsonNode;
  readonly measure: Record<string, unknown>;
}

export class MeasureValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['MeasureReport', 'Measure'];

  validate(ctx: NodeContext, resource: Record<string, unknown>): void {
    if (resource.resourceType === 'Measure') this.validateMeasure(ctx, ctx.nodeOf(resource));
    else this.validateReport(ctx, ctx.nodeOf(resource));
  }

  /**
   * A Measure's stratifier criteria in CQL, as HL7's validateMeasure checks them: the expression's
   * library (by the name before the dot, or the only one) must be among the Measure's libraries
   * that resolve, and name a definition its compiled ELM has.
   */
  private validateMeasure(ctx: NodeContext, measure: JsonNode): void {
    const libraries: Record<string, unknown>[] = [];
    for (const ref of measure.listed('library')) {
      const lib = ref.string === undefined ? undefined : ctx.services.resolve('Library', ref.string);
      if (isObject(lib)) libraries.push(lib);
    }
    for (const group of measure.listedObjects('group')) {
      for (const st of group.listedObjects('stratifier')) {
        this.checkCriteria(st.child('criteria'), libraries);
        for (const cp of st.listedObjects('component')) this.checkCriteria(cp.child('criteria'), libraries);
      }
    }
  }

  private checkCriteria(criteria: JsonNode | undefined, libraries: Record<string, unknown>[]): void {
    if (criteria === undefined || !criteria.isObject) return;
    const language = criteria.str('language');
    if (language !== 'text/cql' && language !== 'text/cql.identifier') return;
    let ref = criteria.str('expression');
    if (ref === undefined) return;
    if (libraries.length === 0) {
      criteria.error('MEASURE_CQL_NO_LIBRARY', []);
      return;
    }
    let lib: Record<string, unknown>;
    const dot = ref.indexOf('.');
    if (dot >= 0) {
      const name = ref.slice(0, dot);
      ref = ref.slice(dot + 1);
      const named = libraries.find((l) => l.name === name);
      if (!named) {
        criteria.error('MEASURE_CQL_LIBRARY_NOT_FOUND', [name]);
        return;
      }
      lib = named;
    } else if (libraries.length === 1 && libraries[0]) {
      lib = libraries[0];
    } else {
      criteria.error('MEASURE_CQL_ONLY_ONE_LIBRARY', []);
      return;
    }
    const names = elmStatementNames(lib);
    // a library without compiled ELM: nothing to check the name against here
    if (names && !names.has(ref)) criteria.error('MEASURE_CQL_NOT_FOUND', [str(lib.url) ?? '', ref]);
  }

  /**
   * As HL7's validateMeasureReport: a report that names no Measure gets a hint, one whose Measure
   * does not resolve (neither loaded nor contained: `#id`) a warning at the report, since nothing
   * can be checked against it; a resolved Measure whose scoring is none of the four HL7 knows gets a
   * hint at `measure` (its scores cannot be checked).
   */
  private validateReport(ctx: NodeContext, report: JsonNode): void {
    const url = report.str('measure');
    if (url === undefined) {
      report.information('Measure_MR_M_None', []);
      return;
    }
    const groups = report.listedObjects('group');
    // groups are matched to the Measure's by id among others: an id names one group (DUPLICATE_ID)
    const ids = new Set<string>();
    for (const g of groups) {
      const id = g.str('id');
      if (id === undefined) continue;
      if (ids.has(id)) g.error('DUPLICATE_ID', [id]);
      ids.add(id);
    }
    const measure = url.startsWith('#') ? containedMeasure(report, url.slice(1)) : ctx.services.resolve('Measure', url);
    if (!isObject(measure) || measure.resourceType !== 'Measure') {
      report.warning('Measure_MR_M_NotFound', [url]);
      return;
    }
    const scoring = codingsOf(measure.scoring)[0]?.code;
    if (!KNOWN_SCORINGS.has(String(scoring))) report.first('measure')?.information('MEASURE_MR_M_SCORING_UNK', []);
    this.checkGroups({ report, measure }, groups);
  }

  /**
   * As HL7's MeasureValidator: one report group against one Measure group is matched whatever its
   * code; otherwise each report group names its Measure group by code, and every Measure group is
   * reported (unless the report is a data collection).
   */
  private checkGroups(against: ReportAndMeasure, groups: readonly JsonNode[]): void {
    const { report, measure } = against;
    const measureGroups = objects(measure.group);
    const only = groups.length === 1 && measureGroups.length === 1 ? groups[0] : undefined;
    const onlyMeasureGroup = measureGroups[0];
    if (only && onlyMeasureGroup) {
      // one group each: matched whatever its code, but codes both give must agree
      const code = only.child('code');
      if (onlyMeasureGroup.code !== undefined && code?.isObject === true) {
        const usable = code.listedObjects('coding').some((c) => c.str('system') !== undefined && c.str('code') !== undefined);
        if (!usable) only.error('MR_GROUP_NO_USABLE_CODE', []);
        else if (!sameConcept(code.value, onlyMeasureGroup.code)) only.error('MR_GROUP_WRONG_CODE', [displayConcept(code.value), displayConcept(onlyMeasureGroup.code)]);
      }
      this.checkGroup(against, only, onlyMeasureGroup);
      return;
    }
    const matched = new Set<Record<string, unknown>>();
    for (const g of groups) {
      const code = g.child('code');
      if (code === undefined) {
        g.error('MR_GROUP_NO_CODE', []);
        continue;
      }
      const mg = measureGroups.find((m) => m.code !== undefined && sameConcept(m.code, code.value));
      if (!mg) {
        g.error('MR_GROUP_NO_MATCH', [displayConcept(code.value)]);
        continue;
      }
      if (matched.has(mg)) {
        g.error('MR_GROUP_DUPLICATE', []);
        continue;
      }
      matched.add(mg);
      this.checkGroup(against, g, mg);
    }
    if (report.str('type') === 'data-collection') return;
    for (const mg of measureGroups) if (!matched.has(mg)) report.error('MR_GROUP_MISSING', [displayConcept(mg.code)]);
  }

  private checkGroup(against: ReportAndMeasure, group: JsonNode, measureGroup: Record<string, unknown>): void {
    this.checkPopulations(against.report, group, measureGroup);
    this.checkScore(against, group);
    this.checkStratifiers(group, measureGroup);
  }

  /**
   * The group's measureScore as HL7's validateScore checks it: none in a data collection or for a
   * cohort measure; required for proportion, ratio and continuous-variable scoring, with a value (or
   * DEQM's alternateScoreType extension's); a proportion is a unitless number from 0 to 1; a unit
   * the Measure fixes (questionnaire-unit) must be the score's.
   */
  private checkScore(against: ReportAndMeasure, group: JsonNode): void {
    const { report, measure } = against;
    const scoring = codingsOf(measure.scoring)[0]?.code;
    const ms = group.child('measureScore');
    if (report.str('type') === 'data-collection') {
      ms?.error('MEASURE_MR_SCORE_PROHIBITED_RT', []);
      return;
    }
    if (scoring === 'cohort') {
      ms?.error('MEASURE_COHORT_SCORE', [scoring]);
      return;
    }
    if (scoring !== 'proportion' && scoring !== 'ratio' && scoring !== 'continuous-variable') return;
    if (ms === undefined || !ms.isObject) {
      group.error('MEASURE_MR_SCORE_REQUIRED', [scoring]);
      return;
    }
    const valueNode = ms.child('value');
    let value = valueNode?.value;
    if (value === undefined) {
      const alternate = ms.listedObjects('extension').find((x) => x.str('url') === 'http://hl7.org/fhir/us/davinci-deqm/StructureDefinition/extension-alternateScoreType')?.object;
      if (alternate) {
        const key = Object.keys(alternate).find((k) => k.startsWith('value'));
        if (key) value = alternate[key];
      }
    }
    if (scoring === 'proportion') {
      for (const key of ['unit', 'system', 'code']) ms.child(key)?.error('MEASURE_MR_SCORE_UNIT_PROHIBITED', ['proportion']);
      if (value === undefined) ms.error('MEASURE_MR_SCORE_VALUE_REQUIRED', ['proportion']);
      else if (typeof value === 'number' && (value < 0 || value > 1)) {
        // an alternate score (in an extension) is reported at the score it stands for
        (valueNode ?? ms).error('MEASURE_MR_SCORE_VALUE_INVALID_01', []);
      }
      return;
    }
    if (value === undefined) {
      ms.error('MEASURE_MR_SCORE_VALUE_REQUIRED', [scoring]);
      return;
    }
    const unitExt = objects(measure.extension).find((x) => x.url === 'http://hl7.org/fhir/StructureDefinition/questionnaire-unit');
    const fixed = isObject(unitExt?.valueCoding) ? unitExt.valueCoding : undefined;
    const code = ms.child('code');
    if (code !== undefined) {
      if (fixed) {
        if (fixed.code !== code.value) code.error('MEASURE_MR_SCORE_FIXED', [fixed.code]);
        const system = ms.child('system');
        if (system !== undefined && fixed.system !== system.value) ms.error('MEASURE_MR_SCORE_FIXED', [fixed.system]);
      }
    } else if (fixed) {
      ms.error('MEASURE_MR_SCORE_FIXED', [str(fixed.display) ?? str(fixed.code) ?? '']);
    } else if (scoring === 'ratio') {
      ms.warning('MEASURE_MR_SCORE_UNIT_REQUIRED', ['ratio']);
    }
  }

  /** Each report population names a Measure population by code; each Measure population (but measure-observation) is reported. */
  private checkPopulations(report: JsonNode, group: JsonNode, measureGroup: Record<string, unknown>): void {
    const defined = objects(measureGroup.population);
    const matched = new Set<Record<string, unknown>>();
    const subjectList = report.str('type') === 'subject-list';
    for (const p of group.listedObjects('population')) {
      const code = p.child('code');
      if (code === undefined) {
        p.error('MR_POPULATION_NO_CODE', []);
        continue;
      }
      const mp = defined.find((d) => d.code !== undefined && sameConcept(d.code, code.value));
      if (!mp) {
        p.error('MR_POPULATION_NO_MATCH', []);
        continue;
      }
      if (matched.has(mp)) {
        p.error('MR_POPULATION_DUPLICATE', []);
        continue;
      }
      matched.add(mp);
      const results = p.child('subjectResults');
      const subjects = results === undefined ? 0 : results.isList ? results.items().length : 1;
      const count = p.child('count')?.value;
      if (subjectList) {
        if (typeof count === 'number' && Number.isInteger(count) && count !== subjects) p.error('MR_POPULATION_COUNT_MISMATCH', [count, subjects]);
      } else if (subjects > 0) {
        p.error('MR_POPULATION_NO_SUBJECTS', []);
      }
    }
    for (const d of defined) {
      if (!matched.has(d) && !MEASURE_OBSERVATION(d.code)) group.error('MR_GROUP_MISSING', [displayConcept(d.code)]);
    }
  }

  /** Report stratifiers are matched to the Measure's by code; unmatched ones on either side are errors. */
  private checkStratifiers(group: JsonNode, measureGroup: Record<string, unknown>): void {
    const defined = objects(measureGroup.stratifier);
    const matched = new Set<Record<string, unknown>>();
    for (const rs of group.listedObjects('stratifier')) {
      const code = rs.first('code')?.value;
      const hit = code === undefined ? undefined : defined.find((d) => sameStratifierCode(d.code, code));
      if (!hit) rs.error('MR_STRATIFIER_NO_MATCH', []);
      else matched.add(hit);
    }
    for (const d of defined) {
      if (matched.has(d)) continue;
      group.error('MR_STRATIFIER_MISSING', [codingsOf(d.code)[0]?.code ?? '', d.id ?? '']);
    }
  }
}
