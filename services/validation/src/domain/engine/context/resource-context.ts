/**
 * The resource being validated, as HL7's ValidationContext holds it: the resource itself, the
 * root resource that contains it (`%rootResource`, where `#id` references resolve), the Bundle
 * it sits in and the entry's fullUrl (where other references resolve), its FHIRPath location
 * and nesting depth. A new one is made for each nested resource, each Bundle entry and each
 * silent slice match; the node contexts of a walk share it.
 */
import type { BundleIndex } from '../checks/references.js';
import { isObject } from '../json/json-value.js';
import type { ValidationRun } from './validation-run.js';

export class ResourceContext {
  /** Index of the Bundle the resource sits in; a Bundle sets its own before its entries are walked. */
  private bundleIndex: BundleIndex | undefined = undefined;
  /** The fullUrl of the Bundle entry being walked (relative references resolve against it). */
  private entryFullUrl: string | undefined = undefined;

  constructor(
    readonly run: ValidationRun,
    /** `%resource`: the resource being validated. */
    readonly resource: Record<string, unknown>,
    /** `%rootResource`: the resource itself, or the one it is contained in. */
    readonly root: Record<string, unknown>,
    /** The resource's FHIRPath location (`Bundle.entry[3].resource.ofType(Encounter).where(id = 'e1')`). */
    readonly path: string,
    /** Nesting depth at which the resource starts. */
    readonly depth: number,
  ) {}

  /** The resource handed to the validator. */
  static forRoot(run: ValidationRun, resource: Record<string, unknown>, path: string): ResourceContext {
    return new ResourceContext(run, resource, resource, path, 0);
  }

  get bundle(): BundleIndex | undefined {
    return this.bundleIndex;
  }

  /** The fullUrl of the Bundle entry being walked (relative references resolve against it). */
  get fullUrl(): string | undefined {
    return this.entryFullUrl;
  }

  /** A Bundle makes its entries resolvable before they are walked (HL7's grouping resource). */
  enterBundle(index: BundleIndex): void {
    this.bundleIndex = index;
  }

  /** The same resource while one Bundle entry is walked: references resolve against its fullUrl. */
  forEntry(fullUrl: string | undefined): ResourceContext {
    return this.inBundleOf(new ResourceContext(this.run, this.resource, this.root, this.path, this.depth), fullUrl);
  }

  /** A resource nested in this one: contained (same root) or a Bundle entry / Parameters value (its own root). */
  forNested(resource: Record<string, unknown>, contained: boolean, path: string, depth: number): ResourceContext {
    return this.inBundleOf(new ResourceContext(this.run, resource, contained ? this.root : resource, path, depth), this.entryFullUrl);
  }

  /** For a silent slice match: another run, and the value as its own resource when the profile is a resource profile. */
  forSlicing(run: ValidationRun, resource: Record<string, unknown> | undefined, path: string, depth: number): ResourceContext {
    return this.inBundleOf(new ResourceContext(run, resource ?? this.resource, resource ?? this.root, path, depth), this.entryFullUrl);
  }

  /** `next` in this context's Bundle, at the entry `fullUrl`. */
  private inBundleOf(next: ResourceContext, fullUrl: string | undefined): ResourceContext {
    next.bundleIndex = this.bundleIndex;
    next.entryFullUrl = fullUrl;
    return next;
  }

  /** A reference's target, when it is inside the resource (contained) or its Bundle. */
  resolveReference(ref: string): unknown {
    if (ref.startsWith('#')) {
      const contained = this.root.contained;
      if (ref === '#') return this.root;
      return Array.isArray(contained) ? contained.find((c) => isObject(c) && c.id === ref.slice(1)) : undefined;
    }
    if (this.bundleIndex) {
      const hits = this.bundleIndex.resolve(ref, this.entryFullUrl);
      if (hits.length === 1) return hits[0]?.resource;
    }
    return undefined;
  }
}
