/**
 * The FHIR R4 instance validator: walks a resource against the compiled plan of its core
 * definition (the "structural" walk: JSON shape, unknown properties, primitive value spaces,
 * extensions, references, nested resources) and then against every profile (meta.profile
 * plus the caller's), where only what a profile adds is checked again (cardinality, slicing,
 * fixed/pattern, type restrictions, invariants, bindings, value ranges).
 *
 * This module is the façade. The walk is organised as the HL7 validator's: one context per
 * step (context/: the run, the resource, the node), the resource and element walk (walk/),
 * one module per rule family (rules/) and one validator per resource type (resource-types/).
 *
 * Domain code: no I/O. Definitions come from a ConformanceResourceSource, terminology from
 * the TerminologyPort. Output is an OperationOutcome with the HL7 validator's wording,
 * FHIRPath locations (`Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1').class`),
 * line/column when the input was JSON text, and message ids.
 */
import type { ConformanceResourceSource } from '../ports/conformance-resources.js';
import { unknownTerminology, type TerminologyPort } from '../ports/terminology.js';
import { NodeContext } from './context/node-context.js';
import { ResourceContext } from './context/resource-context.js';
import { ValidationRun } from './context/validation-run.js';
import { ValidatorServices } from './context/validator-services.js';
import { parseLocatedJson } from './json/located-json.js';
import { isObject } from './json/json-value.js';
import type { ValidationOutcome } from './outcome/issue.js';
import { reportParseIssue, reportXmlParseIssue } from './outcome/parse-issues.js';
import { defaultResourceTypeValidators } from './resource-types/index.js';
import { conformsTo } from './rules/slicing.js';
import { resolveValidatorOptions, withSettings, type ValidateOptions, type ValidatorOptions } from './validator-options.js';
import { ResourceWalker } from './walk/walker.js';
import { looksLikeXml, parseLocatedXml } from './xml/located-xml.js';

export type { ValidateOptions, ValidationSettings, ValidatorOptions } from './validator-options.js';

export class Validator {
  private readonly services: ValidatorServices;
  /** The walk (with the resource-type validators), made once and carried by every NodeContext. */
  private readonly walker = new ResourceWalker(defaultResourceTypeValidators());

  constructor(source: ConformanceResourceSource, terminology: TerminologyPort = unknownTerminology, options: ValidatorOptions = {}) {
    this.services = new ValidatorServices(source, terminology, resolveValidatorOptions(options), conformsToAsInvariants);
  }

  /**
   * Validate a resource (a parsed value, or JSON or XML text which is then read with locations;
   * the format is options.format, else told by the text's first character).
   * Terminology answers that arrive as Promises are not waited for here; use validateAsync.
   */
  validate(input: unknown, options: ValidateOptions = {}): ValidationOutcome {
    const run = this.newRun(options);
    this.guardedValidateInto(run, input, options);
    return { resourceType: 'OperationOutcome', issue: run.finishedIssues() };
  }

  /** As validate, but waits for asynchronous terminology answers. */
  async validateAsync(input: unknown, options: ValidateOptions = {}): Promise<ValidationOutcome> {
    return this.validateSettled(input, options);
  }

  /**
   * As validateAsync, but the outcome itself when no terminology answer is pending (local
   * terminology, or every answer cached): a caller validating many resources in a row (a worker's
   * submission task) then waits for nothing it does not need to.
   */
  validateSettled(input: unknown, options: ValidateOptions = {}): ValidationOutcome | Promise<ValidationOutcome> {
    const run = this.newRun(options);
    this.guardedValidateInto(run, input, options);
    if (run.pending.length === 0) return { resourceType: 'OperationOutcome', issue: run.finishedIssues() };
    return Validator.settle(run);
  }

  private static async settle(run: ValidationRun): Promise<ValidationOutcome> {
    while (run.pending.length) {
      const pending = run.pending.splice(0);
      await Promise.all(pending);
    }
    return { resourceType: 'OperationOutcome', issue: run.finishedIssues() };
  }

  private newRun(options: ValidateOptions): ValidationRun {
    return new ValidationRun(this.services, options.authorization, [], false, withSettings(this.services.options, options.settings));
  }

  /** A defect in the engine (or a definition it cannot digest) becomes a fatal issue, never a throw. */
  private guardedValidateInto(run: ValidationRun, input: unknown, options: ValidateOptions): void {
    try {
      this.validateInto(run, input, options);
    } catch (e) {
      const detail = e instanceof RangeError ? 'the resource is too deeply nested or too large to validate' : e instanceof Error ? e.message : String(e);
      run.report('fatal', 'INTERNAL_ERROR', [detail], '', undefined);
    }
  }

  private validateInto(run: ValidationRun, input: unknown, options: ValidateOptions): void {
    let value = input;
    if (typeof input === 'string' && (options.format === 'xml' || (options.format === undefined && looksLikeXml(input)))) {
      const limits = this.services.options;
      const parsed = parseLocatedXml(input, this.services.plans, { maxLength: limits.maxInputLength, maxDepth: limits.maxDepth + 20, allowXsiLocation: limits.allowXsiLocation });
      run.locations = parsed.locations;
      run.sourceFormat = 'xml';
      for (const pi of parsed.issues) reportXmlParseIssue(run, pi);
      if (parsed.value === undefined) return;
      value = parsed.value;
    } else if (typeof input === 'string') {
      const limits = this.services.options;
      const parsed = parseLocatedJson(input, { maxLength: limits.maxInputLength, maxDepth: limits.maxDepth + 20 });
      run.locations = parsed.locations;
      run.unquotedValues = parsed.unquotedValues;
      const rootType = isObject(parsed.value) && typeof parsed.value.resourceType === 'string' ? parsed.value.resourceType : '';
      for (const pi of parsed.issues) {
        // HL7's JSON parser keeps comments without a word when it is told to allow them
        if (pi.kind === 'comment' && run.options.allowComments) continue;
        reportParseIssue(run, pi, rootType);
      }
      if (parsed.value === undefined) return;
      value = parsed.value;
    }
    if (!isObject(value)) {
      run.report('fatal', 'RESOURCE_NOT_OBJECT', [], '', undefined);
      return;
    }
    const rt = value.resourceType;
    if (typeof rt !== 'string') {
      run.report('fatal', 'RESOURCETYPE_MISSING', [], '', run.pos(value));
      return;
    }
    this.walker.validateResource(ResourceContext.forRoot(run, value, rt), options.profiles ?? [], true);
  }
}

/** conformsTo() for invariants: the value validated in full (its core definition, then the profile). */
const conformsToAsInvariants = (ctx: unknown, value: Record<string, unknown>, url: string): boolean => ctx instanceof NodeContext && conformsTo(ctx, value, url, true);
