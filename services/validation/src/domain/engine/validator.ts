/**
 * The FHIR R4 instance validator: walks a resource against the compiled plan of its core
 * definition (the "structural" walk: JSON shape, unknown properties, primitive value spaces,
 * extensions, references, nested resources) and then against every profile (meta.profile
 * plus the caller's), where only what a profile adds is checked again (cardinality, slicing,
 * fixed/pattern, type restrictions, invariants, bindings, value ranges).
 *
 * Domain code: no I/O. Definitions come from a ConformanceResourceSource, terminology from
 * the TerminologyPort. Output is an OperationOutcome with the HL7 validator's wording,
 * FHIRPath locations (`Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1').class`),
 * line/column when the input was JSON text, and message ids.
 */
import type { ConformanceResourceSource } from '../conformance-resources.js';
import { unknownTerminology, type BindingStrength, type CodingInput, type TerminologyPort, type ValidateCodeResult } from '../terminology/terminology-port.js';
import { parseLocatedJson, type ArrayLocation, type JsonParseIssue, type ObjectLocation, type Position } from './json/located-json.js';
import { formatMessage, MESSAGES, type MessageId } from './messages.js';
import { EXT_COL, EXT_LINE, EXT_MESSAGE_ID, type Issue, type IssueSeverity, type ValidationOutcome } from './outcome/issue.js';
import { PlanRegistry } from './plan/plan-registry.js';
import { PRIMITIVE_TYPES, type ChildIndex, type ConstraintPlan, type ElementPlan, type StructurePlan } from './plan/structure-plan.js';
import { checkPrimitiveValue, checkResourceId, jsonTypeOfPrimitive } from './checks/primitives.js';
import { InvariantEvaluator } from './checks/invariants.js';
import { BundleIndex, parseReference } from './checks/references.js';
import { checkXhtml, unresolvedInternalLinks } from './checks/xhtml.js';
import { checkValueRegex } from './checks/value-regex.js';
import { deepEqual, matchesPattern, describeValue } from './checks/values.js';
import { evaluateDiscriminatorPath } from './checks/discriminator-path.js';
import { checkQuestionnaireResponse } from './checks/questionnaire-response.js';
import { ucumConverter } from './checks/ucum.js';
import { checkDifferential } from './checks/structure-definition.js';

export interface ValidatorOptions {
  /** JSON text longer than this is refused (characters; default 64 MiB). */
  maxInputLength?: number;
  /** Deeper nesting is refused (default 300 levels). */
  maxDepth?: number;
  /** How an extension whose definition cannot be found is reported (default error, as the HL7 validator). */
  unknownExtensionSeverity?: 'error' | 'warning' | 'information';
  /** The HL7 validator's optional security checks (HTML in strings). Default false. */
  securityChecks?: boolean;
  /** Accept URLs on example hosts (example.org, example.com, acme.com). Default true. */
  allowExampleUrls?: boolean;
  /** Report best-practice invariants (as warnings). Default true. */
  bestPractice?: boolean;
}

export interface ValidateOptions {
  /** Profiles to validate against in addition to meta.profile (canonical URLs). */
  profiles?: readonly string[];
  /** Passed on to remote terminology. */
  authorization?: string;
}

type Mode = 'structural' | 'profile';

interface Run {
  issues: Issue[];
  seen: Set<string>;
  locations: WeakMap<object, ObjectLocation | ArrayLocation> | undefined;
  evaluated: Set<string>;
  pending: Promise<void>[];
  authorization: string | undefined;
  /** Silent runs (slice matching by profile) only count errors. */
  silent: boolean;
  errorCount: number;
}

interface Scope {
  resource: Record<string, unknown>;
  root: Record<string, unknown>;
  /** Index of the Bundle the resource sits in, and the entry's fullUrl. */
  bundle: BundleIndex | undefined;
  fullUrl: string | undefined;
  depth: number;
}

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';
// Linear: anchored, one character class up to ':', which it cannot match.
const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Cross-version extensions (http://hl7.org/fhir/5.0/StructureDefinition/extension-...) are known by construction. */
// Linear: anchored, fixed text and one class of digits and dots.
const CROSS_VERSION_EXTENSION = /^http:\/\/hl7\.org\/fhir\/[0-9.]+\/StructureDefinition\/extension-/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Two CodeableConcepts share a coding (system and code). */
function sameConcept(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b) || !Array.isArray(a.coding) || !Array.isArray(b.coding)) return false;
  for (const x of a.coding) {
    if (!isObject(x)) continue;
    for (const y of b.coding) if (isObject(y) && x.code === y.code && x.system === y.system) return true;
  }
  return false;
}

function jsonKind(v: unknown): string {
  if (v === null) return 'a Null';
  if (Array.isArray(v)) return 'an Array';
  switch (typeof v) {
    case 'string': return 'a String';
    case 'number': return 'a Number';
    case 'boolean': return 'a Boolean';
    default: return 'an Object';
  }
}

export class Validator {
  private readonly plans: PlanRegistry;
  private readonly invariants: InvariantEvaluator;
  private readonly options: Required<ValidatorOptions>;

  constructor(
    private readonly source: ConformanceResourceSource,
    private readonly terminology: TerminologyPort = unknownTerminology,
    options: ValidatorOptions = {},
  ) {
    this.plans = new PlanRegistry(source);
    this.invariants = new InvariantEvaluator(terminology);
    this.options = {
      maxInputLength: options.maxInputLength ?? 64 * 1024 * 1024,
      maxDepth: options.maxDepth ?? 300,
      unknownExtensionSeverity: options.unknownExtensionSeverity ?? 'error',
      securityChecks: options.securityChecks ?? false,
      allowExampleUrls: options.allowExampleUrls ?? true,
      bestPractice: options.bestPractice ?? true,
    };
  }

  /**
   * Validate a resource (a parsed value, or JSON text which is then parsed with locations).
   * Terminology answers that arrive as Promises are not waited for here; use validateAsync.
   */
  validate(input: unknown, options: ValidateOptions = {}): ValidationOutcome {
    const run = this.newRun(options);
    this.guardedValidateInto(run, input, options);
    return { resourceType: 'OperationOutcome', issue: run.issues };
  }

  /** As validate, but waits for asynchronous terminology answers. */
  async validateAsync(input: unknown, options: ValidateOptions = {}): Promise<ValidationOutcome> {
    const run = this.newRun(options);
    this.guardedValidateInto(run, input, options);
    while (run.pending.length) {
      const pending = run.pending.splice(0);
      await Promise.all(pending);
    }
    return { resourceType: 'OperationOutcome', issue: run.issues };
  }

  private newRun(options: ValidateOptions): Run {
    return { issues: [], seen: new Set(), locations: undefined, evaluated: new Set(), pending: [], authorization: options.authorization, silent: false, errorCount: 0 };
  }

  /** A defect in the engine (or a definition it cannot digest) becomes a fatal issue, never a throw. */
  private guardedValidateInto(run: Run, input: unknown, options: ValidateOptions): void {
    try {
      this.validateInto(run, input, options);
    } catch (e) {
      const detail = e instanceof RangeError ? 'the resource is too deeply nested or too large to validate' : e instanceof Error ? e.message : String(e);
      this.report(run, 'fatal', 'INTERNAL_ERROR', [detail], '', undefined);
    }
  }

  private validateInto(run: Run, input: unknown, options: ValidateOptions): void {
    let value = input;
    if (typeof input === 'string') {
      const parsed = parseLocatedJson(input, { maxLength: this.options.maxInputLength, maxDepth: this.options.maxDepth + 20 });
      run.locations = parsed.locations;
      const rootType = isObject(parsed.value) && typeof parsed.value.resourceType === 'string' ? parsed.value.resourceType : '';
      for (const pi of parsed.issues) this.reportParseIssue(run, pi, rootType);
      if (parsed.value === undefined) return;
      value = parsed.value;
    }
    if (!isObject(value)) {
      this.report(run, 'fatal', 'RESOURCE_NOT_OBJECT', [], '', undefined);
      return;
    }
    const rt = value.resourceType;
    if (typeof rt !== 'string') {
      this.report(run, 'fatal', 'RESOURCETYPE_MISSING', [], '', this.pos(run, value));
      return;
    }
    const scope: Scope = { resource: value, root: value, bundle: undefined, fullUrl: undefined, depth: 0 };
    this.validateResource(run, value, rt, rt, scope, options.profiles ?? [], true);
  }

  // ------------------------------------------------------------------ issues

  private reportParseIssue(run: Run, pi: JsonParseIssue, rootType: string): void {
    const path = pi.path.length === 0 ? rootType : rootType + pi.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
    const at = { line: pi.line, col: pi.col };
    switch (pi.kind) {
      case 'comment': return this.report(run, 'error', 'JSON_COMMENTS_NOT_ALLOWED', [], path, at);
      case 'missing-comma': return this.report(run, 'error', 'JSON_COMMA_MISSING', [], path, at);
      // the HL7 validator accepts a missing comma between array items silently; we warn
      case 'missing-comma-in-array': return this.report(run, 'warning', 'JSON_COMMA_MISSING', [], path, at);
      case 'trailing-comma': return this.report(run, 'error', pi.message.includes('Array') ? 'JSON_COMMA_EXTRA_ARRAY' : 'JSON_COMMA_EXTRA_OBJECT', [], path, at);
      case 'duplicate-property': return this.report(run, 'error', 'DUPLICATE_JSON_PROPERTY', [pi.path[pi.path.length - 1]], path, at);
      case 'too-deep': return this.report(run, 'fatal', 'JSON_TOO_DEEP', [pi.message], '', at);
      case 'too-large': return this.report(run, 'fatal', 'JSON_TOO_LARGE', [pi.message], '', at);
      default: return this.report(run, 'fatal', 'JSON_PARSE_ERROR', [`Error parsing JSON source: ${pi.message} (line ${pi.line}, column ${pi.col})`], '', at);
    }
  }

