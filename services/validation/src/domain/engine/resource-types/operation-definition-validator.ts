/**
 * OperationDefinition (the HL7 validator's OperationDefinitionValidator): its inputProfile and
 * outputProfile must be known Parameters profiles that agree with its parameters: each named
 * parameter slice has a parameter and each parameter a slice (warnings), with the same
 * cardinality, types and target profiles.
 */
import type { NodeContext } from '../context/node-context.js';
import { isArray, isObject } from '../json/json-value.js';
import type { ElementPlan } from '../plan/structure-plan.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class OperationDefinitionValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['OperationDefinition'];

  validate(ctx: NodeContext, od: Record<string, unknown>): void {
    const params = Array.isArray(od.parameter) ? od.parameter : [];
    for (const [use, key] of [['in', 'inputProfile'], ['out', 'outputProfile']] as const) {
      const url = od[key];
      if (typeof url !== 'string') continue;
      const at = key;
      const profilePath = `${ctx.path}.${key}`;
      const sd = ctx.services.source.structureDefinition(url);
      if (!sd) {
        ctx.error('OPDEF_PROFILE_NOT_FOUND', [use, url], profilePath, ctx.propPos(od, at));
        continue;
      }
      if (sd.type !== 'Parameters') {
        ctx.error('OPDEF_PROFILE_NOT_PARAMETERS', [use, url], profilePath, ctx.propPos(od, at));
        continue;
      }
      const plan = ctx.services.plans.plan(url);
      const sliced = plan?.byId.get('Parameters.parameter');
      if (!plan || !sliced) continue;
      const slices = new Map<string, ElementPlan>();
      for (const slice of sliced.slices) {
        const nameEl = slice.ownChildren?.byJsonName.get('name')?.element;
        const name = nameEl?.fixed ?? nameEl?.pattern;
        if (typeof name === 'string') slices.set(name, slice);
      }
      for (const name of slices.keys()) {
        if (!params.some((p) => isObject(p) && p.use === use && p.name === name)) ctx.warning('OPDEF_PROFILE_NOT_IN_PARAM', [use, name], profilePath, ctx.propPos(od, at));
      }
      params.forEach((p, i) => {
        if (!isObject(p) || p.use !== use || typeof p.name !== 'string') return;
        const slice = slices.get(p.name);
        const path = `${profilePath}.parameter[${i}]`;
        if (!slice) {
          ctx.warning('OPDEF_PROFILE_NOT_IN_PROFILE', [use, p.name], path, ctx.pos(p));
          return;
        }
        const at = ctx.pos(p);
        const sliceMax = slice.max === Infinity ? '*' : String(slice.max);
        if (typeof p.min === 'number' && p.min !== slice.min) ctx.error('OPDEF_PROFILE_CARDINALITY', [p.name, 'min', slice.min, use, plan.label, p.min], path, at);
        if (typeof p.max === 'string' && p.max !== sliceMax) ctx.error('OPDEF_PROFILE_CARDINALITY', [p.name, 'max', sliceMax, use, plan.label, p.max], path, at);
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
        const opTargets = isArray(p.targetProfile) ? p.targetProfile.filter((x): x is string => typeof x === 'string') : [];
        if (profileTypes.size > 0) {
          for (const t of profileTypes) if (!opTypes.includes(t)) ctx.error('OPDEF_PROFILE_TYPE_EXTRA', [t, p.name, use, plan.label], path, at);
          for (const t of opTypes) if (!profileTypes.has(t) && t !== 'Resource') ctx.error('OPDEF_PROFILE_TYPE_MISSING', [t, p.name, use, plan.label], path, at);
        }
        for (const tp of profileTargets) if (!opTargets.includes(tp)) ctx.error('OPDEF_PROFILE_TARGET_EXTRA', [tp, p.name, use, plan.label], path, at);
        for (const tp of opTargets) if (!profileTargets.has(tp)) ctx.error('OPDEF_PROFILE_TARGET_MISSING', [tp, p.name, use, plan.label], path, at);
      });
    }
  }
}
