/**
 * The contract suite: every operation of the specification's operation tables (validation and
 * tenant, read from the specification itself: spec-operations.ts), held THROUGH THE GATEWAY to its
 * route, verb and parameters and to the status codes of the shared API conventions (lines 90-117
 * and Errors): 201 + Location for a POST or create-or-update PUT creating a resource, 202 for a PUT,
 * 204 for an empty search or a DELETE, 200 + the paged model for a search (with X-Pagination through
 * the gateway, page size lowered to 20 and page number raised to 1 where a list has no range of its
 * own), 400 'Invalid Id format' for a non-UUID id where ids are UUIDs, 404 for a missing resource,
 * and every error as Problem Details with a traceId.
 *
 * It runs against the real services (processes, real PostgreSQL and NATS JetStream: support/platform.ts).
 * The route check is closed: a route in a service's OpenAPI document that is neither the binding of
 * an operation, nor an addition with its reason, nor a deprecated alias of a known route
 * (operation-bindings.ts) fails the suite, and so does an operation of the tables without a route.
 * Parameters: the specification's route parameters must be the route's path parameters, and its
 * query parameters must be among the route's (others may add query parameters and media types;
 * the suite checks routes, verbs and statuses, not every parameter).
 *
 * It prints how many operations and status codes it checked.
 */
import { expect } from 'chai';
import type { OpenAPIV3_1 } from 'openapi-types';
import { packageEntries, tgz } from '../../services/validation/test/definitions/support/tar-writer.js';
import { ADDITIONS, BINDINGS, operationKey, type Binding, type Method } from './operation-bindings.js';
import { specOperations } from './spec-operations.js';
import { startPlatform, type Platform } from './support/platform.js';

type Component = 'validation' | 'tenant';
interface Answer { status: number; headers: Headers; text: string; json: unknown }
interface Call { body?: unknown; raw?: Buffer; contentType?: string; query?: Record<string, string> }

const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
const FACILITY = 'contract-fac';
const REPORT = 'contract-rep';
const PACKAGE_ID = 'contract.pkg';

/** A tiny IG package: a ValueSet and a profile binding it (so the package has terminology dependencies). */
const contractPackage = tgz(packageEntries({ name: PACKAGE_ID, version: '1.0.0', fhirVersions: ['4.0.1'], dependencies: { 'hl7.fhir.r4.core': '4.0.1' } }, [
  { resourceType: 'ValueSet', id: 'contract-vs', url: 'http://example.org/ValueSet/contract-vs', status: 'active', compose: { include: [{ system: 'http://example.org/cs' }] } },
  {
    resourceType: 'StructureDefinition', id: 'contract-patient', url: 'http://example.org/StructureDefinition/contract-patient', name: 'ContractPatient', status: 'active',
    kind: 'resource', abstract: false, type: 'Patient', baseDefinition: 'http://hl7.org/fhir/StructureDefinition/Patient', derivation: 'constraint',
    differential: { element: [{ id: 'Patient.gender', path: 'Patient.gender', binding: { strength: 'required', valueSet: 'http://example.org/ValueSet/contract-vs' } }] },
  },
]));
const category = (id: string, extra: Record<string, unknown> = {}) => ({ id, title: `Category ${id}`, severity: 'ERROR', acceptable: false, guidance: 'Contract suite.', ...extra });
/** A submission missing the MeasureReport's required period: at least one error issue is stored. */
const submission = (patientId: string) => ({
  resourceType: 'MeasureReport', id: `mr-${patientId}`, status: 'complete', type: 'individual', measure: 'http://example.org/Measure/m',
  contained: [{ resourceType: 'Patient', id: patientId }],
});

