/**
 * SearchParameter (the HL7 validator's SearchParameterValidator): its expression must use its
 * bases; one derived from another must exist, keep the other's bases and type, and have an
 * equivalent expression (a warning); a composite one has two or more components.
 */
import type { NodeContext } from '../context/node-context.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { isArray } from '../json/json-value.js';

export class SearchParameterValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['SearchParameter'];

  validate(ctx: NodeContext, sp: Record<string, unknown>): void {
    const bases = isArray(sp.base) ? sp.base.filter((b): b is string => typeof b === 'string') : [];
    if (typeof sp.expression === 'string' && bases.length > 0) {
      for (const term of sp.expression.split('|')) {
        // linear: anchored, and one whitespace run only (two `\s*` around an optional '(' would split a long run every way)
        const head = /^\(?\s*([A-Z][A-Za-z]*)\b/.exec(term.trimStart())?.[1];
        if (head && !bases.includes(head) && head !== 'Resource' && head !== 'DomainResource' && ctx.services.plans.isResourceType(head)) {
          ctx.error('SEARCH_EXPRESSION_TYPE', [sp.expression, head, bases.join(', ')], `${ctx.path}.expression`, ctx.propPos(sp, 'expression'));
          break;
        }
      }
    }
    if (typeof sp.derivedFrom === 'string' && sp.derivedFrom !== '') checkDerivation(ctx, sp, sp.derivedFrom, bases);
    // a composite parameter combines two or more components
    if (sp.type === 'composite' && (!Array.isArray(sp.component) || sp.component.length < 2)) {
      ctx.error('SEARCHPARAMETER_MISSING_COMPONENTS', [], ctx.path, ctx.pos(sp));
    }
  }
}

/** A SearchParameter derived from another keeps its bases and type, and (a warning) an expression equivalent to its. */
function checkDerivation(ctx: NodeContext, sp: Record<string, unknown>, master: string, bases: string[]): void {
  const parent = ctx.services.resolveCanonical('SearchParameter', master);
  if (!parent) {
    ctx.warning('SEARCHPARAMETER_NOTFOUND', [master], ctx.path, ctx.pos(sp));
    return;
  }
  const parentBases = Array.isArray(parent.base) ? parent.base : [];
  for (const b of bases) {
    if (!parentBases.includes(b) && !parentBases.includes('Resource')) ctx.error('SEARCH_BASE_NOT_IN_PARENT', [b, master], ctx.path, ctx.pos(sp));
  }
  if (typeof sp.type === 'string' && typeof parent.type === 'string' && sp.type !== parent.type) {
    ctx.error('SEARCHPARAMETER_TYPE_WRONG', [master, parent.type, sp.type], ctx.path, ctx.pos(sp));
  }
  if (typeof sp.expression === 'string' && typeof parent.expression === 'string' && sp.expression !== parent.expression) {
    const isType = (name: string) => ctx.services.plans.isResourceType(name);
    if (canonicalExpression(sp.expression, bases, isType) !== canonicalExpression(parent.expression, bases, isType)) {
      ctx.warning('SEARCHPARAMETER_EXP_WRONG', [master, parent.expression, sp.expression], ctx.path, ctx.pos(sp));
    }
  }
}

/**
 * An expression that is a union of paths, for comparison: the paths that start at a resource
 * type not among `bases` dropped, the rest sorted. Anything else is compared as written.
 */
function canonicalExpression(expression: string, bases: string[], isResourceType: (name: string) => boolean): string {
  const terms = expression.split('|').map((t) => t.trim());
  const kept: string[] = [];
  for (const term of terms) {
    // linear: anchored, one word run
    const head = /^\(?([A-Za-z]\w*)/.exec(term)?.[1];
    if (head === undefined) return expression;
    if (!isResourceType(head) || bases.includes(head)) kept.push(term);
  }
  return kept.sort().join(' | ');
}
