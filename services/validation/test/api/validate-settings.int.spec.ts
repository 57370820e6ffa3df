/**
 * The HL7 validator's settings through $validate (HTTP, the real engine in this thread, PostgreSQL
 * for categories and validation configurations): each setting as a query parameter changes the
 * outcome as the HL7 validator's setting does (test/engine/support/setting-cases.ts); the same as a
 * parameter of a FHIR `Parameters` body; a validation configuration's settings apply when $validate
 * names the configuration or a facility assigned it (so what an operator tries there is what the
 * flow decides), and the request's own settings win over them; bad input is a 400 naming it.
 */
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { openDatabase } from '#adapters/persistence/database.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { PgFacilityScopes } from '#validation/adapters/persistence/pg-facility-scopes.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { InMemoryResourceFetcher } from '#validation/domain/ports/resource-fetcher.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { coreSource } from '../engine/support/core-definitions.js';
import { describe_ } from '../engine/support/helpers.js';
import { hasIssue, SETTING_CASES, SETTINGS_WITHOUT_R4_EFFECT, type SettingCase } from '../engine/support/setting-cases.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { InProcessResourceValidator } from './support/in-process-validator.js';
import { dropValidationTestDatabase, PG, uniqueDbName } from './support/database.js';

describe('validation API: the HL7 validator\'s settings through $validate', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('vset');
  let db: Database;
  let api: TestApi;
  let scopes: PgFacilityScopes;
  const throughHttp = SETTING_CASES.filter((c) => !c.notThroughHttp);

  before(async () => {
    db = await openDatabase({
      ...PG, dbName, poolMax: 6, logger: silentLogger(),
      entities: [...validationApiEntities, ...validationFlowEntities], migrations: [...validationApiMigrations, ...validationFlowMigrations],
    });
    scopes = new PgFacilityScopes(db.orm, 0);
    // one engine for all cases: their supporting resources have distinct urls and ids; they are also what the fetcher resolves
    const supporting = throughHttp.flatMap((c) => c.supporting ?? []) as CanonicalResource[];
    const source = new LayeredConformanceSource(supporting, await coreSource());
    const validator = new Validator(source, new LocalTerminology(source), { fetcher: new InMemoryResourceFetcher(supporting) });
    api = buildTestApi(db, { validator: new InProcessResourceValidator(() => validator), configurations: scopes });
    await api.module.categories.initialize();
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  const validate = async (body: unknown, query: Record<string, string | readonly string[]> = {}): Promise<ValidationOutcome> => {
    // a resource given as text (JSON with comments) is sent as it is
    const res = await request(api.app).post('/api/$validate').query(query).type('application/fhir+json').send(typeof body === 'string' ? body : JSON.stringify(body)).expect(200);
    return JSON.parse(res.text) as ValidationOutcome;
  };
  const expectChange = (c: SettingCase, without: ValidationOutcome, withIt: ValidationOutcome) => {
    const [present, absent] = c.appears === 'with' ? [withIt, without] : [without, withIt];
    expect(hasIssue(present, c), describe_(present)).to.equal(true);
    expect(hasIssue(absent, c), describe_(absent)).to.equal(false);
  };
  /** The setting as a parameter of a Parameters body (lists and rules repeat the parameter). */
  const asParameters = (c: SettingCase, resource: unknown, value = c.value) => {
    const values = Array.isArray(value) ? value : [value];
    const parameter = values.map((v) => typeof v === 'boolean' ? { name: c.setting, valueBoolean: v }
      : typeof v === 'number' ? { name: c.setting, valueInteger: v }
        : typeof v === 'object' && v !== null ? { name: c.setting, valueString: `${(v as { rule: string }).rule}=${(v as { profile: string }).profile}` }
          : { name: c.setting, valueString: String(v) });
    return { resourceType: 'Parameters', parameter: [{ name: 'resource', resource }, ...parameter] };
  };

  for (const c of throughHttp) {
    it(`?${new URLSearchParams(c.query as Record<string, string>).toString()}: ${c.behaviour}`, async () => {
      expectChange(c, await validate(c.resource, c.baseline?.query), await validate(c.resource, c.query));
    });
  }

  it('each setting as a parameter of a Parameters body that carries the resource, as the query parameter does', async () => {
    // (a resource given as text, JSON with comments, cannot be a parameter's value: see the next test)
    for (const c of throughHttp.filter((x) => typeof x.resource !== 'string')) {
      const without = c.baseline ? await validate(asParameters(c, c.resource, c.baseline.value)) : await validate({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource: c.resource }] });
      expectChange(c, without, await validate(asParameters(c, c.resource)));
    }
  });

  it('allowComments (a query parameter) lets a Parameters body with comments be read too; without it, such a body is a 400', async () => {
    const body = '{"resourceType": "Parameters", /* the resource */ "parameter": [{"name": "resource", "resource": {"resourceType": "Patient", "id": "p", "gender": "dragon"}}]}';
    const refused = await request(api.app).post('/api/$validate').type('application/fhir+json').send(body).expect(400);
    expect(refused.body.errors[0].field).to.equal('(body)');
    const res = await request(api.app).post('/api/$validate').query({ allowComments: 'true' }).type('application/fhir+json').send(body).expect(200);
    const outcome = JSON.parse(res.text) as ValidationOutcome;
    // the resource inside was validated (its wrong gender found)
    expect(outcome.issue.some((i) => i.severity === 'error' && i.expression?.[0] === 'Patient.gender'), describe_(outcome)).to.equal(true);
  });

  it('a Parameters without a resource parameter is itself the resource validated', async () => {
    const outcome = await validate({ resourceType: 'Parameters', parameter: [{ name: 'x', valueString: 'y' }] });
    expect(outcome.issue.filter((i) => i.severity === 'error')).to.deep.equal([]);
  });

  it('a validation configuration\'s settings apply when $validate names it or a facility assigned it; the request\'s own settings win', async () => {
    const c = SETTING_CASES.find((x) => x.setting === 'extensionDomains')!;
    await scopes.saveConfiguration({ name: 'trusted-extensions', packages: [], exclusive: false, settings: { extensionDomains: c.value } });
    await scopes.assign('facility-t', 'trusted-extensions');
    const plain = await validate(c.resource);
    expect(hasIssue(plain, c), describe_(plain)).to.equal(true);
    for (const query of [{ configuration: 'trusted-extensions' }, { facility: 'facility-t' }] as Record<string, string>[]) {
      const scoped = await validate(c.resource, query);
      expect(hasIssue(scoped, c), `${JSON.stringify(query)}: ${describe_(scoped)}`).to.equal(false);
    }
    // a facility without a configuration: the engine's defaults
    expect(hasIssue(await validate(c.resource, { facility: 'facility-none' }), c)).to.equal(true);
    // the request's own setting over the configuration's
    const bp = SETTING_CASES.find((x) => x.setting === 'bestPractice')!;
    await scopes.saveConfiguration({ name: 'strict', packages: [], exclusive: false, settings: { bestPractice: 'error' } });
    expect(hasIssue(await validate(bp.resource, { configuration: 'strict' }), bp)).to.equal(true);
    expect(hasIssue(await validate(bp.resource, { configuration: 'strict', bestPractice: 'warning' }), bp)).to.equal(false);
  });

  it('settings without effect on R4 content are accepted and change nothing', async () => {
    const bundle = { resourceType: 'Bundle', id: 'b', type: 'collection', entry: [{ fullUrl: 'http://s.test/Patient/p', resource: { resourceType: 'Patient', id: 'p' } }] };
    for (const s of SETTINGS_WITHOUT_R4_EFFECT) expect(await validate(bundle, s.query)).to.deep.equal(await validate(bundle));
  });

  it('refuses a bad setting, an unknown parameter or configuration with a Problem Details naming it', async () => {
    const patient = { resourceType: 'Patient', id: 'p' };
    const bad = await request(api.app).post('/api/$validate?bestPractice=loud').send(patient).expect(400);
    expect(bad.headers['content-type']).to.match(/application\/problem\+json/);
    expect(bad.body.errors).to.deep.equal([{ field: 'bestPractice', message: 'one of ignore, hint, warning, error' }]);
    expect(bad.body.traceId).to.be.a('string');
    const unknown = await request(api.app).post('/api/$validate').send({ resourceType: 'Parameters', parameter: [{ name: 'resource', resource: patient }, { name: 'bogus', valueString: 'x' }] }).expect(400);
    expect(unknown.body.errors[0].field).to.equal('parameter[1]');
    const both = await request(api.app).post('/api/$validate?facility=a&configuration=b').send(patient).expect(400);
    expect(both.body.errors[0].field).to.equal('configuration');
    const missing = await request(api.app).post('/api/$validate?configuration=nope').send(patient).expect(404);
    expect(missing.body.detail).to.equal('Validation configuration nope does not exist');
    const refused = await scopes.saveConfiguration({ name: 'x', packages: [], settings: { referencePolicy: 'SOMETIMES' } }).catch((e: unknown) => e);
    expect(refused).to.have.property('field', 'settings.referencePolicy');
  });
});
