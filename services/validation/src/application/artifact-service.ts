/**
 * Artifacts: upload (checked before anything is stored), listing, content, deletion, package
 * details, terminology dependencies and the initialization from the initial sources (the packages
 * embedded in the service and/or `artifact.init-dir`, as the composition root decides).
 */
import {
  artifactNameProblem, ArtifactRejectedError, inspectResourceArtifact, parseArtifactType,
  type Artifact, type ArtifactSummary, type ArtifactType,
} from '../domain/artifacts/artifact.js';
import {
  InitialArtifactSourceError,
  type ArtifactChangeListener, type ArtifactMetadata, type ArtifactRepository, type InitialArtifactFile, type InitialArtifactSource,
} from '../domain/ports/artifact-repository.js';
import {
  summarizePackage, terminologyDependencies,
  type PackageSummary, type TerminologyDependency,
} from '../domain/artifacts/package-summary.js';
import type { PackageInspector } from '../domain/ports/package-inspector.js';
import type { TerminologyKnowledge } from '../domain/ports/terminology-knowledge.js';
import { compareVersions } from '../domain/engine/definitions/versions.js';
import { isObject } from '../domain/engine/json/json-value.js';
import { InvalidInputError, NotFoundError } from '#shared-kernel/domain/errors.js';
import { looksLikeXml } from '../domain/engine/xml/located-xml.js';
import { UnreadableResourceError } from '../domain/engine/xml/resource-text.js';
import type { FhirXmlReader } from '../domain/ports/fhir-xml-reader.js';

export interface PackageDependencyStatus {
  readonly name: string;
  readonly version: string;
  /**
   * present: stored with this version; built-in: the engine has it without artifacts (R4 core);
   * other-version: stored (or built in), but another version; missing: not stored.
   */
  readonly status: 'present' | 'built-in' | 'other-version' | 'missing';
  readonly storedVersion?: string;
}

export interface PackageDetails {
  readonly name: string;
  readonly packageId: string;
  readonly version: string;
  readonly fhirVersion: string;
  readonly resourceCounts: Readonly<Record<string, number>>;
  readonly dependencies: readonly PackageDependencyStatus[];
  readonly profiles: PackageSummary['profiles'];
  readonly valueSets: PackageSummary['valueSets'];
  readonly codeSystems: PackageSummary['codeSystems'];
}

export interface InitializationReport {
  /** `source`: the initial source the file came from (`embedded`, `artifact.init-dir`). */
  readonly stored: readonly { readonly file: string; readonly source: string; readonly type: ArtifactType; readonly name: string; readonly created: boolean }[];
  /** Files (or whole sources, then `file` is the source's name) that could not be loaded. */
  readonly failed: readonly { readonly file: string; readonly source: string; readonly reason: string }[];
}

const NO_KNOWLEDGE: TerminologyKnowledge = { isBuiltIn: () => false };

export class ArtifactService {
  /** In order: a later source's artifact of the same type and name replaces an earlier one's. */
  private readonly initialSources: readonly InitialArtifactSource[];

  constructor(
    private readonly repository: ArtifactRepository,
    private readonly inspector: PackageInspector,
    private readonly listener: ArtifactChangeListener,
    initialSources: InitialArtifactSource | readonly InitialArtifactSource[],
    private readonly knowledge: TerminologyKnowledge = NO_KNOWLEDGE,
    /** Reads RESOURCE artifacts uploaded as FHIR XML (stored as JSON); without it XML is refused. */
    private readonly xml?: FhirXmlReader,
  ) {
    this.initialSources = isSourceList(initialSources) ? initialSources : [initialSources];
  }

  list(): Promise<ArtifactSummary[]> {
    return this.repository.list();
  }

  async get(typeText: string, name: string): Promise<Artifact> {
    const type = this.type(typeText);
    const artifact = await this.repository.get(type, name);
    if (!artifact) throw new NotFoundError(`No ${type} artifact named "${name}"`);
    return artifact;
  }

