/**
 * FHIR XML over HTTP, on the real engine (R4 core): $validate and $validate-and-categorize read
 * application/fhir+xml (validated as XML: its rules and line numbers), refuse other XML types with
 * 415, answer the OperationOutcome in XML when the caller accepts it, and a RESOURCE artifact can be
 * uploaded as XML (stored as its JSON).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import type { Database } from '#adapters/persistence/database.js';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { parseLocatedXml } from '#validation/domain/engine/xml/located-xml.js';
import { parseResourceText } from '#validation/domain/engine/xml/resource-text.js';
import type { FhirXmlReader } from '#validation/domain/ports/fhir-xml-reader.js';
import { coreSource } from '../engine/support/core-definitions.js';
import { buildTestApi, type TestApi } from './support/app.js';
import { dropValidationTestDatabase, openValidationTestDatabase, uniqueDbName } from './support/database.js';
import { InProcessResourceValidator } from './support/in-process-validator.js';
import { packageEntries, tgz } from '../definitions/support/tar-writer.js';

interface Issue { severity: string; details: { text: string }; expression?: string[]; extension?: { url: string; valueInteger?: number }[] }

const PATIENT_XML = `<?xml version="1.0" encoding="UTF-8"?>
<Patient xmlns="http://hl7.org/fhir">
  <id value="p1"/>
  <gender value="male"/>
  <active value="true"/>
  <unknown value="x"/>
</Patient>`;

describe('validation API: FHIR XML (real engine) @infra', function () {
  this.timeout(120_000);
  const dbName = uniqueDbName('xml');
  let db: Database;
  let api: TestApi;
  let plans: PlanRegistry;

  before(async () => {
    db = await openValidationTestDatabase(dbName);
    const source = await coreSource();
    plans = new PlanRegistry(source);
    const validator = new Validator(source);
    const xmlReader: FhirXmlReader = { readXml: (xml) => parseResourceText(xml, plans) as Record<string, unknown> };
    api = buildTestApi(db, { validator: new InProcessResourceValidator(() => validator), xmlReader });
  });
  after(async () => {
    await db?.close();
    await dropValidationTestDatabase(dbName);
  });

  it('validates application/fhir+xml as XML: its rules, HL7 locations and line numbers', async () => {
    const res = await request(api.app).post('/api/$validate').type('application/fhir+xml').send(PATIENT_XML).expect(200);
    expect(res.headers['content-type']).to.match(/application\/fhir\+json/);
    const issues = JSON.parse(res.text).issue as Issue[];
    const errors = issues.filter((i) => i.severity === 'error');
    expect(errors.map((i) => `${i.expression?.[0]} ${i.details.text}`)).to.have.members([
      "Patient.active As specified by profile http://hl7.org/fhir/StructureDefinition/Patient|4.0.1, Element 'active' is out of order (found after gender)",
      "/f:Patient Undefined element 'unknown' at /f:Patient",
    ]);
    expect(errors.find((i) => i.details.text.startsWith('Undefined'))!.extension?.find((e) => e.url.endsWith('issue-line'))?.valueInteger).to.equal(6);
  });

  it('answers the OperationOutcome in FHIR XML when the caller accepts it', async () => {
    const res = await request(api.app).post('/api/$validate').type('application/fhir+xml').set('Accept', 'application/fhir+xml').send(PATIENT_XML).expect(200);
    expect(res.headers['content-type']).to.match(/application\/fhir\+xml/);
    const outcome = parseLocatedXml(res.text, plans);
    expect(outcome.issues).to.deep.equal([]);
    const issue = (outcome.value as { issue: Issue[] }).issue;
    expect(issue.map((i) => i.details.text)).to.include("Undefined element 'unknown' at /f:Patient");
    // a JSON request may ask for XML too; */* gets JSON
    const json = await request(api.app).post('/api/$validate').set('Accept', '*/*').send({ resourceType: 'Patient', gender: 'male' }).expect(200);
    expect(json.headers['content-type']).to.match(/application\/fhir\+json/);
  });

  it('$validate-and-categorize takes FHIR XML too', async () => {
    const res = await request(api.app).post('/api/$validate-and-categorize').type('application/fhir+xml').send(PATIENT_XML).expect(200);
    expect(res.body.outcome.issue.map((i: Issue) => i.details.text)).to.include("Undefined element 'unknown' at /f:Patient");
    expect(res.body.validity.valid).to.equal(false);
  });

  it('refuses other XML media types with 415 Problem Details, and bad XML is a fatal issue', async () => {
    for (const type of ['application/xml', 'text/xml']) {
      const res = await request(api.app).post('/api/$validate').type(type).send(PATIENT_XML).expect(415);
      expect(res.body).to.include({ status: 415 });
      expect(res.body.detail).to.contain('application/fhir+xml');
    }
    const bad = await request(api.app).post('/api/$validate').type('application/fhir+xml').send('<Patient xmlns="http://hl7.org/fhir">\n<active value="true">\n</Patient>').expect(200);
    const fatal = (JSON.parse(bad.text).issue as Issue[]).filter((i) => i.severity === 'fatal');
    expect(fatal).to.have.length(1);
    expect(fatal[0]!.extension?.find((e) => e.url.endsWith('issue-line'))?.valueInteger).to.equal(3);
  });

  it('stores a RESOURCE artifact uploaded as FHIR XML as its JSON', async () => {
    const xml = '<ValueSet xmlns="http://hl7.org/fhir"><id value="xml-vs"/><url value="http://example.org/fhir/ValueSet/xml-vs"/><status value="active"/>'
      + '<compose><include><system value="http://example.org/cs"/><concept><code value="a"/></concept></include></compose></ValueSet>';
    await request(api.app).put('/api/artifact/RESOURCE/xml-vs').type('application/fhir+xml').send(xml).expect(201);
    const content = await request(api.app).get('/api/artifact/RESOURCE/xml-vs/content').expect(200);
    expect(JSON.parse(content.text)).to.deep.equal({
      resourceType: 'ValueSet', id: 'xml-vs', url: 'http://example.org/fhir/ValueSet/xml-vs', status: 'active',
      compose: { include: [{ system: 'http://example.org/cs', concept: [{ code: 'a' }] }] },
    });
    const bad = await request(api.app).put('/api/artifact/RESOURCE/bad-xml').type('application/fhir+xml').send('<ValueSet xmlns="http://hl7.org/fhir">').expect(400);
    expect(bad.body.detail).to.contain('not a readable FHIR XML resource');
  });

  it('stores a PACKAGE whose members are FHIR XML, reading them as the engine will (details count them)', async () => {
    const valueSet = '<ValueSet xmlns="http://hl7.org/fhir"><id value="pkg-xml-vs"/><url value="http://example.org/fhir/ValueSet/pkg-xml-vs"/><version value="0.1.0"/><status value="active"/></ValueSet>';
    const pkg = tgz(packageEntries({ name: 'example.xml.members', version: '0.1.0', fhirVersions: ['4.0.1'] }, [], [{ name: 'package/ValueSet-pkg-xml-vs.xml', data: valueSet }]));
    await request(api.app).put('/api/artifact/PACKAGE/example.xml.members').type('application/gzip').send(pkg).expect(201);
    const details = await request(api.app).get('/api/artifact/PACKAGE/example.xml.members').expect(200);
    expect(details.body.details.resourceCounts).to.deep.equal({ ValueSet: 1 });
    expect(details.body.details.valueSets.map((v: { url: string }) => v.url)).to.deep.equal(['http://example.org/fhir/ValueSet/pkg-xml-vs']);
  });

  it('initializes RESOURCE artifacts from FHIR XML files of the init folder (stored as JSON; an unreadable one is reported)', async () => {
    const initDir = await mkdtemp(join(tmpdir(), 'valapi-xml-init-'));
    try {
      await writeFile(join(initDir, 'CodeSystem-init-xml.xml'), '<CodeSystem xmlns="http://hl7.org/fhir"><id value="init-xml"/><url value="http://example.org/fhir/CodeSystem/init-xml"/><status value="active"/><content value="not-present"/></CodeSystem>');
      await writeFile(join(initDir, 'CodeSystem-broken.xml'), '<CodeSystem xmlns="http://hl7.org/fhir"><id value="broken"');
      const withInit = buildTestApi(db, { xmlReader: { readXml: (xml) => parseResourceText(xml, plans) as Record<string, unknown> }, artifactInitDir: initDir });
      const report = await request(withInit.app).post('/api/artifact/$initialize').expect(200);
      expect(report.body.stored.map((s: { name: string }) => s.name)).to.deep.equal(['init-xml']);
      expect(report.body.failed.map((f: { file: string; reason: string }) => [f.file, f.reason.slice(0, 42)])).to.deep.equal([['CodeSystem-broken.xml', 'The body is not a readable FHIR XML resour']]);
      const content = await request(api.app).get('/api/artifact/RESOURCE/init-xml/content').expect(200);
      expect(JSON.parse(content.text)).to.deep.equal({ resourceType: 'CodeSystem', id: 'init-xml', url: 'http://example.org/fhir/CodeSystem/init-xml', status: 'active', content: 'not-present' });
    } finally {
      await rm(initDir, { recursive: true, force: true });
    }
  });
});