  private report(run: Run, severity: IssueSeverity, id: MessageId, args: readonly unknown[], path: string, at: Position | undefined, codeOverride?: string): void {
    if (run.silent) {
      if (severity === 'error' || severity === 'fatal') run.errorCount++;
      return;
    }
    const text = formatMessage(id, args);
    const key = severity + '\u0000' + path + '\u0000' + text;
    if (run.seen.has(key)) return;
    run.seen.add(key);
    if (severity === 'error' || severity === 'fatal') run.errorCount++;
    this.pushIssue(run, severity, codeOverride ?? MESSAGES[id].code, text, id, path, at);
  }

  private pushIssue(run: Run, severity: IssueSeverity, code: string, text: string, messageId: string, path: string, at: Position | undefined): void {
    const extension: Issue['extension'] = [];
    if (at) {
      extension.push({ url: EXT_LINE, valueInteger: at.line }, { url: EXT_COL, valueInteger: at.col });
    }
    extension.push({ url: EXT_MESSAGE_ID, valueCode: messageId });
    const issue: Issue = { severity, code, details: { text }, diagnostics: text, extension };
    if (path) issue.expression = [path];
    run.issues.push(issue);
  }

  private pos(run: Run, value: unknown): Position | undefined {
    if (!run.locations || value === null || typeof value !== 'object') return undefined;
    return run.locations.get(value);
  }

  private propPos(run: Run, parent: Record<string, unknown>, key: string): Position | undefined {
    if (!run.locations) return undefined;
    const loc = run.locations.get(parent) as ObjectLocation | undefined;
    return loc?.props[key];
  }

  /** The source text of a number (when the parser kept it: `1.50`, `2.0`). */
  private rawNumber(run: Run, raw: unknown, obj: Record<string, unknown>, key: string, index: number): string | undefined {
    if (!run.locations) return undefined;
    if (index >= 0 && Array.isArray(raw)) return (run.locations.get(raw) as ArrayLocation | undefined)?.rawNumbers?.[index];
    return (run.locations.get(obj) as ObjectLocation | undefined)?.rawNumbers?.[key];
  }

  private itemPos(run: Run, arr: unknown[], i: number): Position | undefined {
    if (!run.locations) return undefined;
    const loc = run.locations.get(arr) as ArrayLocation | undefined;
    return loc?.items[i];
  }

  // ------------------------------------------------------------------ resources

  private validateResource(run: Run, res: Record<string, unknown>, rt: string, resPath: string, scope: Scope, extraProfiles: readonly string[], structural: boolean): void {
    const basePlan = this.plans.typePlan(rt);
    if (!basePlan || basePlan.kind !== 'resource' || !basePlan.hasSnapshot) {
      this.report(run, 'error', 'RESOURCETYPE_UNKNOWN', [rt], resPath, this.propPos(run, res, 'resourceType'));
      return;
    }
    if (basePlan.abstract) {
      this.report(run, 'error', 'ABSTRACT_TYPE', [rt], resPath, this.propPos(run, res, 'resourceType'));
      return;
    }
    if (structural) {
      if (rt === 'Bundle') this.checkBundle(run, res, resPath, scope);
      if (Array.isArray(res.contained) && res.contained.length > 1) this.checkContainedIds(run, res.contained, resPath);
      this.walkObject(run, res, basePlan.root, basePlan.root.ownChildren!, resPath, scope, 'structural', basePlan);
      if (typeof res.id === 'string') {
        for (const p of checkResourceId(res.id)) this.report(run, p.severity, p.id, p.args, `${resPath}.id`, this.propPos(run, res, 'id'));
      }
      if (rt === 'QuestionnaireResponse') this.checkAgainstQuestionnaire(run, res, resPath, scope);
      if (rt === 'MeasureReport') this.checkAgainstMeasure(run, res, resPath);
      if (rt === 'CapabilityStatement') this.checkCapabilitySearchParams(run, res, resPath);
      if (rt === 'SearchParameter') this.checkSearchParameter(run, res, resPath);
      if (rt === 'StructureDefinition') this.checkStructureDefinition(run, res, resPath);
      if (rt === 'OperationDefinition') this.checkOperationProfiles(run, res, resPath);
    }
    // profiles: meta.profile, then the caller's
    const meta = res.meta;
    const profiles: { url: string; path: string; at: Position | undefined }[] = [];
    if (structural && isObject(meta) && Array.isArray(meta.profile)) {
      meta.profile.forEach((p, i) => {
        if (typeof p === 'string') profiles.push({ url: p, path: `${resPath}.meta.profile[${i}]`, at: this.itemPos(run, meta.profile as unknown[], i) });
      });
    }
    for (const p of extraProfiles) profiles.push({ url: p, path: resPath, at: undefined });
    const done = new Set<string>([basePlan.url]);
    for (const p of profiles) {
      if (done.has(p.url)) continue;
      done.add(p.url);
      const plan = this.plans.plan(p.url);
      if (!plan) {
        this.report(run, 'warning', 'PROFILE_NOT_FOUND', [p.url], p.path, p.at);
        continue;
      }
      this.validateAgainstProfile(run, res, rt, plan, resPath, scope, p.path, p.at);
    }
  }

  private resolveCanonical(type: string, url: string): Record<string, unknown> | undefined {
    const resolver = this.source as ConformanceResourceSource & { resolve?: (type: string, canonical: string) => unknown };
    try {
      const r = typeof resolver.resolve === 'function' ? resolver.resolve(type, url) : undefined;
      return isObject(r) && r.resourceType === type ? r : undefined;
    } catch {
      return undefined;
    }
  }

  /** Contained resources are told apart by id: two with one id are an error. */
  private checkContainedIds(run: Run, contained: unknown[], resPath: string): void {
    const seen = new Set<string>();
    contained.forEach((c, i) => {
      if (!isObject(c) || typeof c.id !== 'string') return;
      if (seen.has(c.id)) this.report(run, 'error', 'BUNDLE_DUPLICATE_ID', [c.id], `${resPath}.contained[${i}]`, this.itemPos(run, contained, i));
      seen.add(c.id);
    });
  }

  /**
   * An OperationDefinition's inputProfile/outputProfile (Parameters profiles) must agree with
   * its parameters: cardinality, types and target profiles of each named parameter slice.
   */
  private checkOperationProfiles(run: Run, od: Record<string, unknown>, resPath: string): void {
    const params = Array.isArray(od.parameter) ? od.parameter : [];
    for (const [use, key] of [['in', 'inputProfile'], ['out', 'outputProfile']] as const) {
      const url = od[key];
      if (typeof url !== 'string') continue;
      const plan = this.plans.plan(url);
      const sliced = plan?.byId.get('Parameters.parameter');
      if (!plan || !sliced) continue;
      const slices = new Map<string, ElementPlan>();
      for (const slice of sliced.slices) {
        const nameEl = slice.ownChildren?.byJsonName.get('name')?.element;
        const name = nameEl?.fixed ?? nameEl?.pattern;
        if (typeof name === 'string') slices.set(name, slice);
      }
      params.forEach((p, i) => {
        if (!isObject(p) || p.use !== use || typeof p.name !== 'string') return;
        const slice = slices.get(p.name);
        if (!slice) return;
        const path = `${resPath}.${key}.parameter[${i}]`;
        const at = this.pos(run, p);
        const sliceMax = slice.max === Infinity ? '*' : String(slice.max);
        if (typeof p.min === 'number' && p.min !== slice.min) this.report(run, 'error', 'OPDEF_PROFILE_CARDINALITY', [p.name, 'min', slice.min, use, plan.label, p.min], path, at);
        if (typeof p.max === 'string' && p.max !== sliceMax) this.report(run, 'error', 'OPDEF_PROFILE_CARDINALITY', [p.name, 'max', sliceMax, use, plan.label, p.max], path, at);
        const value = slice.ownChildren?.byJsonName.get('resource')?.element;
        const choice = slice.ownChildren?.choices.find((c) => c.name === 'value');
        const profileTypes = new Set<string>();
        const profileTargets = new Set<string>();
        for (const e of [value, choice]) {
          if (!e || e.max === 0) continue;
          for (const t of e.types) {
            profileTypes.add(t.code);
            if (e === choice) for (const tp of t.targetProfiles) profileTargets.add(tp);
          }
        }
        const opTypes = typeof p.type === 'string' ? [p.type] : [];
        const opTargets = Array.isArray(p.targetProfile) ? (p.targetProfile as unknown[]).filter((x): x is string => typeof x === 'string') : [];
        if (profileTypes.size > 0) {
          for (const t of profileTypes) if (!opTypes.includes(t)) this.report(run, 'error', 'OPDEF_PROFILE_TYPE_EXTRA', [t, p.name, use, plan.label], path, at);
          for (const t of opTypes) if (!profileTypes.has(t) && t !== 'Resource') this.report(run, 'error', 'OPDEF_PROFILE_TYPE_MISSING', [t, p.name, use, plan.label], path, at);
        }
        for (const tp of profileTargets) if (!opTargets.includes(tp)) this.report(run, 'error', 'OPDEF_PROFILE_TARGET_EXTRA', [tp, p.name, use, plan.label], path, at);
        for (const tp of opTargets) if (!profileTargets.has(tp)) this.report(run, 'error', 'OPDEF_PROFILE_TARGET_MISSING', [tp, p.name, use, plan.label], path, at);
      });
    }
  }

  /** A differential-only profile is checked against its base, as snapshot generation would. */
  private checkStructureDefinition(run: Run, sd: Record<string, unknown>, resPath: string): void {
    if (sd.derivation !== 'constraint' || typeof sd.baseDefinition !== 'string') return;
    const snapshot = sd.snapshot as { element?: unknown[] } | undefined;
    if (Array.isArray(snapshot?.element) && snapshot.element.length > 0) return;
    const base = this.plans.plan(sd.baseDefinition);
    if (!base?.root) return;
    const childNames = (type: string) => this.plans.typeChildren(type)?.list.map((c) => c.name);
    for (const p of checkDifferential(sd, base, childNames)) this.report(run, 'error', p.id, p.args, p.path ? `${resPath}.${p.path}` : resPath, this.pos(run, sd));
  }

