/**
 * Checks of a differential-only StructureDefinition against its base, as the HL7 validator
 * reports them while generating the snapshot: differential elements that cannot be matched
 * (unknown paths, elements out of order), renamed choices with a type the base does not allow,
 * slicing on the root, bindings on elements that cannot carry codes.
 */
import { isArray, isObject } from '../json/json-value.js';
import type { MessageId } from '../messages.js';
import type { StructurePlan, ElementPlan } from '../plan/structure-plan.js';

export interface SdProblem {
  id: MessageId;
  args: unknown[];
  /** Relative to the StructureDefinition ('' = the resource itself). */
  path: string;
}

const CODED = new Set(['code', 'Coding', 'CodeableConcept', 'CodeableReference', 'Quantity', 'string', 'uri', 'url', 'canonical']);

/** ElementDefinition.slicing as read here (in the shape the specification gives it). */
interface DiffSlicing {
  ordered?: unknown;
  rules?: unknown;
  discriminator?: { type?: unknown; path?: unknown }[];
}

/**
 * A differential element as read here: the fields the checks branch on (id, path, sliceName) are
 * tested before use; the nested ones are read in the shape the specification gives them.
 */
interface DiffElement {
  id?: unknown;
  path?: unknown;
  sliceName?: unknown;
  slicing?: DiffSlicing;
  type?: { code: string }[];
  binding?: unknown;
}

/** The base element a differential element resolved to, when it is that element itself (not a descendant). */
function sameBaseElement(order: ElementPlan[], idx: number | undefined, path: unknown): ElementPlan | undefined {
  const el = idx === undefined ? undefined : order[idx];
  return el !== undefined && el.path === path ? el : undefined;
}