  /** Checks the content (package readable, or an accepted FHIR resource), then creates or replaces it. */
  async save(typeText: string, name: string, content: Buffer): Promise<{ artifact: ArtifactSummary; created: boolean }> {
    const type = this.type(typeText);
    const nameProblem = artifactNameProblem(name);
    if (nameProblem) throw new InvalidInputError(nameProblem, [{ field: 'name', message: nameProblem }]);
    const stored = type === 'RESOURCE' ? this.asJson(content) : content;
    const metadata = await this.inspect(type, stored);
    const mismatch = nameMismatch(type, name, metadata, stored);
    if (mismatch) throw new InvalidInputError(mismatch, [{ field: 'name', message: mismatch }]);
    const result = await this.repository.save(type, name, stored, metadata);
    await this.listener.artifactsChanged({ kind: 'saved', type, name });
    return result;
  }

  async delete(typeText: string, name: string): Promise<void> {
    const type = this.type(typeText);
    if (!(await this.repository.delete(type, name))) throw new NotFoundError(`No ${type} artifact named "${name}"`);
    await this.listener.artifactsChanged({ kind: 'deleted', type, name });
  }

  async packageDetails(packageId: string): Promise<PackageDetails> {
    const summary = await this.repository.summaryOf('PACKAGE', packageId);
    if (!summary) throw new NotFoundError(`No PACKAGE artifact named "${packageId}"`);
    const stored = (await this.repository.list()).filter((a) => a.type === 'PACKAGE');
    const builtIn = this.inspector.builtInPackages ?? [];
    const dependencies = Object.entries(summary.dependencies).map(([name, version]): PackageDependencyStatus => {
      const candidates = stored.filter((a) => samePackage(a.packageName ?? a.name, name) || a.name === name);
      if (candidates.some((a) => a.version === version)) return { name, version, status: 'present', storedVersion: version };
      const inEngine = builtIn.find((p) => p.name === name);
      if (inEngine?.version === version) return { name, version, status: 'built-in', storedVersion: version };
      const [candidate] = candidates;
      if (candidate) return { name, version, status: 'other-version', storedVersion: candidate.version ?? '' };
      if (inEngine) return { name, version, status: 'other-version', storedVersion: inEngine.version };
      return { name, version, status: 'missing' };
    });
    return {
      name: summary.name, packageId, version: summary.version, fhirVersion: summary.fhirVersion,
      resourceCounts: summary.resourceCounts, dependencies,
      profiles: summary.profiles, valueSets: summary.valueSets, codeSystems: summary.codeSystems,
    };
  }

  /** Value sets bound by the profiles of one package (or of every artifact) and the code systems they use. */
  async terminologyDependencies(packageId?: string): Promise<TerminologyDependency[]> {
    const all = (await this.repository.allSummaries())
      .filter((a): a is typeof a & { summary: PackageSummary } => a.summary !== undefined)
      .map((a) => ({ source: a.type === 'PACKAGE' ? a.name : `${a.type}/${a.name}`, type: a.type, name: a.name, summary: a.summary }));
    let needing = all;
    if (packageId !== undefined) {
      needing = all.filter((a) => a.type === 'PACKAGE' && a.name === packageId);
      if (needing.length === 0) throw new NotFoundError(`No PACKAGE artifact named "${packageId}"`);
    }
    return terminologyDependencies(needing, all, this.knowledge);
  }

