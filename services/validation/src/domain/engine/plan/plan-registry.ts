/**
 * Compiles StructureDefinitions into plans on first use and keeps them, keyed by the
 * canonical asked for (and by url|version), so every resource after the first reuses them.
 */
import type { CanonicalResource, ConformanceResourceSource } from '../../ports/conformance-resources.js';
import { childIndexOf, compileStructurePlan, type ChildIndex, type ElementPlan, type StructurePlan } from './structure-plan.js';

const CORE_SD = 'http://hl7.org/fhir/StructureDefinition/';

export class PlanRegistry {
  private readonly plans = new Map<string, StructurePlan | null>();
  private readonly elementOnly = new Map<string, ChildIndex>();
  private readonly byTypeName = new Map<string, StructurePlan | null>();
  private readonly resourceTypes = new Map<string, boolean>();
  private readonly synthetic = new Map<string, StructurePlan | null | undefined>();

  constructor(private readonly source: ConformanceResourceSource) {}

  /** The plan of a StructureDefinition by canonical (url or url|version); undefined when unknown. */
  plan(canonical: string): StructurePlan | undefined {
    let p = this.plans.get(canonical);
    if (p === undefined) {
      let sd;
      try {
        sd = this.source.structureDefinition(canonical);
      } catch {
        sd = undefined;
      }
      p = sd && sd.resourceType === 'StructureDefinition' ? compileStructurePlan(sd) : null;
      this.plans.set(canonical, p);
    }
    return p ?? undefined;
  }

  /**
   * A definition the engine builds itself (a cross-version extension), compiled once per url:
   * the plan, null when `make` says the url is valid but has nothing to check, undefined when
   * `make` says it is invalid.
   */
  synthesised(url: string, make: () => CanonicalResource | null | undefined): StructurePlan | null | undefined {
    const key = '\u0001synthesised\u0000' + url;
    if (this.synthetic.has(key)) return this.synthetic.get(key);
    const sd = make();
    const p = sd ? compileStructurePlan(sd) : sd;
    this.synthetic.set(key, p);
    return p;
  }

  /** The core definition of a type or resource by name (e.g. "HumanName", "Patient"). */
  typePlan(typeName: string): StructurePlan | undefined {
    let p = this.byTypeName.get(typeName);
    if (p === undefined) {
      p = this.plan(CORE_SD + typeName) ?? null;
      this.byTypeName.set(typeName, p);
    }
    return p ?? undefined;
  }

  /** The children of a type's root (the type definition's own elements). */
  typeChildren(typeName: string): ChildIndex | undefined {
    return this.typePlan(typeName)?.root?.ownChildren;
  }

  /**
   * Children allowed on the `_x` companion of a primitive: only id and extension
   * (the value itself lives in `x`).
   */
  primitiveCompanionChildren(typeName: string): ChildIndex | undefined {
    let idx = this.elementOnly.get(typeName);
    if (!idx) {
      const children = this.typeChildren(typeName) ?? this.typeChildren('Element');
      if (!children) return undefined;
      idx = childIndexOf(children.list.filter((c: ElementPlan) => c.name === 'id' || c.name === 'extension'));
      this.elementOnly.set(typeName, idx);
    }
    return idx;
  }

  isResourceType(name: string): boolean {
    let r = this.resourceTypes.get(name);
    if (r === undefined) {
      const p = this.typePlan(name);
      r = !!p && p.kind === 'resource' && p.derivation !== 'constraint';
      this.resourceTypes.set(name, r);
    }
    return r;
  }
}
