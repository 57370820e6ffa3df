import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import {
  EMBEDDED_MANIFEST_FILE, EMBEDDED_PACKAGES_PATH, EmbeddedPackageSource, embeddedPackagesDirectory, readEmbeddedManifest,
} from '#validation/adapters/artifacts/embedded-packages.js';
import { InitialArtifactSourceError } from '#validation/domain/ports/artifact-repository.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const folder = path.join(root, EMBEDDED_PACKAGES_PATH);

describe('validation: embedded IG packages', () => {
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
