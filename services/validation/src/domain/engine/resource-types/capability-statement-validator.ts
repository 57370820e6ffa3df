/** CapabilityStatement: its search parameters must have the type of the SearchParameter they cite. */
import type { NodeContext } from '../context/node-context.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class CapabilityStatementValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['CapabilityStatement'];

  validate(ctx: NodeContext, cs: Record<string, unknown>): void {
    for (const rest of ctx.nodeOf(cs).objects('rest')) {
      for (const resource of rest.objects('resource')) {
        for (const sp of resource.objects('searchParam')) {
          const definition = sp.str('definition');
          const type = sp.str('type');
          if (definition === undefined || type === undefined) continue;
          const def = ctx.services.resolveCanonical('SearchParameter', definition);
          if (def && typeof def.type === 'string' && def.type !== type) {
            const label = typeof def.version === 'string' ? `${String(def.url)}|${def.version}` : String(def.url);
            sp.error('CAPABILITY_SEARCH_TYPE', [label, def.type, type]);
          }
        }
      }
    }
  }
}