  /** A CapabilityStatement's search parameters must have the type of the SearchParameter they cite. */
  private checkCapabilitySearchParams(run: Run, cs: Record<string, unknown>, resPath: string): void {
    if (!Array.isArray(cs.rest)) return;
    cs.rest.forEach((rest, i) => {
      if (!isObject(rest) || !Array.isArray(rest.resource)) return;
      rest.resource.forEach((r, j) => {
        if (!isObject(r) || !Array.isArray(r.searchParam)) return;
        r.searchParam.forEach((sp, k) => {
          if (!isObject(sp) || typeof sp.definition !== 'string' || typeof sp.type !== 'string') return;
          const def = this.resolveCanonical('SearchParameter', sp.definition);
          if (def && typeof def.type === 'string' && def.type !== sp.type) {
            const label = def.version ? `${def.url}|${def.version}` : String(def.url);
            this.report(run, 'error', 'CAPABILITY_SEARCH_TYPE', [label, def.type, sp.type], `${resPath}.rest[${i}].resource[${j}].searchParam[${k}]`, this.pos(run, sp));
          }
        });
      });
    });
  }

  /** A SearchParameter derived from another: its bases must be the other's, its expression must use them. */
  private checkSearchParameter(run: Run, sp: Record<string, unknown>, resPath: string): void {
    const bases = Array.isArray(sp.base) ? (sp.base as unknown[]).filter((b): b is string => typeof b === 'string') : [];
    if (typeof sp.expression === 'string' && bases.length > 0) {
      for (const term of sp.expression.split('|')) {
        // linear: anchored, and one whitespace run only (two `\s*` around an optional '(' would split a long run every way)
        const head = /^\(?\s*([A-Z][A-Za-z]*)\b/.exec(term.trimStart())?.[1];
        if (head && !bases.includes(head) && head !== 'Resource' && head !== 'DomainResource' && this.plans.isResourceType(head)) {
          this.report(run, 'error', 'SEARCH_EXPRESSION_TYPE', [sp.expression, head, bases.join(', ')], `${resPath}.expression`, this.propPos(run, sp, 'expression'));
          break;
        }
      }
    }
    if (typeof sp.derivedFrom !== 'string') return;
    const parent = this.resolveCanonical('SearchParameter', sp.derivedFrom);
    if (!parent) return;
    const parentBases = Array.isArray(parent.base) ? parent.base : [];
    for (const b of bases) {
      if (!parentBases.includes(b)) this.report(run, 'error', 'SEARCH_BASE_NOT_IN_PARENT', [b, sp.derivedFrom], resPath, this.pos(run, sp));
    }
  }

  /** MeasureReport business rules that need the Measure (when it is loaded). */
  private checkAgainstMeasure(run: Run, report: Record<string, unknown>, resPath: string): void {
    const url = report.measure;
    if (typeof url !== 'string') return;
    const resolver = this.source as ConformanceResourceSource & { resolve?: (type: string, canonical: string) => unknown };
    let measure: unknown;
    try {
      measure = typeof resolver.resolve === 'function' ? resolver.resolve('Measure', url) : undefined;
    } catch {
      measure = undefined;
    }
    if (!isObject(measure)) return;
    const scoring = isObject(measure.scoring) && Array.isArray(measure.scoring.coding) ? (measure.scoring.coding as any[]).find((c) => isObject(c))?.code : undefined;
    if (Array.isArray(report.group) && Array.isArray(measure.group)) {
      const measureGroups = (measure.group as unknown[]).filter(isObject);
      report.group.forEach((g, gi) => {
        if (!isObject(g)) return;
        const mg = measureGroups.find((m) => sameConcept(m.code, g.code)) ?? (measureGroups.length === 1 && report.group && (report.group as unknown[]).length === 1 ? measureGroups[0] : undefined);
        if (mg) this.checkStratifiers(run, g, mg, `${resPath}.group[${gi}]`);
      });
    }
    if (scoring === 'cohort' && Array.isArray(report.group)) {
      report.group.forEach((g, i) => {
        if (isObject(g) && g.measureScore !== undefined) {
          this.report(run, 'error', 'MEASURE_COHORT_SCORE', [scoring], `${resPath}.group[${i}].measureScore`, this.propPos(run, g, 'measureScore'));
        }
      });
    }
  }

  /** Report stratifiers are matched to the Measure's by code; unmatched ones on either side are errors. */
  private checkStratifiers(run: Run, group: Record<string, unknown>, measureGroup: Record<string, unknown>, groupPath: string): void {
    const defined = Array.isArray(measureGroup.stratifier) ? (measureGroup.stratifier as unknown[]).filter(isObject) : [];
    const reported = Array.isArray(group.stratifier) ? (group.stratifier as unknown[]) : [];
    const matched = new Set<Record<string, unknown>>();
    reported.forEach((rs, i) => {
      if (!isObject(rs)) return;
      const path = `${groupPath}.stratifier[${i}]`;
      const hit = rs.code === undefined ? undefined : defined.find((d) => sameConcept(d.code, Array.isArray(rs.code) ? rs.code[0] : rs.code));
      if (!hit) this.report(run, 'error', 'MR_STRATIFIER_NO_MATCH', [], path, this.pos(run, rs));
      else matched.add(hit);
    });
    for (const d of defined) {
      if (matched.has(d)) continue;
      const code = isObject(d.code) && Array.isArray(d.code.coding) ? ((d.code.coding as any[]).find(isObject)?.code ?? '') : '';
      this.report(run, 'error', 'MR_STRATIFIER_MISSING', [code, d.id ?? ''], groupPath, this.pos(run, group));
    }
  }

  private checkAgainstQuestionnaire(run: Run, qr: Record<string, unknown>, resPath: string, scope: Scope): void {
    const url = qr.questionnaire;
    if (typeof url !== 'string') return;
    let questionnaire: unknown;
    if (url.startsWith('#')) {
      const contained = scope.root.contained;
      questionnaire = Array.isArray(contained) ? contained.find((c) => isObject(c) && c.id === url.slice(1)) : undefined;
    } else {
      const resolver = this.source as ConformanceResourceSource & { resolve?: (type: string, canonical: string) => unknown };
      try {
        questionnaire = typeof resolver.resolve === 'function' ? resolver.resolve('Questionnaire', url) : undefined;
      } catch {
        questionnaire = undefined;
      }
    }
    if (!isObject(questionnaire) || questionnaire.resourceType !== 'Questionnaire') {
      const other = this.source.valueSet(url) ?? this.source.codeSystem(url) ?? this.source.structureDefinition(url);
      if (other) this.report(run, 'error', 'CANONICAL_WRONG_TYPE', [url, other.resourceType, 'Questionnaire'], `${resPath}.questionnaire`, this.propPos(run, qr, 'questionnaire'));
      else this.report(run, 'warning', 'QR_QUESTIONNAIRE_NOT_FOUND', [url], `${resPath}.questionnaire`, this.propPos(run, qr, 'questionnaire'));
      return;
    }
    const rawOf = (answer: Record<string, unknown>, key: string) => (run.locations?.get(answer) as ObjectLocation | undefined)?.rawNumbers?.[key];
    for (const p of checkQuestionnaireResponse(qr, questionnaire, resPath, ucumConverter, rawOf)) this.report(run, p.severity, p.id, p.args, p.path, undefined);
  }

  private validateAgainstProfile(run: Run, res: Record<string, unknown>, rt: string, plan: StructurePlan, resPath: string, scope: Scope, reportPath: string, at: Position | undefined): void {
    if (!plan.hasSnapshot || !plan.root?.ownChildren) {
      this.report(run, 'warning', 'PROFILE_NO_SNAPSHOT', [plan.url], reportPath, at);
      return;
    }
    if (plan.type !== rt && plan.type !== 'Resource' && plan.type !== 'DomainResource') {
      this.report(run, 'error', 'PROFILE_WRONG_TYPE', [plan.label, plan.type, rt], reportPath, at);
      return;
    }
    this.walkObject(run, res, plan.root, plan.root.ownChildren, resPath, scope, 'profile', plan);
  }

  // ------------------------------------------------------------------ the walk

  /**
   * Walk one JSON object against the element `el` whose children are `children`.
   * `path` is the FHIRPath location of the object.
   */
  private walkObject(run: Run, obj: Record<string, unknown>, el: ElementPlan, children: ChildIndex, path: string, scope: Scope, mode: Mode, plan: StructurePlan): void {
    if (scope.depth > this.options.maxDepth) {
      this.report(run, 'fatal', 'NESTING_TOO_DEEP', [this.options.maxDepth], path, this.pos(run, obj));
      return;
    }
    const isResourceRoot = el === plan.root && plan.kind === 'resource';
    // 1. sort the properties onto their elements
    let groups: Map<ElementPlan, { key: string; type: string | undefined; count: number }[]> | undefined;
    let presentInvalid: Set<ElementPlan> | undefined;
    for (const key in obj) {
      if (key === 'resourceType' && isResourceRoot) continue;
      let lookupKey = key;
      if (key.charCodeAt(0) === 95 /* _ */) {
        lookupKey = key.slice(1);
        if (lookupKey in obj) continue; // handled with its value
      }
      const hit = children.byJsonName.get(lookupKey);
      if (!hit) {
        const choice = this.unknownProperty(run, obj, key, lookupKey, children, path, mode, plan, el);
        if (choice) (presentInvalid ??= new Set()).add(choice);
        continue;
      }
      if (key !== lookupKey && !(hit.type ? PRIMITIVE_TYPES.has(hit.type) : hit.element.types.length > 0 && PRIMITIVE_TYPES.has(hit.element.types[0].code))) {
        if (mode === 'structural') this.report(run, 'error', 'UNRECOGNISED_PROPERTY', [key], path, this.propPos(run, obj, key));
        continue;
      }
      groups ??= new Map();
      let g = groups.get(hit.element);
      if (!g) groups.set(hit.element, (g = []));
      g.push({ key: lookupKey, type: hit.type, count: 0 });
    }
    // 2. every child element: cardinality, slicing, values
    for (const child of children.list) {
      const g = groups?.get(child);
      if (!g) {
        if (presentInvalid?.has(child)) continue;
        if (child.min > 0) this.report(run, 'error', 'CARDINALITY_MIN', [child.path, child.min, 0, plan.label], path, this.pos(run, obj));
        for (const slice of child.slices) {
          if (slice.min > 0 && child.slicing && !child.isChoice) {
            this.report(run, 'error', child.slicing.rules === 'closed' ? 'SLICE_REQUIRED_CLOSED' : 'SLICE_REQUIRED_OPEN', [slice.id, plan.label], path, this.pos(run, obj));
          }
        }
        continue;
      }
      if (g.length > 1 && mode === 'structural') {
        this.report(run, 'error', 'CHOICE_MULTIPLE', [child.name + '[x]', g.map((x) => x.key).join(', ')], path, this.pos(run, obj));
      }
      for (const occurrence of g) this.walkProperty(run, obj, occurrence.key, occurrence.type, child, path, scope, mode, plan, el);
    }
    // 3. invariants of the element itself
    if (el.constraints.length) this.checkConstraints(run, el, obj, path, scope, mode);
  }

  /** Reports an unknown property; returns the choice element when it is a choice with a type not allowed. */
  private unknownProperty(run: Run, obj: Record<string, unknown>, key: string, lookupKey: string, children: ChildIndex, path: string, mode: Mode, plan: StructurePlan, el: ElementPlan): ElementPlan | undefined {
    for (const c of children.choices) {
      if (lookupKey.length > c.name.length && lookupKey.startsWith(c.name) && lookupKey.charCodeAt(c.name.length) >= 65 && lookupKey.charCodeAt(c.name.length) <= 90) {
        const typeName = lookupKey.slice(c.name.length);
        const lower = typeName[0].toLowerCase() + typeName.slice(1);
        const type = PRIMITIVE_TYPES.has(lower) ? lower : typeName;
        if (this.plans.typePlan(type) && plan.type === 'Extension' && c.path === 'Extension.value[x]') {
          this.report(run, 'error', 'EXTENSION_VALUE_TYPE', [plan.url, c.types.map((t) => t.code).join(', '), type], `${path}.${c.name}.ofType(${type})`, this.propPos(run, obj, key));
        } else if (this.plans.typePlan(type) && c.types.length === 1) {
          this.report(run, 'error', 'CHOICE_TYPE_NOT_ALLOWED', [plan.label, c.types.map((t) => t.code).join(', '), type], `${path}.${c.name}.ofType(${type})`, this.propPos(run, obj, key));
        } else {
          this.report(run, 'error', 'CHOICE_TYPE_UNKNOWN', [key, c.types.map((t) => t.code).join(', ')], path, this.propPos(run, obj, key));
        }
        return c;
      }
    }
    if (mode !== 'structural') return undefined;
    // inside the `_x` companion of a primitive the HL7 wording differs
    const inCompanion = el.types.length > 0 && PRIMITIVE_TYPES.has(el.types[0].code) && el !== plan.root;
    this.report(run, 'error', inCompanion ? 'PRIMITIVE_PROPERTY_INVALID' : 'UNRECOGNISED_PROPERTY', [key], path, this.propPos(run, obj, key));
    return undefined;
  }

  /** One JSON property (and its `_` companion) against its element. */
  private walkProperty(run: Run, obj: Record<string, unknown>, key: string, choiceType: string | undefined, el: ElementPlan, path: string, scope: Scope, mode: Mode, plan: StructurePlan, host: ElementPlan): void {
    const raw = obj[key];
    const companion = obj['_' + key];
    const type = choiceType ?? (el.types.length > 0 ? el.types[0].code : undefined);
    const isPrimitive = type !== undefined && PRIMITIVE_TYPES.has(type);
    const repeating = el.baseMax > 1;
    const basePath = choiceType ? `${path}.${el.name}.ofType(${choiceType})` : `${path}.${key}`;
    let effective = el;
    if (el.isChoice && el.slices.length > 0 && choiceType) {
      // type slicing of a choice: the slice for this type (a slice with max 0 matches nothing)
      const typed = el.slices.find((s) => s.max > 0 && ((s.types.length === 1 && s.types[0].code === choiceType) || s.sliceName === key));
      if (typed) effective = typed;
      else if (el.slicing?.rules === 'closed') {
        this.report(run, 'error', 'SLICE_UNMATCHED_CLOSED', [plan.label, `${basePath}: Does not match any slice`], basePath, this.propPos(run, obj, key));
      }
    }
    // JSON shape
    let values: unknown[];
    let companions: unknown[] | undefined;
    let valuesAreArray = false;
    if (raw === undefined) {
      values = Array.isArray(companion) ? companion.map(() => undefined) : [undefined];
    } else if (Array.isArray(raw)) {
      valuesAreArray = true;
      values = raw;
      if (!repeating && mode === 'structural') {
        this.report(run, 'error', 'JSON_PROPERTY_VALUE_NOT_ARRAY', [isPrimitive ? 'a primitive' : 'an Object', `${path}.${key}`], basePath, this.propPos(run, obj, key));
      }
      if (raw.length === 0 && mode === 'structural') {
        this.report(run, 'error', 'ARRAY_CANNOT_BE_EMPTY', [], basePath, this.propPos(run, obj, key));
      }
    } else {
      values = [raw];
      if (repeating && mode === 'structural') {
        this.report(run, 'error', 'JSON_PROPERTY_NO_ARRAY', [key, jsonKind(raw), path], basePath, this.propPos(run, obj, key));
      }
    }
    if (companion !== undefined) {
      if (Array.isArray(companion)) companions = companion;
      else companions = [companion];
      if (mode === 'structural' && (Array.isArray(companion) !== (raw === undefined ? Array.isArray(companion) : Array.isArray(raw)) || (Array.isArray(raw) && Array.isArray(companion) && raw.length !== companion.length))) {
        this.report(run, 'error', 'PRIMITIVE_EXTENSION_MISALIGNED', [key, companions.length, values.length, path], basePath, this.propPos(run, obj, '_' + key));
      }
    }
    const count = Math.max(values.length, companions?.length ?? 0);
    // cardinality
    if (count < effective.min) this.report(run, 'error', 'CARDINALITY_MIN', [effective.path, effective.min, count, plan.label], path, this.pos(run, obj));
    if (count > effective.max) this.report(run, 'error', 'CARDINALITY_MAX', [effective.path, effective.max, count, plan.label], path, this.pos(run, obj));
    // slicing
    let sliceOf: (ElementPlan | undefined)[] | undefined;
    if (effective.slicing && effective.slices.length > 0 && !effective.isChoice) {
      sliceOf = this.assignSlices(run, values, effective, path, basePath, repeating, scope, plan, obj, key);
    }
    // extensions resolve by url (structural walk only: profiles slice them)
    const isExtension = mode === 'structural' && (el.name === 'extension' || el.name === 'modifierExtension') && type === 'Extension';
    const n = count;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      const c = companions?.[i];
      const itemPath = repeating || valuesAreArray ? `${basePath}[${i}]` : basePath;
      const at = raw === undefined ? undefined : valuesAreArray ? this.itemPos(run, raw as unknown[], i) : this.propPos(run, obj, key);
      const target = sliceOf?.[i] ?? effective;
      if (isPrimitive) {
        const rawText = typeof v === 'number' && run.locations ? this.rawNumber(run, raw, obj, key, valuesAreArray ? i : -1) : undefined;
        this.checkPrimitive(run, v, c, target, type, itemPath, scope, mode, plan, at, companions !== undefined, rawText);
        continue;
      }
      if (v === null || v === undefined) {
        if (mode === 'structural') this.report(run, 'error', 'JSON_PROPERTY_NOT_OBJECT', [key, v === null ? 'a Null' : 'missing', itemPath], itemPath, at);
        continue;
      }
      if (!isObject(v)) {
        if (mode === 'structural') this.report(run, 'error', 'JSON_PROPERTY_NOT_OBJECT', [key, jsonKind(v), itemPath], itemPath, at);
        continue;
      }
      if (isExtension) this.resolveExtension(run, v, el.name === 'modifierExtension', plan.type === 'Extension', itemPath, scope, at, host, plan);
      this.walkComplexValue(run, v, target, type, itemPath, scope, mode, plan, at);
    }
  }

