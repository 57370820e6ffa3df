/**
 * Per-facility validation scope: two versions of the same IG are stored, two
 * facilities are assigned one each, and each facility's submissions are validated against its own
 * version, in the same engine host (worker pool) at the same time.
 */
import { expect } from 'chai';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import type { Database } from '#adapters/persistence/index.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { createValidationApiModule, type ValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { PgArtifactRepository } from '#validation/adapters/persistence/artifact-repository.js';
import { ValidationFlow } from '#validation/application/validation-flow/index.js';
import { PgFacilityScopes } from '#validation/adapters/persistence/pg-facility-scopes.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { ValidationScopeError } from '#validation/domain/flow/index.js';
import { packageEntries, tgz } from '../definitions/support/tar-writer.js';
import { dropDatabase, openFlowDatabase, uniqueSuffix } from './support/flow-harness.js';
import { InMemorySubmissionSource } from './support/in-memory-submission-source.js';

const PROFILE = 'http://example.org/fhir/StructureDefinition/scoped-patient';
const IG = 'example.scoped.ig';
/** An extension no definition knows: an error unless a configuration's settings allow its domain. */
const UNKNOWN_EXTENSION = 'http://extensions.scoped.test/fhir/StructureDefinition/unknown';

/** A Patient profile of the IG version `version` that makes `element` required. */
function igPackage(version: string, element: string, corePatient: Record<string, unknown>): Buffer {
  const snapshot = structuredClone(corePatient.snapshot) as { element: { path: string; min?: number }[] };
  snapshot.element.find((e) => e.path === element)!.min = 1;
  const profile = {
    resourceType: 'StructureDefinition', id: 'scoped-patient', url: PROFILE, version, name: 'ScopedPatient', status: 'active',
    fhirVersion: '4.0.1', kind: 'resource', abstract: false, type: 'Patient', derivation: 'constraint',
    baseDefinition: 'http://hl7.org/fhir/StructureDefinition/Patient',
    differential: { element: [{ id: element, path: element, min: 1 }] }, snapshot,
  };
  return tgz(packageEntries({ name: IG, version, fhirVersions: ['4.0.1'], dependencies: { 'hl7.fhir.r4.core': '4.0.1' } }, [profile]));
}

