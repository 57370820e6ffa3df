/**
 * Invariants (ElementDefinition.constraint) of an element on a value: FHIRPath ones through
 * checks/invariants.ts with `%resource`, `%rootResource` and a synchronous resolve() over the
 * resource's contained resources and Bundle; native ones (ele-1 ...) inside the evaluator.
 */
import { InvariantEvaluator } from '../checks/invariants.js';
import { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { Position } from '../json/located-json.js';
import type { ConstraintPlan, ElementPlan } from '../plan/structure-plan.js';
import type { BestPracticeLevel } from '../validator-options.js';

/** resolve() inside invariants: the evaluator hands back the context it was given (the node's). */
const resolveInResource = (ref: string, context: unknown): unknown => (context instanceof NodeContext ? context.host.resolveReference(ref) : undefined);

/** Values being checked by conformsTo() (a profile whose invariant asks for itself would never end). */
const conformsInProgress = new Set<unknown>();

/**
 * conformsTo(url) inside invariants, as HL7's host services answer it: the value is validated
 * (silently) against the profile, and conforms when that gives no error. A primitive, or a profile
 * that is not known, cannot be told (empty).
 */
const conformsToProfile = (value: unknown, url: string, ctx: unknown): boolean | undefined => {
  if (!(ctx instanceof NodeContext) || !isObject(value) || conformsInProgress.has(value) || !ctx.services.plans.plan(url)?.root) return undefined;
  const check = ctx.services.conformsTo;
  if (!check) return undefined;
  conformsInProgress.add(value);
  try {
    return check(ctx, value, url);
  } finally {
    conformsInProgress.delete(value);
  }
};

/** The constraints of `el` on `value`, reported at ctx.path. */
export function checkConstraints(ctx: NodeContext, el: ElementPlan, value: unknown): void {
  // (ctx.path is made only when needed: native invariants on primitives mostly pass)
  const { run, host } = ctx;
  const { invariants } = run.services;
  const bestPractice = run.options.bestPractice;
  for (const c of el.constraints) {
    if (c.bestPractice && bestPractice === 'ignore') continue;
    // dom-3 (contained resources are referenced) is part of validating the contained resources, which
    // HL7's contained-resource policy can switch off
    if (c.key === 'dom-3' && run.options.containedPolicy !== 'CHECK_VALID') continue;
    // native invariants (ele-1 on every element) are cheap: no bookkeeping, duplicates are
    // dropped by report(); FHIRPath ones are evaluated once per location
    if (!InvariantEvaluator.isNative(c.key)) {
      const key = ctx.path + '\u0000' + c.key;
      if (run.evaluated.has(key)) continue;
      run.evaluated.add(key);
    }
    // As HL7 evaluates them (validateResource starts each resource as its own `resource`, and
    // ValidationContext.forContained keeps the container as the root): inside a contained resource
    // %resource is the contained resource and %rootResource the resource that contains it; elsewhere
    // both are the resource itself (a Bundle entry is its own root).
    const result = invariants.evaluate(c, value, { resource: host.resource, rootResource: host.root, resolve: resolveInResource, conformsTo: conformsToProfile, context: ctx });
    if (result === 'pass' || result === 'skip') continue;
    if (result === 'fail') {
      reportConstraint(ctx, c, run.pos(value), bestPractice);
    } else if (result.tooCostly) {
      // stopped at the item budget: said where it was evaluated, as an error (the rule was not checked)
      run.report('error', 'FHIRPATH_TOO_COSTLY', [c.expression, invariants.itemBudget], ctx.path, run.pos(value));
    } else {
      // A broken invariant is reported once per validation, never as an error: the problem is the
      // profile's, not the data's, and fhirpath.js's grammar is stricter than HL7's in places (HL7
      // parses DEQM's deqm-2, `extension.('…')`, where fhirpath.js cannot), so an error would block
      // every submission over a difference of parsers. One that does not compile carries HL7's own
      // message for it (checkInvariant: expression, profile, path, parser message); one that fails
      // while evaluated has no HL7 counterpart (HL7 counts it as a failed constraint).
      const brokenKey = '\u0000broken\u0000' + c.key + '\u0000' + c.expression;
      if (!run.evaluated.has(brokenKey)) {
        run.evaluated.add(brokenKey);
        if (result.unparsable) run.report('warning', 'Problem_processing_expression__in_profile__path__', [c.expression, ctx.plan.label, ctx.path, result.error], ctx.path, run.pos(value));
        else run.report('warning', 'INVARIANT_BROKEN', [c.key, c.expression, result.error], ctx.path, run.pos(value));
      }
    }
  }
}

/** A failed constraint; a best-practice one at the level the settings give it (HL7's BestPracticeWarningLevel). */
function reportConstraint(ctx: NodeContext, c: ConstraintPlan, at: Position | undefined, bestPractice: BestPracticeLevel): void {
  if (c.bestPractice) ctx.report(bestPractice === 'hint' ? 'information' : bestPractice === 'error' ? 'error' : 'warning', 'INVARIANT_FAILED_BEST_PRACTICE', [c.key, c.human], ctx.path, at);
  else ctx.report(c.severity, 'INVARIANT_FAILED', [c.key, c.human], ctx.path, at);
}