  /**
   * Every stored artifact with its content, packages first, one at a time (packages are megabytes):
   * what the engine loads its definitions from at start-up and after `artifactsChanged`.
   */
  async forEachStored(visit: (artifact: Artifact) => Promise<void>): Promise<void> {
    await this.repository.forEachContent('PACKAGE', visit);
    await this.repository.forEachContent('RESOURCE', visit);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.repository.count()) === 0;
  }

  /**
   * Loads every `.tgz` (PACKAGE, named by its package.json name) and `.json` or FHIR `.xml` (RESOURCE, named by its
   * id) file of the initial sources, in order. Idempotent (create or replace). A file or a whole
   * source that cannot be read is reported under `failed`, not fatal. The engine is told ONCE, after
   * everything is stored, so loading nine packages rebuilds it once, not nine times.
   */
  initialize(): Promise<InitializationReport> {
    return this.load(async () => true);
  }

  /**
   * At the start-up of a store that has artifacts already: loads each package of the initial
   * sources (the embedded ones, a new release's) that is NEWER than every stored version of that
   * package, replacing the older one. A package the store does not have is not added (it may have
   * been deleted on purpose), and one stored in the same or a newer version is kept (an operator
   * may have uploaded it). RESOURCE files are left alone: they have no version to compare.
   */
  async upgradePackages(): Promise<InitializationReport> {
    const storedVersions = new Map<string, string[]>();
    for (const artifact of await this.repository.list()) {
      if (artifact.type !== 'PACKAGE') continue;
      const name = artifact.packageName ?? artifact.name;
      storedVersions.set(name, [...(storedVersions.get(name) ?? []), artifact.version ?? '']);
    }
    const newer = (pkg: { name: string; version: string }) => {
      const stored = storedVersions.get(pkg.name);
      return stored !== undefined && stored.every((version) => compareVersions(pkg.version, version) > 0);
    };
    return this.load(async (type, file, metadata) => {
      if (type !== 'PACKAGE') return false;
      if (file.package && !newer(file.package)) return false; // known from the source's manifest: the file is not read
      const { packageName, version } = await metadata();
      return packageName !== undefined && newer({ name: packageName, version: version ?? '' });
    });
  }

  /** Stores the files of the initial sources that `wanted` accepts (see initialize). */
  private async load(
    wanted: (type: ArtifactType, file: InitialArtifactFile, metadata: () => Promise<ArtifactMetadata>) => Promise<boolean>,
  ): Promise<InitializationReport> {
    const stored: InitializationReport['stored'][number][] = [];
    const failed: InitializationReport['failed'][number][] = [];
    for (const [index, source] of this.initialSources.entries()) {
      const sourceName = source.name ?? `source ${index + 1}`;
      let files;
      try {
        files = await source.list();
      } catch (error) {
        if (!(error instanceof InitialArtifactSourceError)) throw error;
        failed.push({ file: sourceName, source: sourceName, reason: error.message });
        continue;
      }
      for (const file of files) {
        const lower = file.fileName.toLowerCase();
        const type: ArtifactType | undefined = lower.endsWith('.tgz') ? 'PACKAGE' : lower.endsWith('.json') || lower.endsWith('.xml') ? 'RESOURCE' : undefined;
        if (!type) continue;
        try {
          let read: Promise<{ content: Buffer; metadata: ArtifactMetadata }> | undefined;
          // a RESOURCE file in FHIR XML is stored as its JSON, as when uploaded
          const contentAndMetadata = () => (read ??= file.read().then(async (raw) => {
            const content = type === 'RESOURCE' ? this.asJson(raw) : raw;
            return { content, metadata: await this.inspect(type, content) };
          }));
          if (!(await wanted(type, file, async () => (await contentAndMetadata()).metadata))) continue;
          const { content, metadata } = await contentAndMetadata();
          const name = (type === 'PACKAGE' ? metadata.packageName : nameFromResource(content)) ?? baseName(file.fileName);
          // A package or resource id that is no valid artifact name falls back to the file name.
          const checked = artifactNameProblem(name) ? baseName(file.fileName) : name;
          const { created } = await this.repository.save(type, checked, content, metadata);
          stored.push({ file: file.fileName, source: sourceName, type, name: checked, created });
        } catch (error) {
          if (error instanceof InvalidInputError || error instanceof InitialArtifactSourceError || isFileSystemError(error)) {
            failed.push({ file: file.fileName, source: sourceName, reason: error.message });
          } else {
            throw error;
          }
        }
      }
    }
    if (stored.length > 0) await this.listener.artifactsChanged({ kind: 'initialized' });
    return { stored, failed };
  }

  private type(typeText: string): ArtifactType {
    try {
      return parseArtifactType(typeText);
    } catch (error) {
      if (error instanceof ArtifactRejectedError) throw new InvalidInputError(error.message, [{ field: 'type', message: 'must be RESOURCE or PACKAGE' }]);
      throw error;
    }
  }

  /** A RESOURCE in FHIR XML becomes its JSON (what is stored and read back); JSON stays as sent. */
  private asJson(content: Buffer): Buffer {
    const text = content.toString('utf8');
    if (!looksLikeXml(text)) return content;
    const refuse = (message: string) => new InvalidInputError(message, [{ field: 'body', message }]);
    if (!this.xml) throw refuse('FHIR XML cannot be read here; upload the resource as FHIR JSON');
    try {
      return Buffer.from(JSON.stringify(this.xml.readXml(text)));
    } catch (error) {
      if (error instanceof UnreadableResourceError) throw refuse(`The body is not a readable FHIR XML resource: ${error.message}`);
      throw error;
    }
  }

  /** Refusals are PackageRejectedError and ArtifactRejectedError (InvalidInputErrors naming the field, else the body). */
  private async inspect(type: ArtifactType, content: Buffer): Promise<ArtifactMetadata> {
    if (type === 'PACKAGE') {
      const summary = await this.inspector.inspect(content);
      return { packageName: summary.name, version: summary.version, fhirVersion: summary.fhirVersion, summary };
    }
    const info = inspectResourceArtifact(content);
    const summary = summarizePackage({
      name: info.id ?? info.url ?? info.resourceType, version: info.version ?? '', fhirVersion: info.fhirVersion ?? '',
      dependencies: {}, resourceCounts: { [info.resourceType]: 1 }, resources: [info.resource],
    });
    return {
      resourceType: info.resourceType,
      ...(info.url ? { url: info.url } : {}),
      ...(info.version ? { version: info.version } : {}),
      ...(info.fhirVersion ? { fhirVersion: info.fhirVersion } : {}),
      summary,
    };
  }
}

