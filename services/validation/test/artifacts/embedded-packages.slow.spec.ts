import { readFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildEmbeddedManifest } from '#scripts/artifacts/embedded-manifest.js';
import {
  describePackage, EMBEDDED_MANIFEST_FILE, EMBEDDED_PACKAGES_PATH, readEmbeddedManifest, sha256Hex,
} from '#validation/adapters/artifacts/embedded-packages.js';
import { readFhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const folder = path.join(root, EMBEDDED_PACKAGES_PATH);

/** The nine published IG packages an NHSN deployment needs, as the service must ship them. */
const EXPECTED = [
  'fhir.cqf.common#4.0.1', 'gov.cdc.nhsn.measures#1.0.0-cibuild', 'hl7.fhir.us.core#3.1.1', 'hl7.fhir.us.cqfmeasures#3.0.0',
  'hl7.fhir.us.davinci-deqm#3.1.0', 'hl7.fhir.us.qicore#4.1.1', 'hl7.fhir.uv.cpg#1.0.0', 'hl7.fhir.uv.extensions#1.0.0', 'hl7.terminology#5.3.0',
];

// Every shipped package read whole (embedded-packages.spec.ts has the rest).
describe('validation: embedded IG packages', () => {
  it('ships the nine NHSN packages, each file exactly as its manifest entry says (hash, size, and name/version/FHIR version read from inside)', async function () {
    this.timeout(60_000);
    const manifest = await readEmbeddedManifest(folder);
    const files = readdirSync(folder).filter((name) => name !== EMBEDDED_MANIFEST_FILE).sort();
    expect(files, 'every file of the folder is in the manifest, and only .tgz packages are there').to.deep.equal(manifest.packages.map((p) => p.file).sort());
    expect(manifest.packages.map((p) => `${p.name}#${p.version}`).sort()).to.deep.equal(EXPECTED);
    for (const entry of manifest.packages) {
      const bytes = await readFile(path.join(folder, entry.file));
      expect(sha256Hex(bytes), `${entry.file} sha256`).to.equal(entry.sha256);
      expect(bytes.length, `${entry.file} size`).to.equal(entry.bytes);
      // Read by the engine's own package reader: what it will load is what the manifest names.
      const loaded = await readFhirPackage(bytes);
      expect({ name: loaded.name, version: loaded.version, fhirVersion: loaded.fhirVersion }, entry.file)
        .to.deep.equal({ name: entry.name, version: entry.version, fhirVersion: entry.fhirVersion });
      expect((await describePackage(bytes)).license, `${entry.file} licence`).to.equal(entry.license);
      expect(['CC0-1.0', 'Apache-2.0'], `${entry.file}: a licence whose text is in artifacts/licenses`).to.include(entry.license);
    }
  });

  it('has a manifest the generator would write unchanged (run npx tsx scripts/artifacts/embedded-manifest.ts after changing the folder)', async function () {
    this.timeout(60_000);
    expect(await readEmbeddedManifest(folder)).to.deep.equal(await buildEmbeddedManifest(folder));
  });
});
