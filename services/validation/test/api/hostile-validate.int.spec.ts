/**
 * POST /api/$validate on the real engine (R4 core) answers hostile resources at once: a narrative
 * tag with many quoted attributes and no '>', a contained Questionnaire with a catastrophic regex,
 * a loaded profile whose invariant calls matches() with one. These requests used to hold a worker
 * for seconds to forever. The time limit is a hang check, not a speed test.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { InProcessResourceValidator } from './support/in-process-validator.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from '../engine/support/core-definitions.js';
import {
  CATASTROPHIC_VALUE, hostileProfile, narrativeWithManyAttributes, patientForHostileProfile, questionnaireResponseWithRegex,
} from '../engine/support/hostile-resources.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

interface Issue { severity: string; details: { text: string }; expression?: string[] }

describe('validation API: $validate on hostile resources (real engine)', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('hostile');
  let db: Database;
  let api: TestApi;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    const validator = new Validator(await sourceWith([hostileProfile()]));
    api = buildTestApi(db, { validator: new InProcessResourceValidator(() => validator) });
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  const validate = async (resource: unknown): Promise<Issue[]> => {
    const res = await request(api.app).post('/api/$validate').type('application/fhir+json').send(JSON.stringify(resource)).timeout(20_000).expect(200);
    return JSON.parse(res.text).issue as Issue[];
  };
  const texts = (issues: Issue[]) => issues.map((i) => `${i.severity} ${i.expression?.[0] ?? ''} ${i.details.text}`);

  it('a narrative tag with 60 quoted attributes and then "=x": not well formed', async () => {
    expect(texts(await validate(narrativeWithManyAttributes(60)))).to.include('error Patient.text.div Error parsing XHTML: malformed attribute in start tag <p>');
  });

  it('a contained Questionnaire regex (a+)+$ against 40 a and a "!": the format error', async () => {
    const issues = await validate(questionnaireResponseWithRegex());
    expect(texts(issues).some((t) => t.startsWith(`error QuestionnaireResponse.item[0].answer[0].value.ofType(string) The answer '${CATASTROPHIC_VALUE}' does not conform`))).to.equal(true);
  });

  it("a profile's invariant with matches('(a+)+$'): the rule fails", async () => {
    const issues = await validate(patientForHostileProfile());
    expect(texts(issues)).to.include(`error Patient.name[0].family Rule hostile-1: 'family is all a' Failed`);
  });
});
