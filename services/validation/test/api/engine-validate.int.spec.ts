import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { InProcessResourceValidator } from './support/in-process-validator.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

/**
 * The API on the real engine: after both initializations (packages from the shared folder, the
 * bundled categories), a sample NHSN patient Bundle is validated against its profiles and every
 * issue the engine reports has a category.
 */
describe('validation API on the real engine: a sample NHSN Bundle through $validate', () => {
  const dbName = uniqueDbName('eng');
  const packages = sharedDir('fhir-packages');
  const samples = sharedDir('samples', 'nhsn-ach');
  let db: Database;
  let api: TestApi;

  before(async function () {
    this.timeout(120_000);
    db = await openValidationTestDatabase(dbName);
    const { index } = await loadDefinitions({ packages: [packages] });
    const validator = new Validator(index, new LocalTerminology(index));
    api = buildTestApi(db, { validator: new InProcessResourceValidator(() => validator), artifactInitDir: packages });
    await api.module.initializeIfEmpty({ artifactInit: true });
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('categorizes every issue of a sample patient Bundle and gives the verdict', async () => {
    const file = readdirSync(samples).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json').sort()[0]!;
    const bundle = JSON.parse(readFileSync(join(samples, file), 'utf8'));
    const categorized = await request(api.app).post('/api/$validate?categorize=true').type('application/fhir+json').send(JSON.stringify(bundle)).expect(200);
    expect(categorized.body.length).to.be.greaterThan(10);
    const uncategorized = categorized.body.filter((i: { categories: { id: string }[] }) => i.categories.some((c) => c.id === 'uncategorized'));
    expect(uncategorized.map((i: { message: string }) => i.message)).to.deep.equal([]);
    // The NHSN profiles were applied: the engine reports findings against the NHSN (ach-*) profiles.
    expect(categorized.body.some((i: { message: string }) => /fhirportal\/dqm\/ig\/StructureDefinition\/ach-/.test(i.message))).to.equal(true);

    const composite = await request(api.app).post('/api/$validate-and-categorize').send(bundle).expect(200);
    expect(composite.body.issues).to.have.length(categorized.body.length);
    expect(composite.body.validity.uncategorizedIssueCount).to.equal(0);
    expect(composite.body.validity.valid).to.equal(composite.body.validity.unacceptableIssueCount === 0);
  });
});
