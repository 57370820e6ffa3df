/**
 * Snapshot generation for StructureDefinitions that carry only a differential.
 * (API published first; the implementation follows.)
 */
import type { CanonicalResource } from '../../conformance-resources.js';

/** An ElementDefinition as JSON (the generator reads and writes only what it needs). */
export type ElementDefinition = Record<string, any> & { id?: string; path: string };

export interface StructureDefinitionSource {
  structureDefinition(canonical: string): CanonicalResource | undefined;
}

export interface SnapshotMessage {
  severity: 'error' | 'warning' | 'information';
  message: string;
  /** The differential element concerned (its id, else its path). */
  element?: string;
}

export interface SnapshotResult {
  /** A shallow copy of the input with `snapshot.element` filled in (the input is not modified). */
  structureDefinition: CanonicalResource;
  elements: ElementDefinition[];
  /** Problems in the differential (element not found, bad slicing ...); never thrown. */
  messages: SnapshotMessage[];
}

export class SnapshotGenerator {
  constructor(private readonly source: StructureDefinitionSource) {}

  /** Generates the snapshot of `sd` from its base's snapshot (generating the base's first when needed). */
  generate(sd: CanonicalResource): SnapshotResult {
    void this.source;
    return { structureDefinition: sd, elements: [], messages: [{ severity: 'error', message: 'snapshot generation not implemented yet' }] };
  }
}