export function checkDifferential(sd: Record<string, unknown>, base: StructurePlan, childNamesOfType: (type: string) => string[] | undefined): SdProblem[] {
  const problems: SdProblem[] = [];
  const elements = isObject(sd.differential) ? sd.differential.element : undefined;
  const diff = (isArray(elements) ? elements : []) as readonly (DiffElement | null | undefined)[];
  if (diff.length === 0) return problems;
  // base element order: first occurrence of each path (slices share their element's position)
  const order: ElementPlan[] = [];
  const indexOfPath = new Map<string, number>();
  for (const el of base.byId.values()) {
    if (el.sliceName !== undefined || indexOfPath.has(el.path)) continue;
    indexOfPath.set(el.path, order.length);
    order.push(el);
  }
  const rootPath = base.root?.path ?? base.type;
  const baseIndex: (number | undefined)[] = diff.map((ed, i) => {
    const path: string = typeof ed?.path === 'string' ? ed.path : '';
    if (i === 0 && path === rootPath && ed?.slicing) {
      problems.push({ id: 'SD_ROOT_SLICING', args: [], path: `differential.element[${i}]` });
      problems.push({ id: 'SNAPSHOT_ERROR', args: [`Error: The profile has slicing at the root ('${rootPath}'), which is illegal (this usually arises from a problem in the differential)`], path: '' });
    }
    return resolvePath(path, indexOfPath, order, problems);
  });
  // Match as the snapshot generator does: walk the base in order with a cursor over the
  // differential; an element passed over by the cursor is never matched.
  const consumed = new Array<boolean>(diff.length).fill(false);
  let cursor = 0;
  for (const [b, baseEl] of order.entries()) {
    if (cursor >= diff.length) break;
    let j = -1;
    for (let k = cursor; k < diff.length; k++) {
      if (baseIndex[k] === b) {
        j = k;
        break;
      }
    }
    if (j < 0) continue;
    const prefix = baseEl.path;
    consumed[j] = true;
    cursor = j + 1;
    while (cursor < diff.length) {
      // a defined base index means the path is a string (see resolvePath)
      const p = diff[cursor]?.path;
      if (baseIndex[cursor] === undefined || typeof p !== 'string' || !(p === prefix || p.startsWith(prefix + '.'))) break;
      consumed[cursor++] = true;
    }
  }
  const unmatched: unknown[] = [];
  diff.forEach((ed, i) => {
    if (baseIndex[i] === undefined || consumed[i]) return;
    unmatched.push(ed?.id ?? ed?.path);
    problems.push({ id: 'SD_NO_MATCH', args: [ed?.path], path: `differential.element[${i}]` });
  });
  if (unmatched.length) problems.push({ id: 'SD_UNMATCHED_SUMMARY', args: [sd.url, unmatched.length, unmatched.join(', ')], path: '' });
  // a slice may re-slice, but not redefine the slicing of the element it belongs to
  const byId = new Map<string, DiffElement>();
  for (const ed of diff) if (typeof ed?.id === 'string') byId.set(ed.id, ed);
  const describe = (sl: DiffSlicing) => `${sl.ordered === true ? 'ordered' : sl.ordered === false ? 'unordered' : '??'}/${String(sl.rules ?? '??')} [${(sl.discriminator ?? []).map((d) => `${String(d.type)}=${String(d.path)}`).join(', ')}]`;
  const same = (a: DiffSlicing, b: DiffSlicing) => JSON.stringify((a.discriminator ?? []).map((d) => [d.type, d.path])) === JSON.stringify((b.discriminator ?? []).map((d) => [d.type, d.path]));
  for (const ed of diff) {
    if (!ed?.slicing || typeof ed.sliceName !== 'string' || ed.sliceName.includes('/') || typeof ed.id !== 'string') continue;
    const colon = ed.id.lastIndexOf(':');
    const sliced = colon > 0 ? byId.get(ed.id.slice(0, colon)) : undefined;
    if (sliced?.slicing && !same(sliced.slicing, ed.slicing)) {
      problems.push({ id: 'SD_SLICING_REDEFINED', args: [sliced.path, describe(sliced.slicing), ed.id, describe(ed.slicing)], path: '' });
    }
  }
  // discriminator paths must name something inside the sliced element
  diff.forEach((ed, i) => {
    const discriminators = ed?.slicing?.discriminator;
    if (!ed || !Array.isArray(discriminators)) return;
    const baseEl = sameBaseElement(order, baseIndex[i], ed.path);
    const types: string[] = Array.isArray(ed.type) ? ed.type.map((t) => t.code) : baseEl ? baseEl.types.map((t) => t.code) : [];
    const [typeCode] = types;
    if (types.length !== 1 || typeCode === undefined) return;
    // backbone elements have their children in the base; datatypes in the type's definition
    const own = baseEl?.ownChildren;
    const names = own ? own.list.map((c) => c.name) : childNamesOfType(typeCode);
    if (!names) return;
    discriminators.forEach((d, j) => {
      const head = String(d?.path ?? '').split('.')[0] ?? '';
      const first = head.includes('(') ? head.slice(0, head.indexOf('(')) : head;
      if (!first || first.startsWith('$') || first === 'resolve' || first === 'ofType' || first === 'extension') return;
      if (!names.includes(first)) problems.push({ id: 'SD_DISCRIMINATOR_PATH', args: [d.path, ed.path], path: `differential.element[${i}].slicing.discriminator[${j}]` });
    });
  });
  // bindings only make sense on coded types
  diff.forEach((ed, i) => {
    if (!ed || !ed.binding) return;
    const baseEl = sameBaseElement(order, baseIndex[i], ed.path);
    const types: string[] = Array.isArray(ed.type) ? ed.type.map((t) => t.code) : baseEl ? baseEl.types.map((t) => t.code) : [];
    if (types.length > 0 && !types.some((t) => CODED.has(t))) problems.push({ id: 'SD_BINDING_NOT_CODED', args: [types.join(', ')], path: `differential.element[${i}]` });
  });
  return problems;
}

/** The base position of a differential path (deeper paths take their nearest base ancestor's). */
function resolvePath(path: string, indexOfPath: Map<string, number>, order: ElementPlan[], problems: SdProblem[]): number | undefined {
  const direct = indexOfPath.get(path);
  if (direct !== undefined) return direct;
  const segments = path.split('.');
  for (let n = segments.length - 1; n >= 1; n--) {
    const prefix = segments.slice(0, n).join('.');
    const seg = segments[n];
    if (seg === undefined) continue;
    // a renamed choice: valueQuantity for value[x]
    const choice = order.find((e) => e.isChoice && e.path === `${prefix}.${e.name}[x]` && seg.startsWith(e.name) && seg.length > e.name.length);
    if (choice) {
      const type = seg.slice(choice.name.length);
      if (!choice.types.some((t) => t.code.toLowerCase() === type.toLowerCase())) {
        problems.push({ id: 'SNAPSHOT_ERROR', args: [`The path must be '${choice.path}' not '${prefix}.${seg}' when the type list is not constrained (this usually arises from a problem in the differential)`], path: '' });
        return undefined;
      }
      return indexOfPath.get(choice.path);
    }
    const ancestor = indexOfPath.get(prefix);
    if (ancestor !== undefined) return n === segments.length - 1 || (order[ancestor]?.types.length ?? 0) > 0 ? ancestor : undefined;
  }
  return undefined;
}
