import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildEmbeddedManifest } from '#scripts/artifacts/embedded-manifest.js';
import {
  describePackage, EMBEDDED_MANIFEST_FILE, EMBEDDED_PACKAGES_PATH, EmbeddedPackageSource, embeddedPackagesDirectory, readEmbeddedManifest, sha256Hex,
} from '#validation/adapters/artifacts/embedded-packages.js';
import { InitialArtifactSourceError } from '#validation/domain/ports/artifact-repository.js';
import { readFhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const folder = path.join(root, EMBEDDED_PACKAGES_PATH);

/** The nine published IG packages an NHSN deployment needs, as the service must ship them. */
const EXPECTED = [
  'fhir.cqf.common#4.0.1', 'gov.cdc.nhsn.measures#1.0.0-cibuild', 'hl7.fhir.us.core#3.1.1', 'hl7.fhir.us.cqfmeasures#3.0.0',
  'hl7.fhir.us.davinci-deqm#3.1.0', 'hl7.fhir.us.qicore#4.1.1', 'hl7.fhir.uv.cpg#1.0.0', 'hl7.fhir.uv.extensions#1.0.0', 'hl7.terminology#5.3.0',
];

describe('validation: embedded IG packages', () => {
  it('ships the nine NHSN packages, each file exactly as its manifest entry says (hash, size, and name/version/FHIR version read from inside) @slow', async function () {
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

  it('has a manifest the generator would write unchanged (run npx tsx scripts/artifacts/embedded-manifest.ts after changing the folder) @slow', async function () {
    this.timeout(60_000);
    expect(await readEmbeddedManifest(folder)).to.deep.equal(await buildEmbeddedManifest(folder));
  });

  it('is found from the sources and from the compiled dist/ tree, and not elsewhere', () => {
    expect(embeddedPackagesDirectory()).to.equal(folder);
    expect(embeddedPackagesDirectory(path.join(root, 'dist', 'services', 'validation', 'src', 'adapters', 'artifacts'))).to.equal(folder);
    expect(embeddedPackagesDirectory(tmpdir())).to.equal(undefined);
  });

  describe('as the initial artifact source', () => {
    let copy: string;
    before(async () => {
      copy = await mkdtemp(path.join(tmpdir(), 'embedded-packages-'));
      const manifest = await readEmbeddedManifest(folder);
      await writeFile(path.join(copy, EMBEDDED_MANIFEST_FILE), JSON.stringify({ ...manifest, packages: manifest.packages.filter((p) => p.name === 'fhir.cqf.common' || p.name === 'hl7.fhir.us.core') }));
      await copyFile(path.join(folder, 'fhir.cqf.common.tgz'), path.join(copy, 'fhir.cqf.common.tgz'));
      // US Core's file replaced by another package: same name on disk, other bytes.
      await copyFile(path.join(folder, 'hl7.fhir.uv.cpg.tgz'), path.join(copy, 'hl7.fhir.us.core.tgz'));
    });
    after(async () => {
      if (copy) await rm(copy, { recursive: true, force: true });
    });

    it('offers the files of the manifest and refuses one whose bytes differ from its hash', async () => {
      const files = await new EmbeddedPackageSource(copy).list();
      expect(files.map((f) => f.fileName)).to.deep.equal(['fhir.cqf.common.tgz', 'hl7.fhir.us.core.tgz']);
      expect((await files[0]!.read()).length).to.be.greaterThan(1000);
      const refused = await files[1]!.read().then(() => undefined, (error: unknown) => error);
      expect(refused).to.be.instanceOf(InitialArtifactSourceError);
      expect((refused as Error).message).to.match(/hl7\.fhir\.us\.core\.tgz has SHA-256 [0-9a-f]{64}, the manifest says [0-9a-f]{64}/);
    });

    it('says so when there is no folder or no readable manifest', async () => {
      const missing = await new EmbeddedPackageSource(undefined).list().then(() => undefined, (error: unknown) => error);
      expect(missing).to.be.instanceOf(InitialArtifactSourceError);
      const broken = await mkdtemp(path.join(tmpdir(), 'embedded-broken-'));
      try {
        await writeFile(path.join(broken, EMBEDDED_MANIFEST_FILE), '{"packages": [{"file": "../../etc/passwd"}]}');
        const refused = await new EmbeddedPackageSource(broken).list().then(() => undefined, (error: unknown) => error);
        expect(refused).to.be.instanceOf(InitialArtifactSourceError);
      } finally {
        await rm(broken, { recursive: true, force: true });
      }
    });
  });
});
