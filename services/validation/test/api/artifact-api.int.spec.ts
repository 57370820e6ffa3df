import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import sinon from 'sinon';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { sharedDir } from '#test-support/shared-dir.js';
import type { ArtifactChangeListener } from '#validation/domain/ports/artifact-repository.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';

const PACKAGES = sharedDir('fhir-packages');
const usCore = readFileSync(join(PACKAGES, 'hl7.fhir.us.core.tgz'));
const valueSet = { resourceType: 'ValueSet', id: 'my-vs', url: 'http://example.org/ValueSet/my-vs', version: '1.0.0', status: 'active', compose: { include: [{ system: 'http://loinc.org' }] } };

/** Captures a response body as bytes whatever its content type. */
const asBuffer = (res: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('validation API: artifacts (HTTP)', () => {
  const dbName = uniqueDbName('art');
  let db: Database;
  let api: TestApi;
  let initDir: string;
  const listener = { artifactsChanged: sinon.stub<Parameters<ArtifactChangeListener['artifactsChanged']>, Promise<void>>().resolves() };

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    initDir = await mkdtemp(join(tmpdir(), 'valapi-init-'));
    // Links to two small shared packages, a resource, and a broken file: initialization must report, not fail.
    await symlink(join(PACKAGES, 'hl7.fhir.us.davinci-deqm.tgz'), join(initDir, 'deqm.tgz'));
    await symlink(join(PACKAGES, 'fhir.cqf.common.tgz'), join(initDir, 'cqf.tgz'));
    await writeFile(join(initDir, 'ValueSet-init.json'), JSON.stringify({ ...valueSet, id: 'init-vs' }));
    await writeFile(join(initDir, 'broken.tgz'), Buffer.from('not a tgz'));
    await writeFile(join(initDir, 'notes.txt'), 'ignored');
    api = buildTestApi(db, { artifactListener: listener, artifactInitDir: initDir });
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
    if (initDir) await rm(initDir, { recursive: true, force: true });
  });

  const count = async () => (await request(api.app).get('/api/artifact')).body?.length ?? 0;

  it('lists nothing (204) before any upload; spec lines 101, 409 (search without results: 204): no terminology dependencies either', async () => {
    await request(api.app).get('/api/artifact').expect(204);
    const none = await request(api.app).get('/api/artifact/$terminology-dependencies').expect(204);
    expect(none.text).to.equal('');
  });

  it('spec lines 97-99, 408 (PUT): stores a package (201 + Location, then 202 when replaced) and tells the engine', async () => {
    const created = await request(api.app).put('/api/artifact/PACKAGE/hl7.fhir.us.core').type('application/gzip').send(usCore).expect(201);
    expect(created.headers.location).to.equal('/api/artifact/PACKAGE/hl7.fhir.us.core');
    expect(created.body).to.include({ type: 'PACKAGE', name: 'hl7.fhir.us.core', packageName: 'hl7.fhir.us.core', version: '3.1.1', fhirVersion: '4.0.1', size: usCore.length });
    // Sent as octet-stream this time; the type segment is case-insensitive.
    await request(api.app).put('/api/artifact/package/hl7.fhir.us.core').type('application/octet-stream').send(usCore).expect(202);
    expect(listener.artifactsChanged.callCount).to.equal(2);
    expect(listener.artifactsChanged.firstCall.args[0]).to.deep.equal({ kind: 'saved', type: 'PACKAGE', name: 'hl7.fhir.us.core' });
  });

  it('answers package details and its content', async () => {
    const details = await request(api.app).get('/api/artifact/package/hl7.fhir.us.core').expect(200);
    expect(details.body).to.not.have.property('content');
    expect(details.body.details).to.include({ name: 'hl7.fhir.us.core', version: '3.1.1', fhirVersion: '4.0.1' });
    // R4 core is built into the engine: a package depending on it does not miss it.
    expect(details.body.details.dependencies).to.deep.equal([{ name: 'hl7.fhir.r4.core', version: '4.0.1', status: 'built-in', storedVersion: '4.0.1' }]);
    expect(details.body.details.profiles.map((p: { url: string }) => p.url)).to.include('http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient');
    expect(details.body.details.resourceCounts.StructureDefinition).to.be.greaterThan(0);
    const same = await request(api.app).get('/api/artifact/PACKAGE/hl7.fhir.us.core').expect(200);
    expect(same.body).to.deep.equal(details.body);

    const content = await request(api.app).get('/api/artifact/PACKAGE/hl7.fhir.us.core/content').buffer(true).parse(asBuffer).expect(200);
    expect(content.headers['content-type']).to.match(/application\/gzip/);
    expect(Buffer.compare(content.body as Buffer, usCore)).to.equal(0);
  });

  it('stores an accepted FHIR resource and gives it back as FHIR JSON', async () => {
    await request(api.app).put('/api/artifact/RESOURCE/my-vs').type('application/fhir+json').send(JSON.stringify(valueSet)).expect(201);
    const one = await request(api.app).get('/api/artifact/RESOURCE/my-vs').expect(200);
    expect(one.body).to.include({ type: 'RESOURCE', resourceType: 'ValueSet', url: valueSet.url, version: '1.0.0' });
    const content = await request(api.app).get('/api/artifact/RESOURCE/my-vs/content').expect(200);
    expect(content.headers['content-type']).to.match(/application\/fhir\+json/);
    expect(JSON.parse(content.text)).to.deep.equal(valueSet);
    const naming = { resourceType: 'NamingSystem', id: 'ns', name: 'ns', status: 'active', kind: 'codesystem', date: '2024-01-01', uniqueId: [{ type: 'uri', value: 'http://x' }] };
    await request(api.app).put('/api/artifact/RESOURCE/ns').send(naming).expect(201);
  });

  it('spec lines 142, 312 (deficiency: only CodeSystem, ValueSet and StructureDefinition): ConceptMap, Library and Questionnaire are accepted', async () => {
    const resources = [
      { resourceType: 'ConceptMap', id: 'cm-1', url: 'http://example.org/ConceptMap/cm-1', status: 'active' },
      { resourceType: 'Library', id: 'lib-1', url: 'http://example.org/Library/lib-1', status: 'active', type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/library-type', code: 'logic-library' }] } },
      { resourceType: 'Questionnaire', id: 'q-1', url: 'http://example.org/Questionnaire/q-1', status: 'active', item: [{ linkId: 'a', type: 'boolean', text: 'A?' }] },
    ];
    for (const resource of resources) {
      const stored = await request(api.app).put(`/api/artifact/RESOURCE/${resource.id}`).send(resource).expect(201);
      expect(stored.body).to.include({ type: 'RESOURCE', name: resource.id, resourceType: resource.resourceType, url: resource.url });
    }
  });

  it('spec lines 142, 312 (RESOURCE: name is the FHIR resource id; PACKAGE: name is the NPM package id): another name is refused with 400, storing nothing', async () => {
    const before = await count();
    const resource = await request(api.app).put('/api/artifact/RESOURCE/other-name').send(valueSet).expect(400);
    expect(resource.body.detail).to.equal('A RESOURCE artifact is named by its resource id: this ValueSet has the id "my-vs", the URL names "other-name"');
    expect(resource.body.errors).to.deep.equal([{ field: 'name', message: resource.body.detail }]);
    const { id: _id, ...withoutId } = valueSet;
    expect((await request(api.app).put('/api/artifact/RESOURCE/my-vs').send(withoutId).expect(400)).body.detail).to.match(/has no id/);
    const pkg = await request(api.app).put('/api/artifact/PACKAGE/us-core').type('application/gzip').send(usCore).expect(400);
    expect(pkg.body.detail).to.equal('A PACKAGE artifact is named by its package id (or id#version): this package is "hl7.fhir.us.core" version "3.1.1", the URL names "us-core"');
    await request(api.app).put('/api/artifact/PACKAGE/hl7.fhir.us.core@4.0.0').type('application/gzip').send(usCore).expect(400);
    expect(await count()).to.equal(before);
    // Several versions side by side (validation configurations pin them): id#version or id@version, with the package's own version.
    const pinned = await request(api.app).put(`/api/artifact/PACKAGE/${encodeURIComponent('hl7.fhir.us.core#3.1.1')}`).type('application/gzip').send(usCore).expect(201);
    expect(pinned.body).to.include({ name: 'hl7.fhir.us.core#3.1.1', packageName: 'hl7.fhir.us.core', version: '3.1.1' });
    await request(api.app).delete(`/api/artifact/PACKAGE/${encodeURIComponent('hl7.fhir.us.core#3.1.1')}`).expect(204);
  });

  it('refuses a corrupt package, non-FHIR JSON and unaccepted resources with 400, storing nothing', async () => {
    const before = await count();
    const corrupt = Buffer.concat([gzipSync(Buffer.from('package/package.json')).subarray(0, 12), Buffer.from('garbage that is not deflate')]);
    const refused = await request(api.app).put('/api/artifact/PACKAGE/broken').type('application/gzip').send(corrupt).expect(400);
    expect(refused.body.detail).to.match(/package cannot be read|gzip/);
    await request(api.app).put('/api/artifact/PACKAGE/not-a-package').type('application/gzip').send(gzipSync(Buffer.from('hello'))).expect(400);
    await request(api.app).put('/api/artifact/PACKAGE/json-body').send({ resourceType: 'ValueSet' }).expect(400);
    await request(api.app).put('/api/artifact/RESOURCE/not-fhir').send({ hello: 'world' }).expect(400);
    await request(api.app).put('/api/artifact/RESOURCE/text').type('text/plain').send('not json at all').expect(400);
    const patient = await request(api.app).put('/api/artifact/RESOURCE/p1').send({ resourceType: 'Patient', id: 'p1' }).expect(400);
    expect(patient.body.detail).to.match(/StructureDefinition, ValueSet, CodeSystem, ImplementationGuide, NamingSystem, ConceptMap, Library, Questionnaire/);
    await request(api.app).put('/api/artifact/RESOURCE/bad').type('application/json').send('{"broken": ').expect(400);
    await request(api.app).put('/api/artifact/BINARY/x').send(valueSet).expect(400);
    await request(api.app).put(`/api/artifact/RESOURCE/${'n'.repeat(256)}`).send(valueSet).expect(400);
    expect(await count()).to.equal(before);
    await request(api.app).get('/api/artifact/PACKAGE/broken').expect(404);
  });

  it('answers terminology dependencies of a package and of all artifacts', async () => {
    const ofPackage = await request(api.app).get('/api/artifact/package/hl7.fhir.us.core/terminology-dependencies').expect(200);
    const birthSex = ofPackage.body.find((d: { url: string }) => d.url === 'http://hl7.org/fhir/us/core/ValueSet/birthsex');
    expect(birthSex).to.include({ kind: 'ValueSet', availability: 'local' });
    expect(birthSex.providedBy).to.deep.equal(['hl7.fhir.us.core']);
    expect(ofPackage.body.some((d: { availability: string }) => d.availability === 'missing')).to.equal(true);
    const all = await request(api.app).get('/api/artifact/$terminology-dependencies').expect(200);
    expect(all.body.length).to.be.at.least(ofPackage.body.length);
    await request(api.app).get('/api/artifact/package/unknown/terminology-dependencies').expect(404);
    await request(api.app).get('/api/artifact/package/unknown').expect(404);
  });

  it('initializes from artifact.init-dir under both spellings, idempotently, reporting unreadable files', async () => {
    const first = await request(api.app).post('/api/aritfact/$initialize').expect(200);
    expect(first.body.stored.map((s: { name: string; created: boolean; source: string }) => [s.name, s.created, s.source])).to.deep.equal([
      ['init-vs', true, 'artifact.init-dir'], ['fhir.cqf.common', true, 'artifact.init-dir'], ['hl7.fhir.us.davinci-deqm', true, 'artifact.init-dir'],
    ]);
    expect(first.body.failed.map((f: { file: string }) => f.file)).to.deep.equal(['broken.tgz']);
    const again = await request(api.app).post('/api/artifact/$initialize').expect(200);
    expect(again.body.stored.every((s: { created: boolean }) => !s.created)).to.equal(true);
    const deqm = await request(api.app).get('/api/artifact/package/hl7.fhir.us.davinci-deqm').expect(200);
    const deps = Object.fromEntries(deqm.body.details.dependencies.map((d: { name: string; status: string }) => [d.name, d.status]));
    expect(deps).to.include({ 'hl7.fhir.us.core': 'present', 'hl7.fhir.us.qicore': 'missing', 'hl7.terminology.r4': 'missing' });
  });

  it('hands every stored artifact with its content to the engine, packages first', async () => {
    const seen: string[] = [];
    await api.module.artifacts.forEachStored(async (artifact) => { seen.push(`${artifact.type}/${artifact.name}/${artifact.content.length > 0}`); });
    expect(seen[0]).to.match(/^PACKAGE\//);
    expect(seen).to.include.members(['PACKAGE/hl7.fhir.us.core/true', 'RESOURCE/my-vs/true', 'RESOURCE/init-vs/true']);
  });

  it('deletes an artifact (204, then 404) and tells the engine', async () => {
    listener.artifactsChanged.resetHistory();
    await request(api.app).delete('/api/artifact/RESOURCE/my-vs').expect(204);
    await request(api.app).delete('/api/artifact/RESOURCE/my-vs').expect(404);
    await request(api.app).get('/api/artifact/RESOURCE/my-vs/content').expect(404);
    await request(api.app).get('/api/artifact/RESOURCE/my-vs').expect(404);
    expect(listener.artifactsChanged.calledOnceWith({ kind: 'deleted', type: 'RESOURCE', name: 'my-vs' })).to.equal(true);
  });

  it('loads every shared IG package through the initialization: then no dependency of the NHSN package is missing', async () => {
    const all = buildTestApi(db, { artifactInitDir: PACKAGES });
    const report = await request(all.app).post('/api/artifact/$initialize').expect(200);
    expect(report.body.failed).to.deep.equal([]);
    expect(report.body.stored.map((s: { name: string }) => s.name)).to.include.members(['gov.cdc.nhsn.measures', 'hl7.terminology', 'hl7.fhir.us.qicore']);
    const nhsn = await request(all.app).get('/api/artifact/package/gov.cdc.nhsn.measures').expect(200);
    const statuses = Object.fromEntries(nhsn.body.details.dependencies.map((d: { name: string; status: string }) => [d.name, d.status]));
    expect(statuses).to.deep.equal({
      'hl7.fhir.r4.core': 'built-in', 'hl7.terminology.r4': 'present', 'hl7.fhir.uv.extensions.r4': 'present', 'hl7.fhir.us.core': 'present',
      'fhir.cqf.common': 'present', 'hl7.fhir.us.cqfmeasures': 'present', 'hl7.fhir.us.davinci-deqm': 'present', 'hl7.fhir.us.qicore': 'present',
    });
  });
});
