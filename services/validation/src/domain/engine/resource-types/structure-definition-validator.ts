/** StructureDefinition: a differential-only profile is checked against its base, as snapshot generation would. */
import { checkDifferential } from '../checks/structure-definition.js';
import type { NodeContext } from '../context/node-context.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class StructureDefinitionValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['StructureDefinition'];

  validate(ctx: NodeContext, sd: Record<string, unknown>): void {
    if (sd.derivation !== 'constraint' || typeof sd.baseDefinition !== 'string') return;
    const snapshot = sd.snapshot as { element?: unknown[] } | undefined;
    if (Array.isArray(snapshot?.element) && snapshot.element.length > 0) return;
    const plans = ctx.services.plans;
    const base = plans.plan(sd.baseDefinition);
    if (!base?.root) return;
    const childNames = (type: string) => plans.typeChildren(type)?.list.map((c) => c.name);
    for (const p of checkDifferential(sd, base, childNames)) ctx.error(p.id, p.args, p.path ? `${ctx.path}.${p.path}` : ctx.path, ctx.pos(sd));
  }
}
