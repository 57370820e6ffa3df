/** SearchParameter: its expression must use its bases; one derived from another must keep the other's bases. */
import type { NodeContext } from '../context/node-context.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class SearchParameterValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['SearchParameter'];

  validate(ctx: NodeContext, sp: Record<string, unknown>): void {
    const bases = Array.isArray(sp.base) ? (sp.base as unknown[]).filter((b): b is string => typeof b === 'string') : [];
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
    if (typeof sp.derivedFrom !== 'string') return;
    const parent = ctx.services.resolveCanonical('SearchParameter', sp.derivedFrom);
    if (!parent) return;
    const parentBases = Array.isArray(parent.base) ? parent.base : [];
    for (const b of bases) {
      if (!parentBases.includes(b)) ctx.error('SEARCH_BASE_NOT_IN_PARENT', [b, sp.derivedFrom], ctx.path, ctx.pos(sp));
    }
  }
}
