/**
 * FHIR JSON written as FHIR XML, the inverse of the XML reader (located-xml.ts): elements in the
 * order of their definition, primitives as `value` attributes with their `_x` companion's id and
 * extensions, ids and Extension.url as attributes, resources inside Resource-typed elements, the
 * narrative div as its XHTML text. Shaped by the same R4 plans; a property the definitions do not
 * know is left out (XML cannot say where it would go).
 *
 * Used to answer `Accept: application/fhir+xml` (the OperationOutcome) and by tests and the engine
 * benchmark to have the same resource in both formats. Iterative over an explicit stack, so deep
 * resources cannot overflow the call stack.
 */
import type { PlanRegistry } from '../plan/plan-registry.js';
import { PRIMITIVE_TYPES, type ChildIndex, type ElementPlan } from '../plan/structure-plan.js';
import { FHIR_NS } from './located-xml.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Writes `resource` (a FHIR JSON resource) as XML; `indent` pretty-prints with that many spaces. */
export function composeXml(resource: Obj, plans: PlanRegistry, indent = 0): string {
  const out: string[] = [];
  const nl = indent > 0 ? '\n' : '';
  const pad = (depth: number) => (indent > 0 ? ' '.repeat(indent * depth) : '');

  /** Work items: open a resource, write an element, or close a tag. */
  type Item = { kind: 'resource'; value: Obj; name: string; depth: number; ns: boolean }
    | { kind: 'element'; name: string; value: unknown; companion: unknown; el: ElementPlan; type: string | undefined; depth: number }
    | { kind: 'close'; name: string; depth: number };
  const work: Item[] = [{ kind: 'resource', value: resource, name: String(resource.resourceType), depth: 0, ns: true }];

  const childrenOf = (el: ElementPlan, type: string | undefined): ChildIndex | undefined => {
    if (el.ownChildren) return el.ownChildren;
    if (el.contentReference) {
      const ref = el.structure.byId.get(el.contentReference.slice(el.contentReference.indexOf('#') + 1));
      if (ref?.ownChildren) return ref.ownChildren;
    }
    return type ? plans.typeChildren(type) : undefined;
  };

  /** The elements of `obj` against `children`, pushed so they pop in definition order. */
  const pushChildren = (obj: Obj, children: ChildIndex | undefined, depth: number): void => {
    if (!children) return;
    const items: Item[] = [];
    for (const el of children.list) {
      if (el.xmlAttr) continue;
      const names = el.isChoice ? el.types.map((t) => ({ key: el.name + t.code.charAt(0).toUpperCase() + t.code.slice(1), type: t.code })) : [{ key: el.name, type: el.types[0]?.code }];
      for (const { key, type } of names) {
        const value = obj[key];
        const companion = obj['_' + key];
        if (value === undefined && companion === undefined) continue;
        if (Array.isArray(value) || Array.isArray(companion)) {
          const n = Math.max(Array.isArray(value) ? value.length : 0, Array.isArray(companion) ? companion.length : 0);
          for (let i = 0; i < n; i++) {
            items.push({ kind: 'element', name: key, value: Array.isArray(value) ? value[i] : undefined, companion: Array.isArray(companion) ? companion[i] : undefined, el, type, depth });
          }
        } else {
          items.push({ kind: 'element', name: key, value, companion, el, type, depth });
        }
      }
    }
    // last first: the stack gives them back in order
    for (const item of items.reverse()) work.push(item);
  };

  /** Attributes of an object: the elements its definition writes as XML attributes (id, url). */
  const attributes = (obj: Obj, children: ChildIndex | undefined): string => {
    let s = '';
    if (!children) return s;
    for (const el of children.list) {
      if (!el.xmlAttr) continue;
      const v = obj[el.name];
      if (v !== undefined && v !== null && typeof v !== 'object') s += ` ${el.name}="${escapeXml(String(v))}"`;
    }
    return s;
  };

  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if (item.kind === 'close') {
      out.push(`${pad(item.depth)}</${item.name}>${nl}`);
      continue;
    }
    if (item.kind === 'resource') {
      const children = plans.typePlan(item.name)?.root?.ownChildren;
      out.push(`${pad(item.depth)}<${item.name}${item.ns ? ` xmlns="${FHIR_NS}"` : ''}${attributes(item.value, children)}>${nl}`);
      work.push({ kind: 'close', name: item.name, depth: item.depth });
      pushChildren(item.value, children, item.depth + 1);
      continue;
    }
    const { name, value, companion, el, type, depth } = item;
    if (type === 'xhtml') {
      if (typeof value === 'string') out.push(`${pad(depth)}${value}${nl}`);
      continue;
    }
    if (type === 'Resource' || (type !== undefined && type !== 'Element' && type !== 'BackboneElement' && !el.ownChildren && plans.isResourceType(type))) {
      if (!isObj(value) || typeof value.resourceType !== 'string') continue;
      out.push(`${pad(depth)}<${name}>${nl}`);
      work.push({ kind: 'close', name, depth });
      work.push({ kind: 'resource', value, name: value.resourceType, depth: depth + 1, ns: false });
      continue;
    }
    if (type !== undefined && PRIMITIVE_TYPES.has(type)) {
      const c = isObj(companion) ? companion : undefined;
      const id = c && typeof c.id === 'string' ? ` id="${escapeXml(c.id)}"` : '';
      const v = value === undefined || value === null || typeof value === 'object' ? '' : ` value="${escapeXml(String(value))}"`;
      const extensions = c && Array.isArray(c.extension) ? c.extension : undefined;
      if (!extensions?.length) {
        out.push(`${pad(depth)}<${name}${id}${v}/>${nl}`);
        continue;
      }
      out.push(`${pad(depth)}<${name}${id}${v}>${nl}`);
      work.push({ kind: 'close', name, depth });
      pushChildren({ extension: extensions }, plans.primitiveCompanionChildren(type), depth + 1);
      continue;
    }
    if (!isObj(value)) continue;
    const children = childrenOf(el, type);
    out.push(`${pad(depth)}<${name}${attributes(value, children)}>${nl}`);
    work.push({ kind: 'close', name, depth });
    pushChildren(value, children, depth + 1);
  }
  return out.join('');
}

/** Text for an XML attribute value (whitespace other than spaces kept as character references). */
export function escapeXml(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string | undefined;
    if (c === 38) rep = '&amp;';
    else if (c === 60) rep = '&lt;';
    else if (c === 62) rep = '&gt;';
    else if (c === 34) rep = '&quot;';
    else if (c === 10) rep = '&#10;';
    else if (c === 13) rep = '&#13;';
    else if (c === 9) rep = '&#9;';
    if (rep !== undefined) {
      out += s.slice(last, i) + rep;
      last = i + 1;
    }
  }
  return last === 0 ? s : out + s.slice(last);
}