describe('validation flow: per-facility validation scope (two versions of one IG in one service)', function () {
  this.timeout(120_000);
  const logger = silentLogger();
  const dbName = `test_flow_scope_${uniqueSuffix()}`;
  let db: Database;
  let engine: EngineHost;
  let api: ValidationApiModule;
  let scopes: PgFacilityScopes;
  let flow: ValidationFlow;
  let submissionResource: Record<string, unknown>;

  before(async () => {
    db = await openFlowDatabase(dbName);
    engine = new EngineHost({ artifacts: new PgArtifactRepository(db.orm), workers: 2, terminology: {}, logger });
    await engine.start();
    scopes = new PgFacilityScopes(db.orm, 0);
    api = createValidationApiModule({
      repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 't', version: '1' }), validator: engine,
      artifactListener: { artifactsChanged: async () => void (await engine.reload()) }, configurations: scopes,
    });
    await api.categories.initialize();
    const corePatient = (await loadDefinitions({})).index.structureDefinition('http://hl7.org/fhir/StructureDefinition/Patient') as Record<string, unknown>;
    await api.artifacts.save('PACKAGE', `${IG}#1.0.0`, igPackage('1.0.0', 'Patient.birthDate', corePatient));
    await api.artifacts.save('PACKAGE', `${IG}@2.0.0`, igPackage('2.0.0', 'Patient.gender', corePatient));
    submissionResource = {
      resourceType: 'MeasureReport', id: 'mr', status: 'complete', type: 'individual', measure: 'http://example.org/Measure/m',
      period: { start: '2026-01-01', end: '2026-01-31' },
      contained: [{ resourceType: 'Patient', id: 'p1', meta: { profile: [PROFILE] }, extension: [{ url: UNKNOWN_EXTENSION, valueString: 'x' }] }],
    };
    const source = new InMemorySubmissionSource().serving(submissionResource);
    flow = new ValidationFlow({
      source, validator: engine, categories: api.categories, scopes, store: new PgFlowStore(db.orm),
      completion: { subject: 'scopetest.compliance.event.validation-complete.v1', schemaVersion: '1.0.0' },
    });
  });
  after(async () => {
    await engine?.close();
    await db?.close();
    await dropDatabase(dbName);
  });

  const messagesFor = async (facilityId: string) => {
    const result = await flow.handle({ schemaVersion: '1.0.0', facilityId, reportTrackingId: 'r1', patientId: 'p1', reportTypes: [] });
    return result.issues.map((i) => i.message);
  };
  const requires = (messages: string[], element: string, version: string) =>
    messages.some((m) => m.startsWith(`${element}: minimum required = 1, but only found 0 (from ${PROFILE}|${version})`));

  it('each facility validates against the IG version of its configuration, concurrently', async () => {
    await scopes.saveConfiguration({ name: 'ig-v1', packages: [{ name: IG, version: '1.0.0' }] });
    await scopes.saveConfiguration({ name: 'ig-v2', packages: [{ name: IG, version: '2.0.0' }] });
    await scopes.assign('fac-a', 'ig-v1');
    await scopes.assign('fac-b', 'ig-v2');

    const [a, b] = await Promise.all([messagesFor('fac-a'), messagesFor('fac-b')]);
    expect(requires(a, 'Patient.birthDate', '1.0.0'), 'facility A: version 1.0.0').to.equal(true);
    expect(requires(a, 'Patient.gender', '2.0.0')).to.equal(false);
    expect(requires(b, 'Patient.gender', '2.0.0'), 'facility B: version 2.0.0').to.equal(true);
    expect(requires(b, 'Patient.birthDate', '1.0.0')).to.equal(false);
  });

  it('a facility without a configuration validates against all artifacts (the latest version wins)', async () => {
    const c = await messagesFor('fac-unassigned');
    expect(requires(c, 'Patient.gender', '2.0.0')).to.equal(true);
  });

  it('an exclusive configuration without the IG hides it; unassigning goes back to all artifacts', async () => {
    await scopes.saveConfiguration({ name: 'core-only', packages: [] });
    await scopes.assign('fac-a', 'core-only');
    const hidden = await messagesFor('fac-a');
    expect(requires(hidden, 'Patient.birthDate', '1.0.0') || requires(hidden, 'Patient.gender', '2.0.0')).to.equal(false);
    await scopes.assign('fac-a', undefined);
    expect(requires(await messagesFor('fac-a'), 'Patient.gender', '2.0.0')).to.equal(true);
  });

  it('a configuration\'s settings reach its facility\'s validation in the workers; $validate with the facility decides as the flow', async () => {
    // in either wording (docs/message-wording.md)
    const unknownExtension = (messages: string[]) => messages.some((m) => m.includes(`${UNKNOWN_EXTENSION} could not be found`) || m.includes(`${UNKNOWN_EXTENSION} is unknown`));
    await scopes.saveConfiguration({ name: 'ig-v1-ext', packages: [{ name: IG, version: '1.0.0' }], settings: { extensionDomains: ['http://extensions.scoped.test/'] } });
    await scopes.assign('fac-ext', 'ig-v1-ext');
    await scopes.assign('fac-a', 'ig-v1');
    const [plain, trusting] = await Promise.all([messagesFor('fac-a'), messagesFor('fac-ext')]);
    expect(unknownExtension(plain), 'without the settings').to.equal(true);
    expect(unknownExtension(trusting), 'with the configuration\'s extension domain').to.equal(false);
    expect(requires(trusting, 'Patient.birthDate', '1.0.0'), 'the packages of the configuration still apply').to.equal(true);
    // what an operator tries on $validate, naming the facility, is what the flow decided
    const patient = (submission: Record<string, unknown>) => (submission.contained as Record<string, unknown>[])[0]!;
    const tried = await api.validation.validate({ ...patient(submissionResource), resourceType: 'Patient' }, { categorize: false, summarize: false }, { query: { facility: 'fac-ext' } });
    const triedMessages = tried.kind === 'outcome' ? tried.outcome.issue.map((i) => i.details.text) : [];
    expect(unknownExtension(triedMessages)).to.equal(false);
    expect(requires(triedMessages, 'Patient.birthDate', '1.0.0')).to.equal(true);
    const untried = await api.validation.validate(patient(submissionResource), { categorize: false, summarize: false }, { query: { facility: 'fac-a' } });
    expect(unknownExtension(untried.kind === 'outcome' ? untried.outcome.issue.map((i) => i.details.text) : [])).to.equal(true);
  });

  it('configurations are checked: the bad field is named', async () => {
    const error = await scopes.saveConfiguration({ name: 'x', packages: [{ name: IG }] }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ValidationScopeError).and.to.have.property('field', 'packages[0]');
    expect((await scopes.listConfigurations()).map((s) => s.name)).to.deep.equal(['core-only', 'ig-v1', 'ig-v1-ext', 'ig-v2']);
  });
});
