import type { PackageSummary } from '../artifacts/package-summary.js';

/** Port: reads a package.tgz. Throws PackageRejectedError when it is not a readable FHIR package. */
export interface PackageInspector {
  inspect(content: Buffer): Promise<PackageSummary>;
  /**
   * Packages the engine has without any artifact (FHIR R4 core): a stored package that depends on
   * one of them does not miss it.
   */
  readonly builtInPackages?: readonly { readonly name: string; readonly version: string }[];
}
