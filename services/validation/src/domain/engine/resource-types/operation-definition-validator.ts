/**
 * OperationDefinition (the HL7 validator's OperationDefinitionValidator): its inputProfile and
 * outputProfile must be known Parameters profiles that agree with its parameters: each named
 * parameter slice has a parameter and each parameter a slice (warnings), with the same
 * cardinality, types and target profiles.
 */
import type { NodeContext } from '../context/node-context.js';
import type { MessageId } from '../messages.js';
import type { ElementPlan } from '../plan/structure-plan.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class OperationDefinitionValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['OperationDefinition'];

  validate(ctx: NodeContext, od: Record<string, unknown>): void {
    const node = ctx.nodeOf(od);
    const params = node.children('parameter');
    for (const [use, key] of [['in', 'inputProfile'], ['out', 'outputProfile']] as const) {
      const profile = node.child(key);
      const url = profile?.string;
      if (profile === undefined || url === undefined) continue;
      const sd = ctx.services.source.structureDefinition(url);
      if (!sd) {
        profile.error('OPDEF_PROFILE_NOT_FOUND', [use, url]);
        continue;
      }
      if (sd.type !== 'Parameters') {
        profile.error('OPDEF_PROFILE_NOT_PARAMETERS', [use, url]);
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
        if (!params.some((p) => p.str('use') === use && p.str('name') === name)) profile.warning('OPDEF_PROFILE_NOT_IN_PARAM', [use, name]);
      }
      for (const p of params) {
        const name = p.str('name');
        if (p.str('use') !== use || name === undefined) continue;
        const slice = slices.get(name);
        // the HL7 validator names a parameter under the profile it is compared with (`inputProfile.parameter[1]`)
        const path = profile.path + p.path.slice(node.path.length);
        const at = p.at;
        const report = (severity: 'error' | 'warning', id: MessageId, args: readonly unknown[]) => {
          ctx.report(severity, id, args, path, at);
        };
        if (!slice) {
          report('warning', 'OPDEF_PROFILE_NOT_IN_PROFILE', [use, name]);
          continue;
        }
        const min = p.child('min')?.value;
        const max = p.str('max');
        const sliceMax = slice.max === Infinity ? '*' : String(slice.max);
        if (typeof min === 'number' && min !== slice.min) report('error', 'OPDEF_PROFILE_CARDINALITY', [name, 'min', slice.min, use, plan.label, min]);
        if (max !== undefined && max !== sliceMax) report('error', 'OPDEF_PROFILE_CARDINALITY', [name, 'max', sliceMax, use, plan.label, max]);
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
        const type = p.str('type');
        const opTypes = type === undefined ? [] : [type];
        const opTargets = p.children('targetProfile').flatMap((x) => x.string ?? []);
        if (profileTypes.size > 0) {
          for (const t of profileTypes) if (!opTypes.includes(t)) report('error', 'OPDEF_PROFILE_TYPE_EXTRA', [t, name, use, plan.label]);
          for (const t of opTypes) if (!profileTypes.has(t) && t !== 'Resource') report('error', 'OPDEF_PROFILE_TYPE_MISSING', [t, name, use, plan.label]);
        }
        for (const tp of profileTargets) if (!opTargets.includes(tp)) report('error', 'OPDEF_PROFILE_TARGET_EXTRA', [tp, name, use, plan.label]);
        for (const tp of opTargets) if (!profileTargets.has(tp)) report('error', 'OPDEF_PROFILE_TARGET_MISSING', [tp, name, use, plan.label]);
      }
    }
  }
}
