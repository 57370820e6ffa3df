/**
 * Ports around stored artifacts.
 */
import type { Artifact, ArtifactSummary, ArtifactType } from '../artifacts/artifact.js';
import type { PackageSummary } from '../artifacts/package-summary.js';

export interface ArtifactMetadata {
  readonly packageName?: string;
  readonly version?: string;
  readonly fhirVersion?: string;
  readonly resourceType?: string;
  readonly url?: string;
  /** What the content holds (for a RESOURCE: a summary of that one resource), kept so details never re-read it. */
  readonly summary?: PackageSummary;
}

export interface ArtifactRepository {
  list(): Promise<ArtifactSummary[]>;
  get(type: ArtifactType, name: string): Promise<Artifact | undefined>;
  /** Creates or replaces by (type, name); `created` tells which. */
  save(type: ArtifactType, name: string, content: Buffer, metadata: ArtifactMetadata): Promise<{ artifact: ArtifactSummary; created: boolean }>;
  delete(type: ArtifactType, name: string): Promise<boolean>;
  count(): Promise<number>;
  summaryOf(type: ArtifactType, name: string): Promise<PackageSummary | undefined>;
  allSummaries(): Promise<{ type: ArtifactType; name: string; summary: PackageSummary | undefined }[]>;
  /** The content of every artifact of a type, one at a time (packages are large). */
  forEachContent(type: ArtifactType, visit: (artifact: Artifact) => Promise<void>): Promise<void>;
  /**
   * The generation of the stored artifacts: a number that changes with every change of them, so an
   * instance can tell whether its engine was built from what is stored now. Absent for a source that
   * never changes (files).
   */
  generation?(): Promise<number>;
}

/**
 * Port: told after every change of the stored artifacts, so the engine rebuilds its definitions
 * (in every worker and, through messaging, every instance). Implemented by the composition root.
 */
export interface ArtifactChangeListener {
  artifactsChanged(change: { readonly kind: 'saved' | 'deleted' | 'initialized'; readonly type?: ArtifactType; readonly name?: string }): Promise<void>;
}

/** One file offered by an initial artifact source. */
export interface InitialArtifactFile {
  readonly fileName: string;
  /**
   * The package the file holds, when the source knows it without reading the file (the embedded
   * packages' manifest): a start-up that only looks for newer versions then reads no file it skips.
   */
  readonly package?: { readonly name: string; readonly version: string };
  /** Rejects when the file cannot be read or is not what the source promised (reported, not fatal). */
  read(): Promise<Buffer>;
}

/**
 * Files offered by the artifact initialization: the packages embedded in the service and/or the
 * directory `artifact.init-dir`.
 */
export interface InitialArtifactSource {
  /** Says where the files come from in the initialization report (`embedded`, `artifact.init-dir`). */
  readonly name?: string;
  /** `.tgz` files become PACKAGE artifacts, `.json` files RESOURCE artifacts. Rejects with InitialArtifactSourceError when the source itself is unusable. */
  list(): Promise<readonly InitialArtifactFile[]>;
}

/** The source as a whole cannot be read (a configured directory that does not exist, a manifest that does not parse). */
export class InitialArtifactSourceError extends Error {
  override readonly name = 'InitialArtifactSourceError';
}
