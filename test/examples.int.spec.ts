/**
 * The shipped examples keep the verdicts examples/README.md documents: every file of examples/bundles
 * goes through the validation API's `$validate-and-categorize` on the real engine (the embedded IG
 * packages, as the service loads them) with the default categories in PostgreSQL.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { documentedExamples, EXAMPLES_DIR } from '#scripts/demo/synthetic-submissions.js';
import { embeddedPackagesDirectory } from '#validation/adapters/artifacts/embedded-packages.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { buildTestApi, type TestApi } from '../services/validation/test/api/support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from '../services/validation/test/api/support/database.js';
import { folderArtifacts } from '../services/validation/test/flow/support/flow-harness.js';

const bundles = path.join(EXAMPLES_DIR, 'bundles');

/** What makes each invalid example invalid: an unacceptable issue matching each pattern. */
const INVALID_BECAUSE: Record<string, RegExp[]> = {
  'invalid-codes.json': [/'M'.*AdministrativeGender/, /'discharged'.*EncounterStatus/],
  'invalid-missing-identifier.json': [/Patient\.identifier/, /Encounter\.identifier/],
  'invalid-unknown-profile.json': [/cross-measure-patient-v9/],
};

describe('examples: the shipped submissions keep their documented verdicts', function () {
  this.timeout(240_000);
  const dbName = uniqueDbName('examples');
  const verdicts = new Map(documentedExamples().map((e) => [e.file, e.valid]));
  let db: Database;
  let engine: EngineHost;
  let api: TestApi;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    engine = new EngineHost({ artifacts: folderArtifacts(embeddedPackagesDirectory()!), workers: 1, terminology: {}, logger: silentLogger() });
    await engine.start();
    api = buildTestApi(db, { validator: engine });
    await api.module.initializeIfEmpty({ artifactInit: false });
  });
  after(async () => {
    await engine?.close();
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('documents every file of examples/bundles, valid and invalid ones', () => {
    expect([...verdicts.keys()].sort()).to.deep.equal(readdirSync(bundles).filter((f) => f.endsWith('.json')).sort());
    expect([...verdicts.values()]).to.include(true).and.to.include(false);
  });

  for (const { file, valid } of documentedExamples()) {
    it(`${file} is ${valid ? 'valid' : 'invalid'}`, async () => {
      const body = readFileSync(path.join(bundles, file), 'utf8');
      const answer = await request(api.app).post('/api/$validate-and-categorize').type('application/fhir+json').send(body).expect(200);
      const issues = answer.body.issues as { severity: string; message: string; categories: { acceptable: boolean; id: string }[] }[];
      const unacceptable = issues
        .filter((i) => i.categories.some((c) => c.id === 'uncategorized') ? i.severity === 'error' || i.severity === 'fatal' : i.categories.some((c) => !c.acceptable))
        .map((i) => `${i.severity}: ${i.message}`);
      expect(answer.body.validity.valid, unacceptable.join('\n')).to.equal(valid);
      // An invalid example is invalid for the reason the table gives, not for an accident of its writing.
      if (!valid) for (const reason of INVALID_BECAUSE[file] ?? [/./]) expect(unacceptable.some((m) => reason.test(m)), `${reason} in\n${unacceptable.join('\n')}`).to.equal(true);
      else expect(unacceptable).to.deep.equal([]);
      // The engine looked at every resource: a valid example is not valid because nothing was checked.
      expect(answer.body.issues.length).to.be.greaterThan(0);
    });
  }
});