/**
 * `hl7.terminology.r4` and `hl7.terminology` name the same package: the `.r4`/`.r5` suffix only tells
 * which FHIR version a build targets, and packages in circulation are published under both names.
 */
function samePackage(stored: string, wanted: string): boolean {
  const base = (name: string) => name.replace(/\.r[2-6]b?$/, '');
  return stored === wanted || base(stored) === base(wanted);
}

/** A file that vanished or cannot be opened between listing and reading. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && 'syscall' in error && typeof error.syscall === 'string';
}

function isSourceList(sources: InitialArtifactSource | readonly InitialArtifactSource[]): sources is readonly InitialArtifactSource[] {
  return Array.isArray(sources);
}

/**
 * The specification's artifact names (Artifact type values): a RESOURCE is named by its FHIR
 * resource id, a PACKAGE by its NPM package id. A PACKAGE may also be named `<package id>#<version>`
 * (FHIR's package reference) or `<package id>@<version>` (npm's, needs no escaping in a URL), with
 * its own version: so several versions of one package can be stored side by side, as validation
 * configurations pin them. The problem, or undefined when the name is right.
 */
function nameMismatch(type: ArtifactType, name: string, metadata: ArtifactMetadata, content: Buffer): string | undefined {
  if (type === 'PACKAGE') {
    const packageId = metadata.packageName;
    const version = metadata.version ?? '';
    if (packageId !== undefined && (name === packageId || name === `${packageId}#${version}` || name === `${packageId}@${version}`)) return undefined;
    return `A PACKAGE artifact is named by its package id (or id#version): this package is "${packageId ?? '(no name)'}" version "${version}", the URL names "${name}"`;
  }
  const id = nameFromResource(content);
  if (id === undefined) return `A RESOURCE artifact is named by its resource id, and this ${metadata.resourceType ?? 'resource'} has no id: give it the id "${name}"`;
  return id === name ? undefined : `A RESOURCE artifact is named by its resource id: this ${metadata.resourceType ?? 'resource'} has the id "${id}", the URL names "${name}"`;
}

function nameFromResource(content: Buffer): string | undefined {
  try {
    const parsed: unknown = JSON.parse(content.toString('utf8').replace(/^\uFEFF/, ''));
    const id = isObject(parsed) ? parsed.id : undefined;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

function baseName(fileName: string): string {
  const last = fileName.split(/[\\/]/).pop() ?? fileName;
  return last.replace(/\.(tgz|json)$/i, '');
}
