/**
 * Checks of a differential-only StructureDefinition against its base, as the HL7 validator
 * reports them while generating the snapshot: differential elements that cannot be matched
 * (unknown paths, elements out of order), renamed choices with a type the base does not allow,
 * slicing on the root, bindings on elements that cannot carry codes.
 */
import type { JsonNode } from '../json/json-node.js';
import type { MessageId } from '../messages.js';
import type { StructurePlan, ElementPlan } from '../plan/structure-plan.js';

export interface SdProblem {
  id: MessageId;
  args: unknown[];
  /** The value the problem is about (undefined: the StructureDefinition itself). */
  where: JsonNode | undefined;
}

const CODED = new Set(['code', 'Coding', 'CodeableConcept', 'CodeableReference', 'Quantity', 'string', 'uri', 'url', 'canonical']);

/** The base element a differential element resolved to, when it is that element itself (not a descendant). */
function sameBaseElement(order: ElementPlan[], idx: number | undefined, path: unknown): ElementPlan | undefined {
  const el = idx === undefined ? undefined : order[idx];
  return el !== undefined && el.path === path ? el : undefined;
}

/** An element's type codes as written (a type without a code stays, as undefined), else its base element's. */
function typeCodes(ed: JsonNode, baseEl: ElementPlan | undefined): (string | undefined)[] {
  if (ed.has('type')) return ed.children('type').map((t) => t.str('code'));
  return baseEl ? baseEl.types.map((t) => t.code) : [];
}

/** ElementDefinition.slicing as the messages word it: `ordered/rules [type=path, ...]`. */
function describeSlicing(sl: JsonNode): string {
  const ordered = sl.object?.ordered;
  const rules = sl.str('rules');
  const discriminators = sl.children('discriminator').map((d) => `${String(d.object?.type)}=${String(d.object?.path)}`);
  return `${ordered === true ? 'ordered' : ordered === false ? 'unordered' : '??'}/${rules ?? '??'} [${discriminators.join(', ')}]`;
}

/** Whether two slicings have the same discriminators (type and path, in order). */
function sameDiscriminators(a: JsonNode, b: JsonNode): boolean {
  const pairs = (sl: JsonNode) => JSON.stringify(sl.children('discriminator').map((d) => [d.object?.type, d.object?.path]));
  return pairs(a) === pairs(b);
}

export function checkDifferential(sd: JsonNode, base: StructurePlan, childNamesOfType: (type: string) => string[] | undefined): SdProblem[] {
  const problems: SdProblem[] = [];
  const diff = sd.child('differential')?.children('element') ?? [];
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
    const path = ed.str('path') ?? '';
    if (i === 0 && path === rootPath && ed.has('slicing')) {
      problems.push({ id: 'SD_ROOT_SLICING', args: [], where: ed });
      problems.push({ id: 'SNAPSHOT_ERROR', args: [`Error: The profile has slicing at the root ('${rootPath}'), which is illegal (this usually arises from a problem in the differential)`], where: undefined });
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
      const p = diff[cursor]?.str('path');
      if (baseIndex[cursor] === undefined || p === undefined || !(p === prefix || p.startsWith(prefix + '.'))) break;
      consumed[cursor++] = true;
    }
  }
  const unmatched: unknown[] = [];
  diff.forEach((ed, i) => {
    if (baseIndex[i] === undefined || consumed[i]) return;
    unmatched.push(ed.object?.id ?? ed.object?.path);
    problems.push({ id: 'SD_NO_MATCH', args: [ed.object?.path], where: ed });
  });
  if (unmatched.length) problems.push({ id: 'SD_UNMATCHED_SUMMARY', args: [sd.object?.url, unmatched.length, unmatched.join(', ')], where: undefined });
  // a slice may re-slice, but not redefine the slicing of the element it belongs to
  const byId = new Map<string, JsonNode>();
  for (const ed of diff) {
    const id = ed.str('id');
    if (id !== undefined) byId.set(id, ed);
  }
  for (const ed of diff) {
    const slicing = ed.child('slicing');
    const sliceName = ed.str('sliceName');
    const id = ed.str('id');
    if (slicing === undefined || !ed.has('slicing') || sliceName === undefined || sliceName.includes('/') || id === undefined) continue;
    const colon = id.lastIndexOf(':');
    const sliced = colon > 0 ? byId.get(id.slice(0, colon)) : undefined;
    const slicedSlicing = sliced?.child('slicing');
    if (sliced !== undefined && slicedSlicing !== undefined && sliced.has('slicing') && !sameDiscriminators(slicedSlicing, slicing)) {
      problems.push({ id: 'SD_SLICING_REDEFINED', args: [sliced.object?.path, describeSlicing(slicedSlicing), id, describeSlicing(slicing)], where: undefined });
    }
  }
  // discriminator paths must name something inside the sliced element
  diff.forEach((ed, i) => {
    const discriminators = ed.child('slicing')?.children('discriminator') ?? [];
    if (discriminators.length === 0) return;
    const edPath = ed.object?.path;
    const baseEl = sameBaseElement(order, baseIndex[i], edPath);
    const types = typeCodes(ed, baseEl);
    const [typeCode] = types;
    if (types.length !== 1 || typeCode === undefined) return;
    // backbone elements have their children in the base; datatypes in the type's definition
    const own = baseEl?.ownChildren;
    const names = own ? own.list.map((c) => c.name) : childNamesOfType(typeCode);
    if (!names) return;
    for (const d of discriminators) {
      const path = d.object?.path;
      const head = (d.str('path') ?? '').split('.')[0] ?? '';
      const first = head.includes('(') ? head.slice(0, head.indexOf('(')) : head;
      if (!first || first.startsWith('$') || first === 'resolve' || first === 'ofType' || first === 'extension') continue;
      if (!names.includes(first)) problems.push({ id: 'SD_DISCRIMINATOR_PATH', args: [path, edPath], where: d });
    }
  });
  // bindings only make sense on coded types
  diff.forEach((ed, i) => {
    if (!ed.has('binding')) return;
    const types = typeCodes(ed, sameBaseElement(order, baseIndex[i], ed.object?.path));
    if (types.length > 0 && !types.some((t) => t !== undefined && CODED.has(t))) problems.push({ id: 'SD_BINDING_NOT_CODED', args: [types.join(', ')], where: ed });
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
        problems.push({ id: 'SNAPSHOT_ERROR', args: [`The path must be '${choice.path}' not '${prefix}.${seg}' when the type list is not constrained (this usually arises from a problem in the differential)`], where: undefined });
        return undefined;
      }
      return indexOfPath.get(choice.path);
    }
    const ancestor = indexOfPath.get(prefix);
    if (ancestor !== undefined) return n === segments.length - 1 || (order[ancestor]?.types.length ?? 0) > 0 ? ancestor : undefined;
  }
  return undefined;
}
