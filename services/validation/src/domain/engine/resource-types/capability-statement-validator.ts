/** CapabilityStatement: its search parameters must have the type of the SearchParameter they cite. */
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class CapabilityStatementValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['CapabilityStatement'];

  validate(ctx: NodeContext, cs: Record<string, unknown>): void {
    if (!Array.isArray(cs.rest)) return;
    cs.rest.forEach((rest, i) => {
      if (!isObject(rest) || !Array.isArray(rest.resource)) return;
      rest.resource.forEach((r, j) => {
        if (!isObject(r) || !Array.isArray(r.searchParam)) return;
        r.searchParam.forEach((sp, k) => {
          if (!isObject(sp) || typeof sp.definition !== 'string' || typeof sp.type !== 'string') return;
          const def = ctx.services.resolveCanonical('SearchParameter', sp.definition);
          if (def && typeof def.type === 'string' && def.type !== sp.type) {
            const label = def.version ? `${def.url}|${def.version}` : String(def.url);
            ctx.error('CAPABILITY_SEARCH_TYPE', [label, def.type, sp.type], `${ctx.path}.rest[${i}].resource[${j}].searchParam[${k}]`, ctx.pos(sp));
          }
        });
      });
    });
  }
}
