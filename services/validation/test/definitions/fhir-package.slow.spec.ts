import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';
import { readFhirPackage } from '#validation/domain/engine/definitions/fhir-package.js';

// The largest shared package read whole (fhir-package.spec.ts has the rest).
describe('FHIR package model', () => {
  it('reads hl7.terminology.r4.tgz under its real name hl7.terminology', async () => {
    const pkg = await readFhirPackage(readFileSync(sharedDir('fhir-packages', 'hl7.terminology.r4.tgz')));
    expect(pkg.name).to.equal('hl7.terminology');
    expect(pkg.version).to.equal('5.3.0');
    expect(pkg.resourceCounts.CodeSystem).to.be.greaterThan(1000);
  });
});