describe('contract suite: the specification\'s operation tables through the gateway, against the real services', function () {
  this.timeout(300_000);
  let platform: Platform;
  let statusChecks = 0;
  const checkedOperations = new Set<string>();
  const operations = specOperations();
  const documents: Partial<Record<Component, OpenAPIV3_1.Document>> = {};

  const url = (component: Component, path: string, query?: Record<string, string>) =>
    `${platform.gateway}/api/${component}${path.slice('/api'.length)}${query ? `?${new URLSearchParams(query)}` : ''}`;

  async function call(method: Method, target: string, options: Call = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    let body: Uint8Array | string | undefined;
    if (options.raw) {
      body = new Uint8Array(options.raw);
      headers['content-type'] = options.contentType ?? 'application/gzip';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    const res = await fetch(target, { method: method.toUpperCase(), headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** One status code of the conventions, through the gateway; counted. */
  async function expectStatus(status: number, method: Method, component: Component, path: string, options: Call = {}): Promise<Answer> {
    const answer = await call(method, url(component, path, options.query), options);
    statusChecks++;
    expect(answer.status, `${method.toUpperCase()} /api/${component}${path.slice(4)}: ${answer.text.slice(0, 300)}`).to.equal(status);
    if (status >= 400) {
      // Errors: Problem Details with a traceId (Error body).
      expect(answer.headers.get('content-type'), `${path} ${status}`).to.match(/application\/problem\+json/);
      const problem = answer.json as Record<string, unknown>;
      expect(problem).to.include({ status });
      for (const field of ['type', 'title', 'detail', 'traceId']) expect(problem[field], `${path} ${status} ${field}`).to.be.a('string').and.not.equal('');
    }
    if (status === 204) expect(answer.text, `${path}: 204 has no body`).to.equal('');
    return answer;
  }

  /** 201 with a Location that leads, through the gateway, to the representation. */
  async function expectCreated(method: Method, component: Component, path: string, options: Call): Promise<Answer> {
    const answer = await expectStatus(201, method, component, path, options);
    const location = answer.headers.get('location');
    expect(location, `${path}: Location`).to.be.a('string').and.match(new RegExp(`^/api/${component}/`));
    const followed = await call('get', `${platform.gateway}${location}`);
    statusChecks++;
    expect(followed.status, `GET ${location}`).to.equal(200);
    return answer;
  }

  /** A search: the paged model (and X-Pagination through the gateway) with records, or 204. */
  async function expectPaged(component: Component, path: string, query: Record<string, string> = {}): Promise<{ records: unknown[]; metadata: Record<string, number> }> {
    const answer = await expectStatus(200, 'get', component, path, { query });
    const paged = answer.json as { records: unknown[]; metadata: Record<string, number> };
    expect(paged.records, path).to.be.an('array').and.have.length.greaterThan(0);
    expect(Object.keys(paged.metadata).sort()).to.deep.equal(['pageNumber', 'pageSize', 'totalCount', 'totalPages']);
    expect(paged.metadata.totalPages).to.equal(Math.ceil(paged.metadata.totalCount! / paged.metadata.pageSize!));
    expect(JSON.parse(answer.headers.get('x-pagination') ?? 'null'), `${path}: X-Pagination`).to.deep.equal(paged.metadata);
    return paged;
  }

  /** The gateway pattern on a list without a range of its own: page size above 20 is 20, page number below 1 is 1. */
  async function expectGatewayPattern(component: Component, path: string, query: Record<string, string> = {}): Promise<void> {
    const paged = await expectPaged(component, path, { ...query, pageSize: '50', pageNumber: '0' });
    expect(paged.metadata, `${path}: the gateway pattern`).to.include({ pageSize: 20, pageNumber: 1 });
  }

  const CHECKS: Readonly<Record<string, () => Promise<void>>> = {
    // ---- validation: categories
    'validation:Get a category': async () => {
      const got = await expectStatus(200, 'get', 'validation', '/api/category/contract_cat');
      expect(Object.keys(got.json as object).sort(), 'Category JSON shape (line 189)').to.deep.equal(['acceptable', 'guidance', 'id', 'matcher', 'severity', 'title']);
      await expectStatus(404, 'get', 'validation', '/api/category/no_such_category');
    },
    'validation:Create or update a category': async () => {
      await expectCreated('put', 'validation', '/api/category/contract_new', { body: category('contract_new', { matcher: { field: 'CODE', regex: 'x' } }) });
      await expectStatus(202, 'put', 'validation', '/api/category/contract_new', { body: category('contract_new', { acceptable: true }) });
      await expectStatus(400, 'put', 'validation', '/api/category/contract_new', { body: category('another_id') });
    },
    'validation:Delete a category': async () => {
      await call('put', url('validation', '/api/category/contract_doomed'), { body: category('contract_doomed') });
      await expectStatus(204, 'delete', 'validation', '/api/category/contract_doomed');
      await expectStatus(404, 'delete', 'validation', '/api/category/contract_doomed');
    },
    'validation:Get the latest rule of a category': async () => {
      await expectStatus(200, 'get', 'validation', '/api/category/contract_cat/rule');
      await expectStatus(404, 'get', 'validation', '/api/category/no_such_category/rule');
    },
    'validation:Create a rule for a category': async () => {
      await expectCreated('post', 'validation', '/api/category/contract_cat/rule', { body: { field: 'MESSAGE', regex: 'period' } });
      await expectStatus(400, 'post', 'validation', '/api/category/contract_cat/rule', { body: { field: 'MESSAGE' } });
      await expectStatus(404, 'post', 'validation', '/api/category/no_such_category/rule', { body: { field: 'MESSAGE', regex: 'x' } });
    },
    'validation:Get all categories': async () => {
      // Link Cloud's list: a bare array (its admin UI reads it so); see docs/api.md, differences.
      expect(await expectStatus(200, 'get', 'validation', '/api/category').then((a) => a.json)).to.be.an('array').and.have.length.greaterThan(0);
    },
    'validation:Get all historical rules of a category': async () => {
      expect((await expectStatus(200, 'get', 'validation', '/api/category/contract_cat/rule/history')).json).to.have.length.greaterThan(1);
      await expectStatus(404, 'get', 'validation', '/api/category/no_such_category/rule/history');
    },
    'validation:Export categories and rules': async () => {
      expect((await expectStatus(200, 'get', 'validation', '/api/category/$export')).json).to.be.an('array');
    },
    'validation:Import categories and rules': async () => {
      await expectStatus(200, 'post', 'validation', '/api/category/$import', { body: [category('contract_imported', { matcher: { field: 'CODE', regex: 'y' } })] });
      await expectStatus(400, 'post', 'validation', '/api/category/$import', { body: [{ id: 'no_matcher' }] });
    },
    'validation:Delete a category rule': async () => {
      const rule = (await call('post', url('validation', '/api/category/contract_cat/rule'), { body: { field: 'MESSAGE', regex: 'doomed' } })).json as { id: number };
      await expectStatus(204, 'delete', 'validation', `/api/category/rule/${rule.id}`);
      await expectStatus(404, 'delete', 'validation', `/api/category/rule/${rule.id}`);
      await expectStatus(400, 'delete', 'validation', '/api/category/rule/not-a-number');
    },
    'validation:Create or update categories from bundled resources': async () => {
      await expectStatus(200, 'post', 'validation', '/api/category/$initialize');
    },
    // ---- validation: artifacts
    'validation:Get an artifact': async () => {
      await expectStatus(200, 'get', 'validation', `/api/artifact/PACKAGE/${PACKAGE_ID}`);
      await expectStatus(404, 'get', 'validation', '/api/artifact/PACKAGE/no.such.package');
      await expectStatus(400, 'get', 'validation', '/api/artifact/BINARY/x');
    },
    'validation:Create or update an artifact': async () => {
      const resource = { resourceType: 'CodeSystem', id: 'contract-cs', url: 'http://example.org/cs', status: 'active', content: 'complete', concept: [{ code: 'a' }] };
      await expectCreated('put', 'validation', '/api/artifact/RESOURCE/contract-cs', { body: resource, contentType: 'application/fhir+json' });
      await expectStatus(202, 'put', 'validation', '/api/artifact/RESOURCE/contract-cs', { body: resource, contentType: 'application/fhir+json' });
      // The name is the resource id (line 142).
      await expectStatus(400, 'put', 'validation', '/api/artifact/RESOURCE/other-name', { body: resource, contentType: 'application/fhir+json' });
    },
    'validation:Delete an artifact': async () => {
      await call('put', url('validation', '/api/artifact/RESOURCE/contract-doomed'), { body: { resourceType: 'ValueSet', id: 'contract-doomed', url: 'http://example.org/ValueSet/doomed', status: 'active' } });
      await expectStatus(204, 'delete', 'validation', '/api/artifact/RESOURCE/contract-doomed');
      await expectStatus(404, 'delete', 'validation', '/api/artifact/RESOURCE/contract-doomed');
    },
    'validation:Get all artifacts': async () => {
      expect((await expectStatus(200, 'get', 'validation', '/api/artifact')).json).to.be.an('array').and.have.length.greaterThan(0);
    },
    'validation:Get the content of an artifact': async () => {
      const content = await expectStatus(200, 'get', 'validation', `/api/artifact/PACKAGE/${PACKAGE_ID}/content`);
      expect(content.headers.get('content-type')).to.match(/application\/gzip/);
      await expectStatus(404, 'get', 'validation', '/api/artifact/PACKAGE/no.such.package/content');
    },
    'validation:Get terminology dependencies of all artifacts': async () => {
      expect((await expectStatus(200, 'get', 'validation', '/api/artifact/$terminology-dependencies')).json).to.be.an('array').and.have.length.greaterThan(0);
    },
    'validation:Get details of a package': async () => {
      expect(((await expectStatus(200, 'get', 'validation', `/api/artifact/package/${PACKAGE_ID}`)).json as { details: { version: string } }).details.version).to.equal('1.0.0');
      await expectStatus(404, 'get', 'validation', '/api/artifact/package/no.such.package');
    },
    'validation:Get terminology dependencies of a package': async () => {
      await expectStatus(200, 'get', 'validation', `/api/artifact/package/${PACKAGE_ID}/terminology-dependencies`);
      await expectStatus(404, 'get', 'validation', '/api/artifact/package/no.such.package/terminology-dependencies');
    },
    'validation:Create or update artifacts from bundled resources': async () => {
      await expectStatus(200, 'post', 'validation', '/api/aritfact/$initialize');
    },
    // ---- validation: processing
    'validation:Validate a FHIR resource': async () => {
      await expectStatus(200, 'post', 'validation', '/api/$validate', { body: { resourceType: 'Patient', id: 'p1', gender: 'nonsense' }, contentType: 'application/fhir+json', query: { categorize: 'true', summarize: 'false' } });
      await expectStatus(400, 'post', 'validation', '/api/$validate', { body: ['not a resource'], contentType: 'application/fhir+json' });
    },
    'validation:Categorize validation results using the latest rules': async () => {
      await expectStatus(200, 'post', 'validation', '/api/$categorize', { body: [{ severity: 'error', code: 'invalid', message: 'MeasureReport.period: minimum required = 1' }], query: { summarize: 'true' } });
      await expectStatus(400, 'post', 'validation', '/api/$categorize', { body: { not: 'results' } });
    },
    // ---- validation: results (stored by the flow for the patient `categories`, see before())
    'validation:Get results of a facility and report, optionally filtered by a minimum severity': async () => {
      await expectPaged('validation', `/api/result/${FACILITY}/${REPORT}`, { severity: 'information' });
      await expectGatewayPattern('validation', `/api/result/${FACILITY}/${REPORT}`);
      await expectStatus(204, 'get', 'validation', `/api/result/${FACILITY}/never-validated`);
      await expectStatus(400, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}`, { query: { severity: 'severe' } });
    },
    'validation:Get results of a facility, report and patient, optionally filtered by a minimum severity': async () => {
      // A patient id that is also a word of this project's routes (`categories`) is reachable (Routes).
      const page = await expectPaged('validation', `/api/result/${FACILITY}/${REPORT}/categories`);
      expect((page.records[0] as { patientId: string }).patientId).to.equal('categories');
      await expectStatus(204, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/nobody`);
      await expectStatus(400, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/categories`, { query: { severity: 'severe' } });
    },
    'validation:Get categories that have issues for a facility and report': async () => {
      expect((await expectStatus(200, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/$categories`)).json).to.be.an('array').and.have.length.greaterThan(0);
      await expectStatus(204, 'get', 'validation', `/api/result/${FACILITY}/never-validated/$categories`);
    },
    'validation:Get issues of one category for a facility and report': async () => {
      // The stored issues are errors, in contract_cat by its first rule (SEVERITY error).
      await expectPaged('validation', `/api/result/${FACILITY}/${REPORT}/$categories/contract_cat`);
      await expectStatus(204, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/$categories/uncategorized`);
      await expectStatus(404, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/$categories/no_such_category`);
    },
    'validation:Download a pre-qualification validation report': async () => {
      const report = await expectStatus(200, 'get', 'validation', `/api/pre-qual/${FACILITY}/${REPORT}`, { query: { severity: 'information' } });
      expect(report.headers.get('content-type')).to.match(/text\/html/);
      await expectStatus(404, 'get', 'validation', `/api/pre-qual/${FACILITY}/never-validated`);
    },
    'validation:The further validation-service operation without parameters or summary': async () => {
      statusChecks++;
      expect((await call('get', `${platform.services.validation}/health`)).status).to.equal(200);
    },

    // ---- tenant: facilities
    'tenant:Get facilities (paged)': async () => {
      await expectPaged('tenant', '/api/facilities', { sortBy: 'FacilityId', sortOrder: 'Ascending' });
      await expectGatewayPattern('tenant', '/api/facilities');
      await expectStatus(204, 'get', 'tenant', '/api/facilities', { query: { facilityName: 'nobody has this name' } });
      await expectStatus(400, 'get', 'tenant', '/api/facilities', { query: { sortBy: 'Nonsense' } });
    },
    'tenant:Create a facility configuration': async () => {
      await expectCreated('post', 'tenant', '/api/facilities', { body: { facilityId: 'contract-created', facilityName: 'Created', timeZone: 'America/Chicago' } });
      await expectStatus(400, 'post', 'tenant', '/api/facilities', { body: { facilityId: 'contract-bad', timeZone: 'Not/AZone' } });
    },
    'tenant:Get a list of all facilities': async () => {
      await expectStatus(200, 'get', 'tenant', '/api/facilities/list', { query: { search: 'Contract' } });
      await expectStatus(204, 'get', 'tenant', '/api/facilities/list', { query: { search: 'nobody has this name' } });
    },
    'tenant:Get a facility configuration by facilityId': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/facilities/${FACILITY}`);
      await expectStatus(404, 'get', 'tenant', '/api/facilities/no-such-facility');
    },
    'tenant:Update a facility configuration': async () => {
      await expectStatus(202, 'put', 'tenant', `/api/facilities/${FACILITY}`, { body: { facilityId: FACILITY, facilityName: 'Contract Facility', timeZone: 'America/New_York' } });
      await expectStatus(400, 'put', 'tenant', `/api/facilities/${FACILITY}`, { body: { facilityId: 'another', timeZone: 'UTC' } });
      await expectStatus(404, 'put', 'tenant', '/api/facilities/no-such-facility', { body: { facilityId: 'no-such-facility', timeZone: 'UTC' } });
    },
    'tenant:Delete a facility configuration': async () => {
      await call('post', url('tenant', '/api/facilities'), { body: { facilityId: 'contract-doomed', timeZone: 'UTC' } });
      await expectStatus(204, 'delete', 'tenant', '/api/facilities/contract-doomed');
      await expectStatus(404, 'delete', 'tenant', '/api/facilities/contract-doomed');
    },
    'tenant:Soft delete a facility': async () => {
      await call('post', url('tenant', '/api/facilities'), { body: { facilityId: 'contract-soft', timeZone: 'UTC' } });
      expect((await expectStatus(200, 'delete', 'tenant', '/api/Facility/softDelete/contract-soft')).json).to.include({ facilityId: 'contract-soft', isDeleted: true });
      await expectStatus(404, 'delete', 'tenant', '/api/Facility/softDelete/no-such-facility');
    },
    'tenant:Restore a soft-deleted facility configuration': async () => {
      await call('post', url('tenant', '/api/facilities'), { body: { facilityId: 'contract-restored', timeZone: 'UTC' } });
      await call('delete', url('tenant', '/api/Facility/softDelete/contract-restored'));
      expect((await expectStatus(200, 'post', 'tenant', '/api/facilities/contract-restored/$restore')).json).to.include({ isDeleted: false });
      await expectStatus(404, 'post', 'tenant', '/api/facilities/no-such-facility/$restore');
    },
    'tenant:Generate': async () => {
      const body = { startDate: '2026-01-01T00:00:00Z', endDate: '2026-01-31T23:59:59Z', measures: ['NHSNdQMAcuteCareHospitalInitialPopulation'] };
      expect((await expectStatus(200, 'post', 'tenant', `/api/facilities/${FACILITY}/$generate-report`, { body })).json).to.have.property('reportId');
      await expectStatus(400, 'post', 'tenant', `/api/facilities/${FACILITY}/$generate-report`, { body: { startDate: 'yesterday' } });
      await expectStatus(404, 'post', 'tenant', '/api/facilities/no-such-facility/$generate-report', { body });
    },
    'tenant:Two further operations on a facility #1': async () => {
      await expectStatus(400, 'post', 'tenant', `/api/facilities/${FACILITY}/$regenerate-report`, { body: {} });
      await expectStatus(404, 'post', 'tenant', '/api/facilities/no-such-facility/$regenerate-report', { body: { reportId: 'r' } });
    },
    'tenant:Two further operations on a facility #2': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/facilities/${FACILITY}/next-runs`);
      await expectStatus(404, 'get', 'tenant', '/api/facilities/no-such-facility/next-runs');
    },
    // ---- tenant: reporting plans
    'tenant:Get a paged list of every plan': async () => {
      await expectPaged('tenant', '/api/facility-reporting-plans', { sortBy: 'ReportingMonth', sortOrder: 'Ascending' });
      // Its own range (pageSize 1 to 100, line 409): the gateway passes 100 on; 101 is refused.
      expect((await expectPaged('tenant', '/api/facility-reporting-plans', { pageSize: '100' })).metadata.pageSize).to.equal(100);
      await expectStatus(400, 'get', 'tenant', '/api/facility-reporting-plans', { query: { pageSize: '101' } });
      await expectStatus(400, 'get', 'tenant', '/api/facility-reporting-plans', { query: { sortBy: 'Nonsense' } });
    },
    'tenant:Create a plan': async () => {
      await expectCreated('post', 'tenant', '/api/facility-reporting-plans', { body: { facilityId: FACILITY, measureMappingId: fixtures.mappingId, reportingMonth: 2, reportingYear: 2026, isReporting: true } });
      await expectStatus(400, 'post', 'tenant', '/api/facility-reporting-plans', { body: { facilityId: FACILITY, measureMappingId: fixtures.mappingId, reportingMonth: 13, reportingYear: 2026, isReporting: true } });
    },
    'tenant:Get all plans of a facility': async () => {
      await expectPaged('tenant', `/api/facilities/${FACILITY}/reporting-plans`, { month: '1', year: '2026', isReporting: 'true' });
      await expectGatewayPattern('tenant', `/api/facilities/${FACILITY}/reporting-plans`);
      await expectStatus(204, 'get', 'tenant', `/api/facilities/${FACILITY}/reporting-plans`, { query: { year: '2100' } });
      await expectStatus(400, 'get', 'tenant', `/api/facilities/${FACILITY}/reporting-plans`, { query: { month: '13' } });
    },
    'tenant:Get a plan by Id': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/facility-reporting-plans/${fixtures.planId}`);
      await expectStatus(404, 'get', 'tenant', `/api/facility-reporting-plans/${MISSING_UUID}`);
      expect((await expectStatus(400, 'get', 'tenant', '/api/facility-reporting-plans/not-a-uuid')).json).to.include({ detail: 'Invalid Id format' });
    },
    'tenant:Update a plan': async () => {
      const body = { id: fixtures.planId, facilityId: FACILITY, measureMappingId: fixtures.mappingId, reportingMonth: 1, reportingYear: 2026, isReporting: true };
      await expectStatus(202, 'put', 'tenant', `/api/facility-reporting-plans/${fixtures.planId}`, { body });
      expect((await expectStatus(400, 'put', 'tenant', '/api/facility-reporting-plans/not-a-uuid', { body: { ...body, id: 'not-a-uuid' } })).json).to.include({ detail: 'Invalid Id format' });
      await expectStatus(400, 'put', 'tenant', `/api/facility-reporting-plans/${fixtures.planId}`, { body: { ...body, id: MISSING_UUID } });
      await expectStatus(404, 'put', 'tenant', `/api/facility-reporting-plans/${MISSING_UUID}`, { body: { ...body, id: MISSING_UUID } });
    },
    'tenant:Delete a plan': async () => {
      const plan = (await call('post', url('tenant', '/api/facility-reporting-plans'), { body: { facilityId: FACILITY, measureMappingId: fixtures.mappingId, reportingMonth: 5, reportingYear: 2026, isReporting: false } })).json as { id: string };
      await expectStatus(204, 'delete', 'tenant', `/api/facility-reporting-plans/${plan.id}`);
      await expectStatus(404, 'delete', 'tenant', `/api/facility-reporting-plans/${plan.id}`);
      await expectStatus(400, 'delete', 'tenant', '/api/facility-reporting-plans/not-a-uuid');
    },
    'tenant:Delete every plan of a facility': async () => {
      await call('post', url('tenant', '/api/facilities'), { body: { facilityId: 'contract-plans', timeZone: 'UTC' } });
      await call('post', url('tenant', '/api/facility-reporting-plans'), { body: { facilityId: 'contract-plans', measureMappingId: fixtures.mappingId, reportingMonth: 1, reportingYear: 2027, isReporting: true } });
      await expectStatus(204, 'delete', 'tenant', '/api/facilities/contract-plans/reporting-plans');
      await expectStatus(204, 'get', 'tenant', '/api/facilities/contract-plans/reporting-plans');
    },
    'tenant:Delete every plan': async () => {
      // Last of the plan operations (see the order in the suite): it empties the list.
      await expectStatus(204, 'delete', 'tenant', '/api/facility-reporting-plans');
      await expectStatus(204, 'get', 'tenant', '/api/facility-reporting-plans');
    },
    // ---- tenant: measure mappings
    'tenant:Get by Id': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/measure-mappings/${fixtures.mappingId}`);
      await expectStatus(404, 'get', 'tenant', `/api/measure-mappings/${MISSING_UUID}`);
      expect((await expectStatus(400, 'get', 'tenant', '/api/measure-mappings/not-a-uuid')).json).to.include({ detail: 'Invalid Id format' });
    },
    'tenant:Update': async () => {
      const body = { measure: 'NHSNdQMAcuteCareHospitalInitialPopulation', dqm: 'NHSNdQMAcuteCareHospitalInitialPopulation', frequency: 'Daily' };
      await expectStatus(202, 'put', 'tenant', `/api/measure-mappings/${fixtures.mappingId}`, { body });
      await expectStatus(404, 'put', 'tenant', `/api/measure-mappings/${MISSING_UUID}`, { body });
      expect((await expectStatus(400, 'put', 'tenant', '/api/measure-mappings/not-a-uuid', { body })).json).to.include({ detail: 'Invalid Id format' });
    },
    'tenant:Create': async () => {
      await expectCreated('post', 'tenant', '/api/measure-mappings', { body: { measure: 'Contract', dqm: 'ContractDqm', frequency: 'Monthly' } });
      await expectStatus(400, 'post', 'tenant', '/api/measure-mappings', { body: { measure: '', dqm: 'x', frequency: 'Hourly' } });
    },
    'tenant:Delete': async () => {
      const mapping = (await call('post', url('tenant', '/api/measure-mappings'), { body: { measure: 'Doomed', dqm: 'DoomedDqm', frequency: 'Weekly' } })).json as { id: string };
      await expectStatus(204, 'delete', 'tenant', `/api/measure-mappings/${mapping.id}`);
      await expectStatus(404, 'delete', 'tenant', `/api/measure-mappings/${mapping.id}`);
      await expectStatus(400, 'delete', 'tenant', '/api/measure-mappings/not-a-uuid');
    },
    'tenant:Delete all': async () => {
      // After every other mapping operation (order below).
      await expectStatus(204, 'delete', 'tenant', '/api/measure-mappings');
      await expectStatus(204, 'get', 'tenant', '/api/measure-mappings');
    },
    // ---- tenant: the counted group (vendors, vendor versions)
    'tenant:Further tenant operation #1 (with no parameters)': async () => {
      await expectCreated('post', 'tenant', '/api/vendors', { body: { name: 'Contract Vendor B' } });
      await expectStatus(400, 'post', 'tenant', '/api/vendors', { body: { name: 'x'.repeat(256) } });
    },
    'tenant:Further tenant operation #2 (with route id)': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/vendors/${fixtures.vendorId}`);
      await expectStatus(404, 'get', 'tenant', `/api/vendors/${MISSING_UUID}`);
      expect((await expectStatus(400, 'get', 'tenant', '/api/vendors/epic')).json).to.include({ detail: 'Invalid Id format' });
    },
    'tenant:Further tenant operation #3 (with route id)': async () => {
      await expectStatus(202, 'put', 'tenant', `/api/vendors/${fixtures.vendorId}`, { body: { id: fixtures.vendorId, name: 'Contract Vendor' } });
      await expectStatus(400, 'put', 'tenant', `/api/vendors/${fixtures.vendorId}`, { body: { name: 'no id' } });
      await expectStatus(404, 'put', 'tenant', `/api/vendors/${MISSING_UUID}`, { body: { id: MISSING_UUID, name: 'nobody' } });
    },
    'tenant:Further tenant operation #4 (with route id)': async () => {
      const vendor = (await call('post', url('tenant', '/api/vendors'), { body: { name: 'Doomed Vendor' } })).json as { id: string };
      await expectStatus(204, 'delete', 'tenant', `/api/vendors/${vendor.id}`);
      await expectStatus(404, 'delete', 'tenant', `/api/vendors/${vendor.id}`);
    },
    'tenant:Further tenant operation #5 (with no parameters)': async () => {
      await expectPaged('tenant', '/api/vendors');
      await expectGatewayPattern('tenant', '/api/vendors');
    },
    'tenant:Further tenant operation #6 (with no parameters)': async () => {
      await expectCreated('post', 'tenant', '/api/vendor-versions', { body: { vendorId: fixtures.vendorId, version: '2025' } });
      await expectStatus(400, 'post', 'tenant', '/api/vendor-versions', { body: { vendorId: MISSING_UUID, version: '1' } });
    },
    'tenant:Further tenant operation #7 (with route id)': async () => {
      await expectStatus(200, 'get', 'tenant', `/api/vendor-versions/${fixtures.versionId}`);
      await expectStatus(404, 'get', 'tenant', `/api/vendor-versions/${MISSING_UUID}`);
      await expectStatus(400, 'get', 'tenant', '/api/vendor-versions/2024');
    },
    'tenant:Further tenant operation #8 (with route id)': async () => {
      await expectStatus(202, 'put', 'tenant', `/api/vendor-versions/${fixtures.versionId}`, { body: { id: fixtures.versionId, vendorId: fixtures.vendorId, version: '2024.1' } });
      await expectStatus(404, 'put', 'tenant', `/api/vendor-versions/${MISSING_UUID}`, { body: { id: MISSING_UUID, vendorId: fixtures.vendorId, version: '1' } });
    },
    'tenant:Further tenant operation #9 (with route id)': async () => {
      const version = (await call('post', url('tenant', '/api/vendor-versions'), { body: { vendorId: fixtures.vendorId, version: 'doomed' } })).json as { id: string };
      await expectStatus(204, 'delete', 'tenant', `/api/vendor-versions/${version.id}`);
      await expectStatus(404, 'delete', 'tenant', `/api/vendor-versions/${version.id}`);
    },
    'tenant:Further tenant operation #10 (with optional query vendorId)': async () => {
      await expectPaged('tenant', '/api/vendor-versions', { vendorId: fixtures.vendorId });
      await expectStatus(204, 'get', 'tenant', '/api/vendor-versions', { query: { vendorId: MISSING_UUID } });
    },
    'tenant:Health check': async () => {
      statusChecks++;
      expect((await call('get', `${platform.services.tenant}/health`)).status).to.equal(200);
    },
  };

  const fixtures = { mappingId: '', planId: '', vendorId: '', versionId: '' };
  /** ValidationComplete messages of the contract's facility, in stream order. */
  const completions: Record<string, unknown>[] = [];

  before(async () => {
    platform = await startPlatform();
    for (const component of ['validation', 'tenant'] as const) {
      documents[component] = (await (await fetch(`${platform.services[component]}/api-docs`)).json()) as OpenAPIV3_1.Document;
    }
    const completion = platform.catalog.byName('ValidationComplete');
    const reader = await platform.nats.js.consumers.get(completion.stream!, { filter_subjects: completion.subject });
    const messages = await reader.consume();
    void (async () => {
      for await (const m of messages) completions.push(m.json<Record<string, unknown>>());
    })();

    // Fixtures, through the gateway (not counted).
    const ok = async (answer: Promise<Answer>, what: string) => {
      const a = await answer;
      if (a.status >= 300) throw new Error(`fixture ${what}: ${a.status} ${a.text}`);
      return a.json as Record<string, string>;
    };
    await ok(call('put', url('validation', '/api/category/contract_cat'), { body: category('contract_cat', { matcher: { field: 'SEVERITY', regex: 'error' } }) }), 'category');
    await ok(call('put', url('validation', `/api/artifact/PACKAGE/${PACKAGE_ID}`), { raw: contractPackage }), 'package');
    await ok(call('post', url('tenant', '/api/facilities'), { body: { facilityId: FACILITY, facilityName: 'Contract Facility', timeZone: 'UTC' } }), 'facility');
    fixtures.mappingId = (await ok(call('post', url('tenant', '/api/measure-mappings'), { body: { measure: 'NHSNdQMAcuteCareHospitalInitialPopulation', dqm: 'NHSNdQMAcuteCareHospitalInitialPopulation', frequency: 'Monthly' } }), 'mapping')).id!;
    fixtures.planId = (await ok(call('post', url('tenant', '/api/facility-reporting-plans'), { body: { facilityId: FACILITY, measureMappingId: fixtures.mappingId, reportingMonth: 1, reportingYear: 2026, isReporting: true } }), 'plan')).id!;
    fixtures.vendorId = (await ok(call('post', url('tenant', '/api/vendors'), { body: { name: 'Contract Vendor' } }), 'vendor')).id!;
    fixtures.versionId = (await ok(call('post', url('tenant', '/api/vendor-versions'), { body: { vendorId: fixtures.vendorId, version: '2024' } }), 'version')).id!;

    // Results, by the flow: a ReadyForValidation for the patient `categories` (its submission is served by the stand-in report service).
    platform.reportService.put(FACILITY, REPORT, 'categories', submission('categories'));
    await publishReady('categories', 'contract-first');
    await until(() => completionsOf('categories').length === 1, 'the first ValidationComplete');
  });
  after(async () => {
    await platform?.stop();
    console.log(`      contract suite: ${checkedOperations.size} operations of the specification's tables (${operations.filter((o) => o.service === 'validation').length} validation, `
      + `${operations.filter((o) => o.service === 'tenant').length} tenant), ${statusChecks} status codes checked through the gateway; `
      + `${ADDITIONS.length} additional routes and ${deprecatedAliases().length} deprecated aliases known`);
  });

  const completionsOf = (patientId: string) => completions.filter((c) => c.facilityId === FACILITY && c.reportTrackingId === REPORT && c.patientId === patientId);
  async function publishReady(patientId: string, msgId: string): Promise<void> {
    const ready = platform.catalog.byName('ReadyForValidation');
    await platform.nats.js.publish(ready.subject, JSON.stringify({ schemaVersion: ready.version, facilityId: FACILITY, reportTrackingId: REPORT, patientId, reportTypes: [] }), { msgID: msgId });
  }
  async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${platform.output('validation').slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Every route of the services' documents: `<component> <METHOD> <path>` with its operation. */
  function documentedRoutes(): { component: Component; method: Method; path: string; operation: OpenAPIV3_1.OperationObject }[] {
    return (['validation', 'tenant'] as const).flatMap((component) => Object.entries(documents[component]!.paths ?? {}).flatMap(([path, item]) =>
      (['get', 'post', 'put', 'delete', 'patch'] as const).filter((m) => item?.[m]).map((method) => ({ component, method: method as Method, path, operation: item![method]! }))));
  }
  function deprecatedAliases() {
    return documents.validation ? documentedRoutes().filter((r) => r.operation.deprecated) : [];
  }
  const pathParameters = (path: string) => [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!).sort();

  describe('routes: the specification\'s operations, and nothing the suite does not know', () => {
    it('every operation of the tables is bound to a documented route with its verb and the specification\'s parameters', () => {
      const routes = documentedRoutes();
      const problems: string[] = [];
      for (const op of operations) {
        const binding: Binding | undefined = BINDINGS[operationKey(op.service, op.name)];
        if (!binding) {
          problems.push(`${op.service}: "${op.name}" (line ${op.line}) has no binding in operation-bindings.ts`);
          continue;
        }
        if (binding.direct) continue;
        const route = routes.find((r) => r.component === op.service && r.method === binding.method && r.path === binding.path);
        if (!route) {
          problems.push(`${op.service}: "${op.name}" → ${binding.method.toUpperCase()} ${binding.path} is not in the service's OpenAPI document`);
          continue;
        }
        if (route.operation.deprecated) problems.push(`${op.name}: bound to a deprecated path`);
        const expectedPath = [...op.routeParameters].sort();
        if (JSON.stringify(pathParameters(binding.path)) !== JSON.stringify(expectedPath)) {
          problems.push(`"${op.name}": route parameters ${pathParameters(binding.path).join(', ') || 'none'}, the specification's ${expectedPath.join(', ') || 'none'}`);
        }
        const documentedQuery = ((route.operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter((p) => p.in === 'query').map((p) => p.name);
        const missing = op.queryParameters.filter((q) => !documentedQuery.includes(q));
        if (missing.length > 0) problems.push(`"${op.name}": query parameters ${missing.join(', ')} are not documented`);
      }
      expect(problems).to.deep.equal([]);
      expect(Object.keys(BINDINGS).filter((key) => !operations.some((op) => operationKey(op.service, op.name) === key)), 'bindings of operations the specification no longer has').to.deep.equal([]);
    });

    it('every documented route is an operation of the tables, an addition with its reason, or a deprecated alias of a known route', () => {
      const bound = new Set(Object.entries(BINDINGS).map(([key, b]) => `${key.split(':')[0]} ${b.method} ${b.path}`));
      const added = new Set(ADDITIONS.map((a) => `${a.component} ${a.method} ${a.path}`));
      const unknown: string[] = [];
      for (const route of documentedRoutes()) {
        const id = `${route.component} ${route.method} ${route.path}`;
        if (route.operation.deprecated) {
          // "(deprecated path: use <successor>)": the successor must be known.
          const successor = /use (\/\S+)\)$/.exec(route.operation.summary ?? '')?.[1];
          if (!successor || !(bound.has(`${route.component} ${route.method} ${successor}`) || added.has(`${route.component} ${route.method} ${successor}`))) unknown.push(`${id} (deprecated, successor ${successor ?? 'not named'} unknown)`);
          continue;
        }
        if (!bound.has(id) && !added.has(id)) unknown.push(id);
      }
      expect(unknown, 'routes the contract suite does not know: bind them to an operation of the specification or list them as additions with their reason').to.deep.equal([]);
      const documented = new Set(documentedRoutes().map((r) => `${r.component} ${r.method} ${r.path}`));
      expect(ADDITIONS.map((a) => `${a.component} ${a.method} ${a.path}`).filter((id) => !documented.has(id)), 'additions no service documents any longer').to.deep.equal([]);
    });

    it('the routes follow the conventions where this project named them: lower case, hyphens, plural nouns (Routes 2-4)', () => {
      const named = ADDITIONS.map((a) => a.path).filter((p) => p.startsWith('/api/'));
      for (const path of named) {
        for (const segment of path.split('/').filter((s) => s && !s.startsWith('{'))) {
          expect(segment, path).to.equal(segment.toLowerCase());
          expect(segment, path).to.not.match(/_/);
        }
      }
      for (const collection of ['/api/jobs/{jobId}', '/api/validation-configurations', '/api/facilities/{facilityId}/validation-configuration']) expect(named).to.include(collection);
    });
  });

  describe('statuses of the conventions, operation by operation, through the gateway', () => {
    // Deletions of whole lists after the operations that need the lists.
    const last = new Set(['tenant:Delete every plan', 'tenant:Delete all']);
    const ordered = [...operations.filter((op) => !last.has(operationKey(op.service, op.name))), ...operations.filter((op) => last.has(operationKey(op.service, op.name)))];
    for (const op of ordered) {
      const key = operationKey(op.service, op.name);
      it(`${op.service}: ${op.name} (spec line ${op.line})`, async () => {
        const check = CHECKS[key];
        expect(check, `no status check for "${op.name}"`).to.be.a('function');
        await check!();
        checkedOperations.add(key);
      });
    }
  });

  describe('the deliberate differences docs/api.md lists (Differences from the specification)', () => {
    it('Link Cloud\'s own lists answer bare arrays; this project\'s searches the paged model', async () => {
      for (const path of ['/api/category', '/api/artifact', '/api/category/contract_cat/rule/history', '/api/category/$export']) {
        expect((await expectStatus(200, 'get', 'validation', path)).json, path).to.be.an('array');
      }
      await expectStatus(204, 'get', 'validation', '/api/validation-configurations'); // a search of this project's: none stored
    });

    it('paging: a service refuses an out-of-range page (400); the gateway corrects it, except for the reporting-plan list', async () => {
      statusChecks++;
      expect((await call('get', `${platform.services.tenant}/api/facilities?pageSize=500`)).status).to.equal(400);
      expect((await expectPaged('tenant', '/api/facilities', { pageSize: '500' })).metadata.pageSize).to.equal(20);
    });

    it('renamed routes: the old paths answer for one release, with Deprecation and a successor that resolves through the gateway', async () => {
      const job = (await expectCreated('post', 'validation', `/api/result/${FACILITY}/${REPORT}/$recategorize`, {})).json as { id: string };
      const old = await expectStatus(200, 'get', 'validation', `/api/job/${job.id}`);
      expect(old.headers.get('deprecation')).to.match(/^@\d+$/);
      const successor = /^<([^>]+)>; rel="successor-version"$/.exec(old.headers.get('link') ?? '')?.[1];
      const resolved = new URL(successor!, url('validation', `/api/job/${job.id}`));
      expect(resolved.pathname).to.equal(`/api/validation/jobs/${job.id}`);
      statusChecks++;
      expect((await call('get', resolved.href)).status).to.equal(200);
    });

    it('a PACKAGE may be named id#version with its own version; another version is refused', async () => {
      await expectCreated('put', 'validation', `/api/artifact/PACKAGE/${encodeURIComponent(`${PACKAGE_ID}#1.0.0`)}`, { raw: contractPackage });
      await expectStatus(400, 'put', 'validation', `/api/artifact/PACKAGE/${encodeURIComponent(`${PACKAGE_ID}#2.0.0`)}`, { raw: contractPackage });
    });

    it('a re-validation job answers no event: a patient whose outcome did not change is not announced again', async () => {
      const revalidate = async (marker: string) => {
        const job = (await expectCreated('post', 'validation', `/api/result/${FACILITY}/${REPORT}/$revalidate`, {})).json as { id: string };
        const deadline = Date.now() + 60_000;
        let status = '';
        while (!['succeeded', 'failed'].includes(status) && Date.now() < deadline) {
          status = ((await call('get', url('validation', `/api/jobs/${job.id}`))).json as { status: string }).status;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(status).to.equal('succeeded');
        // A later event's answer: the relay publishes in commit order, so what the job announced is published by then.
        platform.reportService.put(FACILITY, REPORT, marker, submission(marker));
        await publishReady(marker, `contract-${marker}`);
        await until(() => completionsOf(marker).length === 1, `the answer to ${marker}`);
      };
      // The categories changed since the first validation: the first job may announce; the second finds the same outcome.
      await revalidate('marker-1');
      const announced = completionsOf('categories').length;
      await revalidate('marker-2');
      expect(completionsOf('categories')).to.have.length(announced);
    });
  });

  describe('events (spec lines 9, 19 and the flow\'s step 6): one ValidationComplete per ReadyForValidation', () => {
    it('two ReadyForValidation events for one patient with the same outcome get two ValidationComplete; one event published three times (one message id) gets one', async () => {
      platform.reportService.put(FACILITY, REPORT, 'twice', submission('twice'));
      await publishReady('twice', 'contract-twice-1');
      await publishReady('twice', 'contract-twice-2');
      await until(() => completionsOf('twice').length === 2, 'two ValidationComplete');
      const [first, second] = completionsOf('twice');
      expect(second!.isValid).to.equal(first!.isValid);
      expect(second!.validationRunId).to.not.equal(first!.validationRunId);

      platform.reportService.put(FACILITY, REPORT, 'thrice', submission('thrice'));
      for (let i = 0; i < 3; i++) await publishReady('thrice', 'contract-thrice');
      platform.reportService.put(FACILITY, REPORT, 'after-thrice', submission('after-thrice'));
      await publishReady('after-thrice', 'contract-after-thrice'); // a later event: once it is answered, the earlier ones are too
      await until(() => completionsOf('after-thrice').length === 1, 'the ValidationComplete of the later event');
      expect(completionsOf('thrice')).to.have.length(1);
    });

    it('a report or patient never validated has no verdict (404); one validated has one', async () => {
      await expectStatus(404, 'get', 'validation', `/api/result/${FACILITY}/never-validated/$validity`);
      await expectStatus(404, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/nobody/$validity`);
      expect((await expectStatus(200, 'get', 'validation', `/api/result/${FACILITY}/${REPORT}/categories/$validity`)).json).to.include({ valid: false });
    });
  });
});
