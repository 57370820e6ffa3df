/**
 * Ports around stored artifacts.
 */
import type { Artifact, ArtifactSummary, ArtifactType } from './artifact.js';

export interface ArtifactMetadata {
  readonly packageName?: string;
  readonly version?: string;
  readonly fhirVersion?: string;
  readonly resourceType?: string;
  readonly url?: string;
}

export interface ArtifactRepository {
  list(): Promise<ArtifactSummary[]>;
  get(type: ArtifactType, name: string): Promise<Artifact | undefined>;
  /** Creates or replaces by (type, name); `created` tells which. */
  save(type: ArtifactType, name: string, content: Buffer, metadata: ArtifactMetadata): Promise<{ artifact: ArtifactSummary; created: boolean }>;
  delete(type: ArtifactType, name: string): Promise<boolean>;
  count(): Promise<number>;
  /** The content of every artifact of a type, one at a time (packages are large). */
  forEachContent(type: ArtifactType, visit: (artifact: Artifact) => Promise<void>): Promise<void>;
}

/**
 * Port: told after every change of the stored artifacts, so the engine rebuilds its definitions
 * (in every worker and, through messaging, every instance). Implemented by the composition root.
 */
export interface ArtifactChangeListener {
  artifactsChanged(change: { readonly kind: 'saved' | 'deleted' | 'initialized'; readonly type?: ArtifactType; readonly name?: string }): Promise<void>;
}

/** Files offered by the artifact initialization (`artifact.init-dir`). */
export interface InitialArtifactSource {
  /** `.tgz` files become PACKAGE artifacts, `.json` files RESOURCE artifacts. */
  list(): Promise<readonly { readonly fileName: string; read(): Promise<Buffer> }[]>;
}