  /** A complex value: nested resource, or datatype / backbone element. */
  private walkComplexValue(run: Run, v: Record<string, unknown>, el: ElementPlan, type: string | undefined, path: string, scope: Scope, mode: Mode, plan: StructurePlan, at: Position | undefined): void {
    if (type === 'Resource' || (type !== undefined && type !== 'Element' && type !== 'BackboneElement' && !el.ownChildren && this.plans.isResourceType(type))) {
      this.walkNestedResource(run, v, el, path, scope, mode, at);
      return;
    }
    const depthScope: Scope = { ...scope, depth: scope.depth + 1 };
    if (el.path === 'Bundle.entry') depthScope.fullUrl = typeof v.fullUrl === 'string' ? v.fullUrl : undefined;
    if (el.fixed !== undefined) this.checkFixed(run, v, el.fixed, path, at);
    if (el.pattern !== undefined) this.checkPattern(run, v, el.pattern, path, plan, at);
    if (el.binding && type && (type === 'CodeableConcept' || type === 'Coding' || type === 'Quantity' || type === 'CodeableReference')) {
      this.checkBinding(run, el, type, v, path, at);
    }
    if (type === 'Reference' && mode === 'structural') this.checkReference(run, v, el, path, scope, at);
    if ((el.minValue || el.maxValue) && type === 'Quantity') this.checkQuantityRange(run, v, el, path, at);
    // children: the element's own (profiles, backbone elements) or its type's
    let children = el.ownChildren;
    let childPlan = plan;
    if (!children && el.contentReference) {
      const ref = el.structure.byId.get(el.contentReference.slice(el.contentReference.indexOf('#') + 1));
      if (ref) {
        children = ref.ownChildren;
        if (ref.constraints.length) this.checkConstraints(run, ref, v, path, depthScope, mode);
      }
    }
    if (!children) {
      // in a profile walk, a datatype the profile does not constrain was already checked by the structural walk
      if (mode === 'profile' && !this.hasTypeProfiles(el, type)) {
        if (el.constraints.length) this.checkConstraints(run, el, v, path, depthScope, mode);
        return;
      }
      if (!type) return;
      const tp = this.plans.typePlan(type);
      if (!tp?.root) return;
      children = tp.root.ownChildren;
      childPlan = tp;
      if (mode === 'structural' && tp.root.constraints.length) this.checkConstraints(run, tp.root, v, path, depthScope, mode);
      if (children) this.walkObject(run, v, el, children, path, depthScope, mode, childPlan);
      else if (el.constraints.length) this.checkConstraints(run, el, v, path, depthScope, mode);
    } else {
      this.walkObject(run, v, el, children, path, depthScope, mode, childPlan);
    }
    // type profiles (e.g. SimpleQuantity, an extension's definition) are walked as profiles
    if (type) this.walkTypeProfiles(run, v, el, type, path, depthScope);
  }

