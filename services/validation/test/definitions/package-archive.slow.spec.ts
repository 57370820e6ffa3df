import { expect } from 'chai';
import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';
import { readPackageArchive } from '#validation/domain/engine/definitions/package-archive.js';

const packagesDir = sharedDir('fhir-packages');

// Every shared package read whole (package-archive.spec.ts has the tar format and hostile archives).
describe('package archive reader (package.tgz)', () => {
  describe('real IG packages', () => {
    const files = readdirSync(packagesDir).filter((f) => f.endsWith('.tgz'));

    it('finds the nine shared packages', () => {
      expect(files).to.have.length(9);
    });

    for (const file of files) {
      it(`reads ${file}: package.json and only regular files under package/`, async () => {
        const entries = await readPackageArchive(readFileSync(`${packagesDir}/${file}`));
        const manifest = entries.find((e) => e.path === 'package/package.json');
        expect(manifest, 'package/package.json').to.not.equal(undefined);
        expect(JSON.parse(manifest!.data.toString('utf8')).name).to.be.a('string');
        expect(entries.every((e) => e.path.startsWith('package/'))).to.equal(true);
        expect(entries.filter((e) => e.path.endsWith('.json')).length).to.be.greaterThan(5);
      });
    }

    it('reads from a stream as well as from a Buffer, with identical content', async () => {
      const file = `${packagesDir}/hl7.fhir.us.core.tgz`;
      const fromBuffer = await readPackageArchive(readFileSync(file));
      const fromStream = await readPackageArchive(createReadStream(file, { highWaterMark: 4096 }));
      expect(fromStream.map((e) => e.path)).to.deep.equal(fromBuffer.map((e) => e.path));
      const sd = (es: typeof fromBuffer) => es.find((e) => e.path === 'package/StructureDefinition-us-core-patient.json')!.data;
      expect(sd(fromStream).equals(sd(fromBuffer))).to.equal(true);
    });

    it('keeps only the files the keep filter selects', async () => {
      const entries = await readPackageArchive(readFileSync(`${packagesDir}/hl7.fhir.us.core.tgz`), { keep: (p) => !p.startsWith('package/example/') });
      expect(entries.some((e) => e.path.startsWith('package/example/'))).to.equal(false);
      expect(entries.some((e) => e.path === 'package/StructureDefinition-us-core-patient.json')).to.equal(true);
    });
  });
});
