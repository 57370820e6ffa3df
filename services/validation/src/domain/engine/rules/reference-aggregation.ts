/**
 * A Reference whose definition restricts its aggregation modes (ElementDefinition.type.aggregation:
 * contained, bundled, referenced), as HL7's checkReference checks them:
 *
 * - a reference that resolves must be of a kind the modes allow: `#id` (contained) needs
 *   `contained`; one found in the Bundle (internal) needs `bundled` or `referenced`; one fetched from
 *   outside (external) needs `referenced`. An external one is only fetched, and so only judged, under
 *   a reference policy that checks types (CHECK_TYPE_IF_EXISTS, CHECK_EXISTS_AND_TYPE, CHECK_VALID);
 * - one that resolves neither inside the resource nor in its Bundle (nor through the fetcher) needs
 *   `referenced`: otherwise it should have been there ("Bundled or contained reference not found").
 *   A `#id` that resolves nowhere is already reported as unresolvable and is left alone here.
 *
 * Only for resources inside a Bundle, unless `enforceAggregationOutsideBundles` (HL7's setting of
 * that name, default false): a resource validated on its own has no Bundle its references could be in.
 */
import type { NodeContext } from '../context/node-context.js';
import type { ElementPlan } from '../plan/structure-plan.js';
import type { FetchAnswer } from '../../ports/resource-fetcher.js';
import { fetchOnce } from './references.js';

type Destination = 'contained' | 'internal' | 'external';

/** The aggregation modes of the element's Reference type, or undefined when it does not restrict them. */
export function aggregationModes(el: ElementPlan): readonly string[] | undefined {
  for (const t of el.types) if (t.code === 'Reference') return t.aggregation;
  return undefined;
}

/** The Reference value `v` at ctx, whose element restricts aggregation to `modes`. */
export function checkReferenceAggregation(ctx: NodeContext, v: Record<string, unknown>, modes: readonly string[]): void {
  const ref = v.reference;
  const { host, run } = ctx;
  if (typeof ref !== 'string' || ref === '' || ref.includes('?')) return;
  if (host.bundle === undefined && run.options.enforceAggregationOutsideBundles !== true) return;
  if (ref.startsWith('#')) {
    if (ref === '#' || host.resolveReference(ref) !== undefined) judge(ctx, 'contained', modes);
    return;
  }
  if (host.bundle !== undefined && host.bundle.resolve(ref, host.fullUrl).length > 0) {
    judge(ctx, 'internal', modes);
    return;
  }
  const policy = run.options.referencePolicy;
  const fetches = policy !== 'IGNORE' && !run.silent;
  const conclude = (target: FetchAnswer): void => {
    if (target === undefined) notFound(ctx, ref, modes);
    else if (policy === 'CHECK_TYPE_IF_EXISTS' || policy === 'CHECK_EXISTS_AND_TYPE' || policy === 'CHECK_VALID') judge(ctx, 'external', modes);
  };
  if (!fetches) {
    // silent runs (slice matching) fetch nothing: an external reference is left to the reported run
    if (!run.silent) notFound(ctx, ref, modes);
    return;
  }
  const answer = fetchOnce(run, run.options.fetcher, ref);
  if (answer instanceof Promise) run.pending.push(answer.then(conclude, () => { conclude(undefined); }));
  else conclude(answer);
}

function judge(ctx: NodeContext, destination: Destination, modes: readonly string[]): void {
  const ok = modes.some((m) => (m === 'contained' && destination === 'contained')
    || (m === 'bundled' && destination === 'internal')
    || (m === 'referenced' && destination !== 'contained'));
  if (!ok) ctx.report('error', 'REFERENCE_AGGREGATION', [destination, modes.join(', ')], ctx.path, ctx.at);
}

function notFound(ctx: NodeContext, ref: string, modes: readonly string[]): void {
  if (!modes.includes('referenced')) ctx.report('error', 'REFERENCE_NOT_FOUND_BUNDLE', [ref], ctx.path, ctx.at);
}