  private hasTypeProfiles(el: ElementPlan, type: string | undefined): boolean {
    for (const t of el.types) if (t.code === type && t.profiles.length > 0) return true;
    return false;
  }

  private walkTypeProfiles(run: Run, v: Record<string, unknown>, el: ElementPlan, type: string, path: string, scope: Scope): void {
    for (const t of el.types) {
      if (t.code !== type || t.profiles.length === 0) continue;
      for (const url of t.profiles) {
        if (url === CORE_SD + type) continue;
        if (type === 'Extension' && el.name === 'extension' && el.sliceName === undefined) continue;
        const p = this.plans.plan(url);
        if (!p?.root?.ownChildren) continue;
        this.walkObject(run, v, p.root, p.root.ownChildren, path, scope, 'profile', p);
      }
    }
  }

  private walkNestedResource(run: Run, v: Record<string, unknown>, el: ElementPlan, path: string, scope: Scope, mode: Mode, at: Position | undefined): void {
    const rt = v.resourceType;
    if (typeof rt !== 'string') {
      if (mode === 'structural') this.report(run, 'error', 'RESOURCETYPE_MISSING', [], path, at);
      return;
    }
    const nestedPath = `${path}.ofType(${rt})` + (typeof v.id === 'string' ? `.where(id = '${v.id.replace(/'/g /* linear: one character */, "\\'")}')` : '');
    const isContained = el.name === 'contained';
    const nested: Scope = {
      resource: v,
      root: isContained ? scope.root : v,
      bundle: scope.bundle,
      fullUrl: scope.fullUrl,
      depth: scope.depth + 1,
    };
    if (scope.depth > this.options.maxDepth) {
      this.report(run, 'fatal', 'NESTING_TOO_DEEP', [this.options.maxDepth], path, at);
      return;
    }
    if (mode === 'structural') {
      if (isContained && typeof v.id !== 'string') this.report(run, 'error', 'CONTAINED_NO_ID', [], nestedPath, at);
      this.validateResource(run, v, rt, nestedPath, nested, [], true);
    } else {
      // a profile can constrain the nested resource with type profiles
      for (const t of el.types) {
        for (const url of t.profiles) {
          const p = this.plans.plan(url);
          if (p && p.type === rt) this.validateAgainstProfile(run, v, rt, p, nestedPath, nested, nestedPath, at);
        }
      }
    }
  }

  // ------------------------------------------------------------------ primitives

