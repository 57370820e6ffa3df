/**
 * SearchParameter (the HL7 validator's SearchParameterValidator): its expression must use its
 * bases; one derived from another must exist, keep the other's bases and type, and have an
 * equivalent expression (a warning); a composite one has two or more components.
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class SearchParameterValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['SearchParameter'];

  validate(ctx: NodeContext, sp: Record<string, unknown>): void {
    const node = ctx.nodeOf(sp);
    const bases = node.children('base').flatMap((b) => b.string ?? []);
    const expression = node.child('expression');
    const text = expression?.string;
    if (expression !== undefined && text !== undefined && bases.length > 0) {
      for (const term of text.split('|')) {
        // linear: anchored, and one whitespace run only (two `\s*` around an optional '(' would split a long run every way)
        const head = /^\(?\s*([A-Z][A-Za-z]*)\b/.exec(term.trimStart())?.[1];
        if (head && !bases.includes(head) && head !== 'Resource' && head !== 'DomainResource' && ctx.services.plans.isResourceType(head)) {
          expression.error('SEARCH_EXPRESSION_TYPE', [text, head, bases.join(', ')]);
          break;
        }
      }
    }
    const derivedFrom = node.str('derivedFrom');
    if (derivedFrom !== undefined && derivedFrom !== '') checkDerivation(ctx, node, derivedFrom, bases);
    // a composite parameter combines two or more components
    if (node.str('type') === 'composite' && node.children('component').length < 2) node.error('SEARCHPARAMETER_MISSING_COMPONENTS', []);
  }
}

/** A SearchParameter derived from another keeps its bases and type, and (a warning) an expression equivalent to its. */
function checkDerivation(ctx: NodeContext, sp: JsonNode, master: string, bases: string[]): void {
  const parent = ctx.services.resolveCanonical('SearchParameter', master);
  if (!parent) {
    sp.warning('SEARCHPARAMETER_NOTFOUND', [master]);
    return;
  }
  // the parent is a loaded definition, read as raw JSON
  const parentBases = Array.isArray(parent.base) ? parent.base : [];
  for (const b of bases) {
    if (!parentBases.includes(b) && !parentBases.includes('Resource')) sp.error('SEARCH_BASE_NOT_IN_PARENT', [b, master]);
  }
  const type = sp.str('type');
  if (type !== undefined && typeof parent.type === 'string' && type !== parent.type) sp.error('SEARCHPARAMETER_TYPE_WRONG', [master, parent.type, type]);
  const expression = sp.str('expression');
  if (expression !== undefined && typeof parent.expression === 'string' && expression !== parent.expression) {
    const isType = (name: string) => ctx.services.plans.isResourceType(name);
    if (canonicalExpression(expression, bases, isType) !== canonicalExpression(parent.expression, bases, isType)) {
      sp.warning('SEARCHPARAMETER_EXP_WRONG', [master, parent.expression, expression]);
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