  private checkPrimitive(run: Run, v: unknown, companion: unknown, el: ElementPlan, type: string, path: string, scope: Scope, mode: Mode, plan: StructurePlan, at: Position | undefined, hasCompanion: boolean, raw?: string): void {
    if (mode === 'structural') {
      if (companion !== undefined && companion !== null) {
        if (!isObject(companion)) {
          this.report(run, 'error', 'JSON_PROPERTY_NOT_OBJECT', [path.slice(path.lastIndexOf('.') + 1), jsonKind(companion), path], path, at);
        } else {
          const cc = this.plans.primitiveCompanionChildren(type);
          if (cc) this.walkObject(run, companion, el, cc, path, { ...scope, depth: scope.depth + 1 }, mode, this.plans.typePlan(type) ?? plan);
        }
      }
      if (v === undefined || v === null) {
        const hasExtensions = isObject(companion) && Object.keys(companion).length > 0;
        if (!hasExtensions) this.report(run, 'error', v === null && !hasCompanion ? 'JSON_NULL_NOT_ALLOWED' : 'PRIMITIVE_NO_VALUE', v === null && !hasCompanion ? [path.slice(path.lastIndexOf('.') + 1), path] : [], path, at);
        return;
      }
      const want = jsonTypeOfPrimitive(type);
      if (typeof v !== want) {
        this.report(run, 'error', 'JSON_PRIMITIVE_WRONG_TYPE', [want === 'boolean' ? 'a boolean' : want === 'number' ? 'a number' : 'a string', path], path, at);
        return;
      }
      if (typeof v === 'number' && (type === 'integer' || type === 'positiveInt' || type === 'unsignedInt') && raw !== undefined && /[.eE]/.test(raw) /* linear: one character class */) {
        this.report(run, 'error', 'INTEGER_INVALID', [raw], path, at);
        return;
      }
      const isResourceId = type !== 'id' && el.path === plan.type + '.id' && plan.kind === 'resource';
      if (!isResourceId) {
        const problems = checkPrimitiveValue(type, v as string | number | boolean, { securityChecks: this.options.securityChecks, allowExampleUrls: this.options.allowExampleUrls });
        for (const p of problems) this.report(run, p.severity, p.id, p.args, path, at);
      }
      if (type === 'xhtml' && typeof v === 'string') {
        for (const p of checkXhtml(v)) this.report(run, 'error', p.id, p.args, path, at);
        const contained = Array.isArray(scope.resource.contained) ? (scope.resource.contained as unknown[]).filter(isObject).map((c) => String(c.id)) : [];
        for (const link of unresolvedInternalLinks(v, contained)) this.report(run, 'error', 'XHTML_LINK_UNRESOLVED', [link.href, link.path, link.text], path, at);
      }
    } else if (v === undefined || v === null || typeof v !== jsonTypeOfPrimitive(type)) {
      return;
    }
    if (v === undefined || v === null) return;
    if (el.maxLength !== undefined && typeof v === 'string' && v.length > el.maxLength) {
      this.report(run, 'error', 'STRING_TOO_LONG', [el.maxLength], path, at);
    }
    if (el.regex !== undefined && (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) {
      const problem = checkValueRegex(el.regex, type, raw ?? String(v));
      if (problem) this.report(run, problem.severity, problem.id, problem.args, path, at);
    }
    if (el.fixed !== undefined && !deepEqual(v, el.fixed)) {
      this.report(run, 'error', 'FIXED_VALUE', [v, describeValue(el.fixed)], path, at);
    }
    if (el.pattern !== undefined && !deepEqual(v, el.pattern)) {
      this.report(run, 'error', 'PATTERN_VALUE', [v, describeValue(el.pattern), plan.label], path, at);
    }
    if (el.minValue || el.maxValue) this.checkPrimitiveRange(run, v, el, path, at);
    if (el.binding && (type === 'code' || type === 'string' || type === 'uri') && typeof v === 'string') {
      this.checkBinding(run, el, type, v, path, at);
    }
    if (el.constraints.length) this.checkConstraints(run, el, v, path, scope, mode);
  }

  private checkPrimitiveRange(run: Run, v: unknown, el: ElementPlan, path: string, at: Position | undefined): void {
    const cmp = (a: unknown, b: unknown): number | undefined => {
      if (typeof a === 'number' && typeof b === 'number') return a - b;
      if (typeof a === 'string' && typeof b === 'string') {
        const n = Math.min(a.length, b.length);
        return a.slice(0, n) < b.slice(0, n) ? -1 : a.slice(0, n) > b.slice(0, n) ? 1 : 0;
      }
      return undefined;
    };
    if ((el.minValue?.type === 'Duration' || el.maxValue?.type === 'Duration') && typeof v === 'string') {
      this.checkDateAgainstDuration(run, v, el, path, at);
      return;
    }
    if (el.minValue) {
      const c = cmp(v, el.minValue.value);
      if (c !== undefined && c < 0) this.report(run, 'error', 'MIN_VALUE', [v, el.minValue.value], path, at);
    }
    if (el.maxValue) {
      const c = cmp(v, el.maxValue.value);
      if (c !== undefined && c > 0) this.report(run, 'error', 'MAX_VALUE', [v, el.maxValue.value], path, at);
    }
  }

  /**
   * minValueDuration / maxValueDuration on a date: the date may lie at most that far in the
   * past (min) or in the future (max), counted from now.
   */
  private checkDateAgainstDuration(run: Run, v: string, el: ElementPlan, path: string, at: Position | undefined): void {
    const when = Date.parse(v.length === 4 ? `${v}-01-01` : v.length === 7 ? `${v}-01` : v);
    if (Number.isNaN(when)) return;
    const ms = (d: any): number | undefined => {
      const unitMs: Record<string, number> = { a: 365.25 * 864e5, mo: 30.4375 * 864e5, wk: 7 * 864e5, d: 864e5, h: 36e5, min: 6e4, s: 1e3, ms: 1 };
      const u = unitMs[d?.code ?? d?.unit];
      return typeof d?.value === 'number' && u ? d.value * u : undefined;
    };
    const now = Date.now();
    const min = el.minValue?.type === 'Duration' ? ms(el.minValue.value) : undefined;
    if (min !== undefined && when < now - min) this.report(run, 'error', 'MIN_VALUE', [v, describeValue(el.minValue!.value)], path, at);
    const max = el.maxValue?.type === 'Duration' ? ms(el.maxValue.value) : undefined;
    if (max !== undefined && when > now + max) this.report(run, 'error', 'MAX_VALUE', [v, describeValue(el.maxValue!.value)], path, at);
  }

  private checkQuantityRange(run: Run, v: Record<string, unknown>, el: ElementPlan, path: string, at: Position | undefined): void {
    const value = v.value;
    if (typeof value !== 'number') return;
    const describe = (q: any) => `${q.value}${q.unit ?? q.code ? ' ' + (q.unit ?? q.code) : ''}`;
    // the instance value in the limit's units (UCUM conversion when both are UCUM coded)
    let converted = false;
    const inUnitsOf = (q: any): number | undefined => {
      if ((q.code ?? q.unit) === (v.code ?? v.unit)) return value;
      converted = true;
      if (q.system === 'http://unitsofmeasure.org' && v.system === 'http://unitsofmeasure.org' && typeof q.code === 'string' && typeof v.code === 'string') {
        return ucumConverter.convert(value, v.code, q.code);
      }
      return undefined;
    };
    const min = el.minValue?.value as any;
    if (min && typeof min.value === 'number') {
      const x = inUnitsOf(min);
      if (x !== undefined && x < min.value) this.report(run, 'error', converted ? 'MIN_VALUE_UCUM' : 'MIN_VALUE', [describe(v), describe(min)], path, at);
    }
    const max = el.maxValue?.value as any;
    if (max && typeof max.value === 'number') {
      const x = inUnitsOf(max);
      if (x !== undefined && x > max.value) this.report(run, 'error', converted ? 'MAX_VALUE_UCUM' : 'MAX_VALUE', [describe(v), describe(max)], path, at);
    }
  }

  // ------------------------------------------------------------------ fixed / pattern

  private checkFixed(run: Run, v: unknown, fixed: unknown, path: string, at: Position | undefined): void {
    if (!deepEqual(v, fixed)) this.report(run, 'error', 'FIXED_VALUE', [describeValue(v), describeValue(fixed)], path, at);
  }

  private checkPattern(run: Run, v: unknown, pattern: unknown, path: string, plan: StructurePlan, at: Position | undefined): void {
    if (!matchesPattern(v, pattern)) this.report(run, 'error', 'PATTERN_MISMATCH', [describeValue(pattern), plan.label], path, at);
  }

  // ------------------------------------------------------------------ invariants

  private checkConstraints(run: Run, el: ElementPlan, node: unknown, path: string, scope: Scope, _mode: Mode): void {
    for (const c of el.constraints) {
      if (c.bestPractice && !this.options.bestPractice) continue;
      // native invariants (ele-1 on every element) are cheap: no bookkeeping, duplicates are
      // dropped by report(); FHIRPath ones are evaluated once per location
      if (!InvariantEvaluator.isNative(c.key)) {
        const key = path + '\u0000' + c.key;
        if (run.evaluated.has(key)) continue;
        run.evaluated.add(key);
      }
      const result = this.invariants.evaluate(c, node, { resource: scope.resource, rootResource: scope.root, resolve: this.resolveInScope, context: scope });
      if (result === 'pass' || result === 'skip') continue;
      if (result === 'fail') {
        this.reportConstraint(run, c, path, this.pos(run, node));
      } else {
        // a broken invariant is reported once per validation, never as an error
        const brokenKey = '\u0000broken\u0000' + c.key + '\u0000' + c.expression;
        if (!run.evaluated.has(brokenKey)) {
          run.evaluated.add(brokenKey);
          this.report(run, 'warning', 'INVARIANT_BROKEN', [c.key, c.expression, result.error], path, this.pos(run, node));
        }
      }
    }
  }

  private readonly resolveInScope = (ref: string, scope: unknown): unknown => this.resolveReference(ref, scope as Scope);

  /** A reference's target, when it is inside the resource (contained) or its Bundle. */
  private resolveReference(ref: string, scope: Scope): unknown {
    if (ref.startsWith('#')) {
      const contained = scope.root.contained;
      if (ref === '#') return scope.root;
      return Array.isArray(contained) ? contained.find((c) => isObject(c) && c.id === ref.slice(1)) : undefined;
    }
    if (scope.bundle) {
      const hits = scope.bundle.resolve(ref, scope.fullUrl);
      if (hits.length === 1) return hits[0].resource;
    }
    return undefined;
  }

  private reportConstraint(run: Run, c: ConstraintPlan, path: string, at: Position | undefined): void {
    if (c.bestPractice) this.report(run, 'warning', 'INVARIANT_FAILED_BEST_PRACTICE', [c.key, c.human], path, at);
    else this.report(run, c.severity, 'INVARIANT_FAILED', [c.key, c.human], path, at);
  }

  // ------------------------------------------------------------------ extensions

  private resolveExtension(run: Run, ext: Record<string, unknown>, modifier: boolean, insideExtension: boolean, path: string, scope: Scope, at: Position | undefined, host: ElementPlan, hostPlan: StructurePlan): void {
    const url = ext.url;
    if (typeof url !== 'string') {
      this.report(run, 'error', 'EXTENSION_NO_URL', [], path, at);
      return;
    }
    const plan = this.plans.plan(url);
    if (!plan) {
      if (CROSS_VERSION_EXTENSION.test(url)) return;
      // sub-extensions of a complex extension have relative urls: the parent's definition slices them
      if (insideExtension && !ABSOLUTE_URL.test(url)) return;
      if (modifier) this.report(run, 'error', 'EXTENSION_MODIFIER_UNKNOWN', [url], path, at);
      else if (!ABSOLUTE_URL.test(url)) this.report(run, 'error', 'EXTENSION_URL_NOT_ABSOLUTE', [url], `${path}.url`, at);
      else if (this.options.unknownExtensionSeverity === 'error') this.report(run, 'error', 'EXTENSION_UNKNOWN', [url], path, at);
      else this.report(run, this.options.unknownExtensionSeverity, 'EXTENSION_UNKNOWN_ALLOWED', [url], path, at);
      return;
    }
    if (!plan.root?.ownChildren) return;
    if (plan.root.isModifier !== modifier && plan.type === 'Extension') {
      this.report(run, 'error', modifier ? 'EXTENSION_NOT_MODIFIER' : 'EXTENSION_IS_MODIFIER', [url], path, at);
    }
    const allowed = this.extensionAllowedHere(plan, host, hostPlan);
    if (allowed !== true) {
      this.report(run, 'error', 'EXTENSION_CONTEXT', [url, allowed, host.path || hostPlan.type], path, at);
    }
    this.walkObject(run, ext, plan.root, plan.root.ownChildren, path, { ...scope, depth: scope.depth + 1 }, 'profile', plan);
  }

  /**
   * Extension context rules (StructureDefinition.context): true when the extension may sit on
   * this element, else the list of allowed contexts for the message. Only 'element' contexts
   * are judged; 'fhirpath' and 'extension' contexts are accepted.
   */
  private extensionAllowedHere(ext: StructurePlan, host: ElementPlan, hostPlan: StructurePlan): true | string {
    if (ext.contexts.length === 0) return true;
    const hostPath = host.path.replace(/\[x\]/g, ''); // linear (and below): a fixed three-character text
    const hostTypes = host === hostPlan.root ? [hostPlan.type] : host.types.map((t) => t.code);
    const isResourceRoot = host === hostPlan.root && hostPlan.kind === 'resource';
    const isBackbone = hostTypes.includes('BackboneElement');
    for (const c of ext.contexts) {
      if (c.type !== 'element') return true;
      const e = (c.expression ?? '').replace(/\[x\]/g, '');
      // a context on a child of the host is accepted too (the HL7 validator does for core extensions such as structuredefinition-fhir-type)
      if (e === 'Element' || e === hostPath || hostTypes.includes(e) || e.startsWith(hostPath + '.')) return true;
      if ((e === 'Resource' || e === 'DomainResource') && isResourceRoot) return true;
      if (e === 'BackboneElement' && isBackbone) return true;
      if (e === 'DataType' && !isResourceRoot) return true;
      // a context on a base path also admits profiles of that type's elements (e.g. 'Patient.name' for 'HumanName' hosts)
      if (hostPlan.derivation === 'constraint' && e === hostPlan.type + hostPath.slice(hostPath.indexOf('.') < 0 ? hostPath.length : hostPath.indexOf('.'))) return true;
    }
    return ext.contexts.map((c) => c.expression).join(', ');
  }

  // ------------------------------------------------------------------ references

  private checkReference(run: Run, v: Record<string, unknown>, el: ElementPlan, path: string, scope: Scope, at: Position | undefined): void {
    const ref = v.reference;
    if (typeof ref !== 'string') {
      if (v.identifier === undefined && v.display === undefined && v.extension === undefined) this.report(run, 'warning', 'REFERENCE_NO_DISPLAY', [], path, at);
      return;
    }
    const targets = this.referenceTargets(el);
    const parsed = parseReference(ref);
    if (parsed.kind === 'local') {
      if (parsed.id === '') return; // reference to the container
      const contained = scope.root.contained;
      const found = Array.isArray(contained) && contained.some((c) => isObject(c) && c.id === parsed.id);
      if (!found) {
        this.report(run, 'error', 'REFERENCE_CANT_RESOLVE', [ref], path, at);
        return;
      }
      const target = (contained as Record<string, unknown>[]).find((c) => isObject(c) && c.id === parsed.id);
      if (targets && target && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
        this.report(run, 'error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')], path, at);
      }
      return;
    }
    if (/\s/.test(ref) /* linear: one character class */) {
      this.report(run, 'error', 'REFERENCE_FORMAT', [ref], path, at);
      return;
    }
    if (targets && parsed.type && this.plans.isResourceType(parsed.type) && !targets.has(parsed.type)) {
      this.report(run, 'error', 'REFERENCE_BAD_TARGET', [parsed.type, ref, [...targets].join(', ')], path, at);
      return;
    }
    if (scope.bundle) {
      let hits = scope.bundle.resolve(ref, scope.fullUrl);
      // linear: after each '/_history/' the class runs to the next '/' only
      const version = /\/_history\/([^/]+)$/.exec(ref)?.[1];
      if (version !== undefined) hits = hits.filter((h) => isObject(h.resource?.meta) && (h.resource!.meta as Record<string, unknown>).versionId === version);
      if (scope.bundle.type === 'document' || scope.bundle.type === 'message') {
        // inside documents and messages references must resolve, and unambiguously
        if (hits.length > 1) this.report(run, 'error', 'REFERENCE_MULTIPLE_MATCHES', [ref], path, at);
        else if (hits.length === 0 && parsed.kind !== 'absolute' && parsed.kind !== 'other') this.report(run, 'error', 'REFERENCE_NOT_IN_BUNDLE', [ref], path, at);
      }
      if (hits.length === 1) {
        const target = hits[0].resource;
        if (targets && target && typeof target.resourceType === 'string' && !targets.has(target.resourceType)) {
          this.report(run, 'error', 'REFERENCE_WRONG_TARGET', [target.resourceType, [...targets].join(', ')], path, at);
        }
      }
    }
  }

  private readonly targetCache = new WeakMap<ElementPlan, Set<string> | null>();

  /** Resource types a Reference element may point to; undefined = any. */
  private referenceTargets(el: ElementPlan): Set<string> | undefined {
    let t = this.targetCache.get(el);
    if (t === undefined) {
      const s = new Set<string>();
      let any = false;
      for (const type of el.types) {
        if (type.code !== 'Reference' && type.code !== 'CodeableReference') continue;
        if (type.targetProfiles.length === 0) any = true;
        for (const tp of type.targetProfiles) {
          const name = tp.startsWith(CORE_SD) ? tp.slice(CORE_SD.length) : this.plans.plan(tp)?.type;
          if (!name || name === 'Resource' || name === 'DomainResource') any = true;
          else s.add(name);
        }
      }
      t = any || s.size === 0 ? null : s;
      this.targetCache.set(el, t);
    }
    return t ?? undefined;
  }

  // ------------------------------------------------------------------ bundles

  private checkBundle(run: Run, bundle: Record<string, unknown>, path: string, scope: Scope): void {
    const entries = bundle.entry;
    if (!Array.isArray(entries)) return;
    const index = new BundleIndex(entries, typeof bundle.type === 'string' ? bundle.type : undefined);
    scope.bundle = index;
    const seenIds = new Map<string, number>();
    entries.forEach((e, i) => {
      if (!isObject(e)) return;
      const entryPath = `${path}.entry[${i}]`;
      const at = this.itemPos(run, entries, i);
      const fullUrl = e.fullUrl;
      const res = e.resource;
      if (typeof fullUrl === 'string') {
        if (!ABSOLUTE_URL.test(fullUrl)) this.report(run, 'error', 'BUNDLE_FULLURL_ABSOLUTE', [fullUrl], entryPath, at);
        else if (isObject(res) && typeof res.resourceType === 'string' && typeof res.id === 'string') {
          // linear: at each '/' that `.+` gives back, the rest covers the next two segments only
          const m = /^https?:\/\/.+\/([A-Z][A-Za-z]+)\/([^/]+)$/.exec(fullUrl);
          if (m && (m[1] !== res.resourceType || m[2] !== res.id)) {
            this.report(run, 'error', 'BUNDLE_FULLURL_ID_MISMATCH', [fullUrl, res.resourceType, res.id], entryPath, at);
          }
        }
      }
      if (isObject(res) && typeof res.resourceType === 'string' && typeof res.id === 'string') {
        const key = `${typeof fullUrl === 'string' ? fullUrl : ''}|${res.resourceType}/${res.id}`;
        const meta = isObject(res.meta) ? res.meta.versionId : undefined;
        const k = key + '|' + String(meta ?? '');
        if (seenIds.has(k)) this.report(run, 'error', 'BUNDLE_DUPLICATE_ID', [res.id], entryPath, at);
        else seenIds.set(k, i);
      }
    });
  }

  // ------------------------------------------------------------------ slicing

  private assignSlices(run: Run, values: unknown[], el: ElementPlan, parentPath: string, basePath: string, repeating: boolean, scope: Scope, plan: StructurePlan, obj: Record<string, unknown>, key: string, indexes?: number[]): (ElementPlan | undefined)[] {
    const slicing = el.slicing!;
    const result: (ElementPlan | undefined)[] = new Array(values.length);
    const counts = new Map<ElementPlan, number>();
    let lastSliceIndex = -1;
    let unmatchedSeen = -1;
    const arr = Array.isArray(obj[key]) ? (obj[key] as unknown[]) : undefined;
    for (let k = 0; k < values.length; k++) {
      const i = indexes ? indexes[k] : k;
      const v = values[k];
      const itemPath = repeating ? `${basePath}[${i}]` : basePath;
      const at = arr ? this.itemPos(run, arr, i) : this.propPos(run, obj, key);
      let matched: ElementPlan | undefined;
      for (let s = 0; s < el.slices.length; s++) {
        const slice = el.slices[s];
        if (this.matchesSlice(run, v, slice, slicing.discriminators, scope)) {
          matched = slice;
          if (slicing.ordered && s < lastSliceIndex) this.report(run, 'error', 'SLICE_ORDER', [plan.label, slice.sliceName], itemPath, at);
          if (slicing.rules === 'openAtEnd' && unmatchedSeen >= 0) this.report(run, 'error', 'SLICE_AT_END', [el.id, slice.sliceName], itemPath, at);
          lastSliceIndex = Math.max(lastSliceIndex, s);
          break;
        }
      }
      result[k] = matched;
      if (matched) counts.set(matched, (counts.get(matched) ?? 0) + 1);
      else {
        unmatchedSeen = i;
        if (slicing.rules === 'closed') this.report(run, 'error', 'SLICE_UNMATCHED_CLOSED', [plan.label, `${itemPath}: Does not match any slice`], itemPath, at);
        // as the HL7 validator: a hint, so that category rules can see it
        else if (!indexes) this.report(run, 'information', 'SLICE_UNMATCHED_OPEN', [plan.label], itemPath, at);
      }
    }
    for (const slice of el.slices) {
      const n = counts.get(slice) ?? 0;
      if (n < slice.min) {
        this.report(run, 'error', slicing.rules === 'closed' ? 'SLICE_REQUIRED_CLOSED' : 'SLICE_REQUIRED_OPEN', [slice.id, plan.label], parentPath, this.pos(run, obj));
      }
      if (n > slice.max) this.report(run, 'error', 'CARDINALITY_MAX', [slice.id, slice.max, n, plan.label], parentPath, this.pos(run, obj));
      // re-slicing: the items of a slice that is itself sliced are assigned to its slices
      if (n > 0 && slice.slicing && slice.slices.length > 0) {
        const subValues: unknown[] = [];
        const subIndexes: number[] = [];
        const positions: number[] = [];
        for (let k = 0; k < values.length; k++) {
          if (result[k] === slice) {
            subValues.push(values[k]);
            subIndexes.push(indexes ? indexes[k] : k);
            positions.push(k);
          }
        }
        const sub = this.assignSlices(run, subValues, slice, parentPath, basePath, repeating, scope, plan, obj, key, subIndexes);
        sub.forEach((target, j) => {
          if (target) result[positions[j]] = target;
        });
      }
    }
    return result;
  }

  /** Slices whose minimum is above zero but that were not present at all (element absent). */
  private matchesSlice(run: Run, v: unknown, slice: ElementPlan, discriminators: { type: string; path: string }[], scope: Scope): boolean {
    if (discriminators.length === 0) return false;
    let constrained = 0;
    for (const d of discriminators) {
      const m = this.matchesDiscriminator(run, v, slice, d, scope);
      if (m === false) return false;
      if (m === true) constrained++;
    }
    // a slice that fixes none of the discriminators matches nothing
    return constrained > 0;
  }

  /** true / false, or 'unconstrained' when the slice fixes no value for this discriminator. */
  private matchesDiscriminator(run: Run, v: unknown, slice: ElementPlan, d: { type: string; path: string }, scope: Scope): boolean | 'unconstrained' {
    const sub = this.sliceSubElement(slice, d.path);
    const actual = evaluateDiscriminatorPath(v, d.path);
    switch (d.type) {
      case 'value':
      case 'pattern': {
        let expected = sub?.fixed ?? sub?.pattern;
        if (expected === undefined && d.path === 'url' && slice.types[0]?.profiles[0]) expected = slice.types[0].profiles[0];
        if (expected === undefined && sub?.binding?.valueSet && sub.binding.strength === 'required' && this.terminology.isMemberOf) {
          for (const a of actual) {
            const coding = typeof a === 'string' ? { code: a } : (a as CodingInput);
            const codings = isObject(a) && Array.isArray(a.coding) ? (a.coding as CodingInput[]) : [coding];
            if (codings.some((c) => this.terminology.isMemberOf!(c, sub.binding!.valueSet!) === true)) return true;
          }
          return false;
        }
        if (expected === undefined) return 'unconstrained';
        for (const a of actual) {
          if (d.type === 'value' && !isObject(expected) ? deepEqual(a, expected) : matchesPattern(a, expected)) return true;
        }
        return false;
      }
      case 'exists': {
        if (!sub) return false;
        if (sub.min >= 1) return actual.length > 0;
        if (sub.max === 0) return actual.length === 0;
        return true;
      }
      case 'type': {
        if (!sub || sub.types.length === 0) return false;
        const codes = sub.types.map((t) => t.code);
        for (const a of actual) {
          if (isObject(a) && typeof a.resourceType === 'string') {
            if (codes.includes(a.resourceType)) return true;
          } else if (typeof a === 'string' && codes.some((c) => PRIMITIVE_TYPES.has(c))) return true;
          else if (isObject(a) && codes.length === 1) return true;
        }
        return false;
      }
      case 'profile': {
        if (!sub) return false;
        const profiles = sub.types.flatMap((t) => (t.profiles.length ? t.profiles : t.targetProfiles));
        if (profiles.length === 0) return false;
        for (const a of actual) {
          if (!isObject(a)) continue;
          for (const url of profiles) {
            if (this.conformsTo(run, a, url, scope)) return true;
          }
        }
        return false;
      }
      default:
        return false;
    }
  }

  /** Silent validation of a value against one profile: does it conform (no errors)? */
  private conformsTo(run: Run, v: Record<string, unknown>, url: string, scope: Scope): boolean {
    const p = this.plans.plan(url);
    if (!p?.root?.ownChildren) return false;
    const silent: Run = { ...run, silent: true, errorCount: 0, evaluated: new Set(), seen: new Set(), issues: [] };
    if (p.kind === 'resource') {
      if (v.resourceType !== p.type) return false;
      this.walkObject(silent, v, p.root, p.root.ownChildren, p.type, { ...scope, resource: v, root: v, depth: scope.depth + 1 }, 'profile', p);
    } else {
      this.walkObject(silent, v, p.root, p.root.ownChildren, 'value', { ...scope, depth: scope.depth + 1 }, 'profile', p);
    }
    return silent.errorCount === 0;
  }

  private readonly subElementCache = new WeakMap<ElementPlan, Map<string, ElementPlan | null>>();

  /** The element inside a slice that a discriminator path points at. */
  private sliceSubElement(slice: ElementPlan, path: string): ElementPlan | undefined {
    let cache = this.subElementCache.get(slice);
    if (!cache) this.subElementCache.set(slice, (cache = new Map()));
    let hit = cache.get(path);
    if (hit === undefined) {
      hit = this.findSubElement(slice, path) ?? null;
      cache.set(path, hit);
    }
    return hit ?? undefined;
  }

  private findSubElement(slice: ElementPlan, path: string): ElementPlan | undefined {
    if (path === '$this' || path === '') return slice;
    let current: ElementPlan | undefined = slice;
    const segments = path.split('.');
    for (const raw of segments) {
      if (!current) return undefined;
      if (raw === '$this') continue;
      if (raw === 'resolve()') continue;
      // linear (both): anchored, `.+` gives back characters until the fixed ending fits
      const ofType = /^ofType\((.+)\)$/.exec(raw);
      if (ofType) {
        if (current.isChoice && current.slices.length) current = current.slices.find((s) => s.types.some((t) => t.code === ofType[1])) ?? current;
        continue;
      }
      const ext = /^extension\(['"](.+)['"]\)$/.exec(raw);
      const name = ext ? 'extension' : raw;
      let children: ChildIndex | undefined = current.ownChildren;
      if (!children && current.types.length === 1) children = this.plans.typeChildren(current.types[0].code);
      const next: ElementPlan | undefined = children?.list.find((c) => c.name === name);
      if (!next) return undefined;
      if (ext) {
        current = next.slices.find((s) => s.types.some((t) => t.profiles.includes(ext[1]))) ?? undefined;
      } else {
        current = next;
      }
    }
    return current;
  }

  // ------------------------------------------------------------------ terminology

  private checkBinding(run: Run, el: ElementPlan, type: string, v: unknown, path: string, at: Position | undefined): void {
    const binding = el.binding!;
    for (const extra of binding.additional) {
      if (extra.purpose === 'required' || extra.purpose === 'maximum') this.checkAdditionalBinding(run, extra.valueSet, v, path, at);
    }
    if (!binding.valueSet || binding.strength === 'example') return;
    const key = path + '\u0000' + binding.valueSet + '\u0000binding';
    if (run.evaluated.has(key)) return;
    run.evaluated.add(key);
    let request: { coding?: CodingInput; codings?: CodingInput[] };
    let display: string;
    if (typeof v === 'string') {
      request = { coding: { code: v } };
      display = v;
    } else if (isObject(v) && (type === 'CodeableConcept' || type === 'CodeableReference')) {
      const cc = type === 'CodeableReference' ? v.concept : v;
      if (!isObject(cc) || !Array.isArray(cc.coding) || cc.coding.length === 0) return;
      const codings = (cc.coding as unknown[]).filter(isObject) as CodingInput[];
      request = { codings };
      display = codings.map((c) => `${c.system ?? ''}#${c.code ?? ''}`).join(', ');
    } else if (isObject(v) && (type === 'Coding' || type === 'Quantity')) {
      if (typeof v.code !== 'string') return;
      request = { coding: { system: v.system as string | undefined, code: v.code, display: v.display as string | undefined, version: v.version as string | undefined } };
      display = String(v.code);
    } else {
      return;
    }
    let answer: ValidateCodeResult | Promise<ValidateCodeResult>;
    try {
      const elementKind = type === 'CodeableReference' ? 'CodeableConcept' : (type as 'code' | 'Coding' | 'CodeableConcept' | 'Quantity' | 'string' | 'uri');
      answer = this.terminology.validateCode({ valueSet: binding.valueSet, ...request, elementKind, strength: binding.strength as BindingStrength, maxValueSet: binding.maxValueSet, authorization: run.authorization });
    } catch (e) {
      answer = { valid: undefined, issues: [{ severity: 'warning', code: 'exception', text: `Terminology error: ${e instanceof Error ? e.message : String(e)}`, messageId: 'TERMINOLOGY_ERROR' }], source: 'none' };
    }
    const apply = (r: ValidateCodeResult) => this.applyBindingResult(run, r, binding.strength, binding.valueSet!, type, display, path, at);
    if (answer && typeof (answer as Promise<ValidateCodeResult>).then === 'function') {
      run.pending.push((answer as Promise<ValidateCodeResult>).then(apply, (e) => apply({ valid: undefined, issues: [{ severity: 'warning', code: 'exception', text: `Terminology error: ${e instanceof Error ? e.message : String(e)}`, messageId: 'TERMINOLOGY_ERROR' }], source: 'none' })));
    } else {
      apply(answer as ValidateCodeResult);
    }
  }

  /** An additional binding with purpose required/maximum: the codes must be in its value set. */
  private checkAdditionalBinding(run: Run, valueSet: string, v: unknown, path: string, at: Position | undefined): void {
    const key = path + '\u0000' + valueSet + '\u0000additional';
    if (run.evaluated.has(key)) return;
    run.evaluated.add(key);
    let codings: CodingInput[] = [];
    if (typeof v === 'string') codings = [{ code: v }];
    else if (isObject(v) && Array.isArray(v.coding)) codings = (v.coding as unknown[]).filter(isObject) as CodingInput[];
    else if (isObject(v) && typeof v.code === 'string') codings = [v as CodingInput];
    if (codings.length === 0) return;
    const apply = (r: ValidateCodeResult) => {
      if (r.valid !== false) return;
      const vs = this.source.valueSet(valueSet);
      const title = (vs?.title ?? vs?.name ?? valueSet) as string;
      const label = vs?.url ? (vs.version ? `${vs.url}|${vs.version}` : vs.url) : valueSet;
      this.report(run, 'error', 'BINDING_ADDITIONAL_REQUIRED', [title, label, codings.map((c) => `${c.system ?? ''}#${c.code ?? ''}`).join(', ')], path, at);
    };
    try {
      const answer = this.terminology.validateCode({ valueSet, codings, authorization: run.authorization });
      if (answer && typeof (answer as Promise<ValidateCodeResult>).then === 'function') run.pending.push((answer as Promise<ValidateCodeResult>).then(apply, () => undefined));
      else apply(answer as ValidateCodeResult);
    } catch {
      // terminology failures are reported by the main binding check
    }
  }

  private applyBindingResult(run: Run, r: ValidateCodeResult, strength: string, valueSet: string, type: string, display: string, path: string, at: Position | undefined): void {
    for (const i of r.issues) {
      const key = i.severity + '\u0000' + path + '\u0000' + i.text;
      if (run.seen.has(key)) continue;
      run.seen.add(key);
      if (!run.silent) this.pushIssue(run, i.severity, i.code, i.text, i.messageId, path, at);
      if (i.severity === 'error') run.errorCount++;
    }
    if (r.valid !== false) return;
    // a terminology that words the binding failure itself (given the strength) has said it already
    if (r.issues.some((i) => i.severity === (strength === 'required' ? 'error' : strength === 'extensible' ? 'warning' : 'information'))) return;
    const vs = this.source.valueSet(valueSet);
    const title = (vs?.title ?? vs?.name ?? valueSet) as string;
    const vsLabel = vs?.url ? (vs.version ? `${vs.url}|${vs.version}` : vs.url) : valueSet;
    const concept = type === 'CodeableConcept' || type === 'CodeableReference';
    if (strength === 'required') {
      if (concept) this.report(run, 'error', 'BINDING_REQUIRED_CONCEPT', [title, vsLabel, display], path, at);
      else this.report(run, 'error', 'BINDING_REQUIRED_CODE', [display, title, vsLabel], path, at);
    } else if (strength === 'extensible') {
      this.report(run, 'warning', 'BINDING_EXTENSIBLE_CONCEPT', [title, vsLabel, display], path, at);
    } else if (strength === 'preferred') {
      this.report(run, 'information', 'BINDING_PREFERRED_CONCEPT', [title, vsLabel, display], path, at);
    }
  }
}
