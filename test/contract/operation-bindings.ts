/**
 * Where each operation of the specification's tables is served (the specification gives the method
 * and path of only a few), and the routes this project adds beyond them. The contract suite holds
 * the services to both: every operation of the tables has its binding here and its route in the
 * services' OpenAPI documents; every route of those documents is a binding, an addition (with the
 * reason) or a deprecated alias of one. A new route that is none of these fails the suite.
 *
 * Paths are the services' own (OpenAPI templates); through the gateway they are
 * `/api/<component>/...` (shared API conventions, Routes 1). Routes named by the specification or
 * by Link Cloud's own API (../shared/reference/link-cloud.md: /api/result, /api/category,
 * /api/artifact, /api/aritfact/$initialize, /api/Facility/softDelete) keep those names; routes only
 * this project added follow the conventions (plural nouns, lower case, hyphens).
 */
export type Method = 'get' | 'post' | 'put' | 'delete';

export interface Binding {
  readonly method: Method;
  readonly path: string;
  /** A service's own endpoint the gateway does not route (its /health). */
  readonly direct?: true;
}

/** Key of an operation: `<service>:<the specification's name>`. */
export const operationKey = (service: string, name: string) => `${service}:${name}`;

export const BINDINGS: Readonly<Record<string, Binding>> = {
  // Validation service operations (specification lines 281-309).
  'validation:Get a category': { method: 'get', path: '/api/category/{id}' },
  'validation:Create or update a category': { method: 'put', path: '/api/category/{id}' },
  'validation:Delete a category': { method: 'delete', path: '/api/category/{id}' },
  'validation:Get the latest rule of a category': { method: 'get', path: '/api/category/{id}/rule' },
  'validation:Create a rule for a category': { method: 'post', path: '/api/category/{id}/rule' },
  'validation:Get all categories': { method: 'get', path: '/api/category' },
  'validation:Get all historical rules of a category': { method: 'get', path: '/api/category/{id}/rule/history' },
  'validation:Export categories and rules': { method: 'get', path: '/api/category/$export' },
  'validation:Import categories and rules': { method: 'post', path: '/api/category/$import' },
  'validation:Delete a category rule': { method: 'delete', path: '/api/category/rule/{ruleId}' },
  'validation:Create or update categories from bundled resources': { method: 'post', path: '/api/category/$initialize' },
  'validation:Get an artifact': { method: 'get', path: '/api/artifact/{type}/{name}' },
  'validation:Create or update an artifact': { method: 'put', path: '/api/artifact/{type}/{name}' },
  'validation:Delete an artifact': { method: 'delete', path: '/api/artifact/{type}/{name}' },
  'validation:Get all artifacts': { method: 'get', path: '/api/artifact' },
  'validation:Get the content of an artifact': { method: 'get', path: '/api/artifact/{type}/{name}/content' },
  'validation:Get terminology dependencies of all artifacts': { method: 'get', path: '/api/artifact/$terminology-dependencies' },
  'validation:Get details of a package': { method: 'get', path: '/api/artifact/package/{packageId}' },
  'validation:Get terminology dependencies of a package': { method: 'get', path: '/api/artifact/package/{packageId}/terminology-dependencies' },
  // The path spelled exactly as the specification has it (line 56).
  'validation:Create or update artifacts from bundled resources': { method: 'post', path: '/api/aritfact/$initialize' },
  'validation:Validate a FHIR resource': { method: 'post', path: '/api/$validate' },
  'validation:Categorize validation results using the latest rules': { method: 'post', path: '/api/$categorize' },
  'validation:Get results of a facility and report, optionally filtered by a minimum severity': { method: 'get', path: '/api/result/{facilityId}/{reportId}' },
  'validation:Get results of a facility, report and patient, optionally filtered by a minimum severity': { method: 'get', path: '/api/result/{facilityId}/{reportId}/{patientId}' },
  'validation:Get categories that have issues for a facility and report': { method: 'get', path: '/api/result/{facilityId}/{reportId}/$categories' },
  'validation:Get issues of one category for a facility and report': { method: 'get', path: '/api/result/{facilityId}/{reportId}/$categories/{categoryId}' },
  // Link Cloud's path (/api/validation/pre-qual/{facilityId}/{reportId}).
  'validation:Download a pre-qualification validation report': { method: 'get', path: '/api/pre-qual/{facilityId}/{reportId}' },
  'validation:The further validation-service operation without parameters or summary': { method: 'get', path: '/health', direct: true },

  // Tenant service: Facilities.
  'tenant:Get facilities (paged)': { method: 'get', path: '/api/facilities' },
  'tenant:Create a facility configuration': { method: 'post', path: '/api/facilities' },
  'tenant:Get a list of all facilities': { method: 'get', path: '/api/facilities/list' },
  'tenant:Get a facility configuration by facilityId': { method: 'get', path: '/api/facilities/{facilityId}' },
  'tenant:Update a facility configuration': { method: 'put', path: '/api/facilities/{facilityId}' },
  'tenant:Delete a facility configuration': { method: 'delete', path: '/api/facilities/{facilityId}' },
  'tenant:Restore a soft-deleted facility configuration': { method: 'post', path: '/api/facilities/{facilityId}/$restore' },
  'tenant:Generate': { method: 'post', path: '/api/facilities/{facilityId}/$generate-report' },
  // Link Cloud's AdHocReport and RegenerateReport are the facility's report operations; this is the second.
  'tenant:Two further operations on a facility #1': { method: 'post', path: '/api/facilities/{facilityId}/$regenerate-report' },
  'tenant:Two further operations on a facility #2': { method: 'get', path: '/api/facilities/{facilityId}/next-runs' },
  // The one path the specification gives (line 361), exactly.
  'tenant:Soft delete a facility': { method: 'delete', path: '/api/Facility/softDelete/{facilityId}' },
  // Facility reporting plans.
  'tenant:Get a paged list of every plan': { method: 'get', path: '/api/facility-reporting-plans' },
  'tenant:Create a plan': { method: 'post', path: '/api/facility-reporting-plans' },
  'tenant:Delete every plan': { method: 'delete', path: '/api/facility-reporting-plans' },
  'tenant:Get all plans of a facility': { method: 'get', path: '/api/facilities/{facilityId}/reporting-plans' },
  'tenant:Delete every plan of a facility': { method: 'delete', path: '/api/facilities/{facilityId}/reporting-plans' },
  'tenant:Get a plan by Id': { method: 'get', path: '/api/facility-reporting-plans/{id}' },
  'tenant:Update a plan': { method: 'put', path: '/api/facility-reporting-plans/{id}' },
  'tenant:Delete a plan': { method: 'delete', path: '/api/facility-reporting-plans/{id}' },
  // Measure mappings.
  'tenant:Get by Id': { method: 'get', path: '/api/measure-mappings/{id}' },
  'tenant:Update': { method: 'put', path: '/api/measure-mappings/{id}' },
  'tenant:Delete': { method: 'delete', path: '/api/measure-mappings/{id}' },
  'tenant:Create': { method: 'post', path: '/api/measure-mappings' },
  'tenant:Delete all': { method: 'delete', path: '/api/measure-mappings' },
  // The counted group (line 359): vendors and vendor versions, in the order the sentence counts them.
  'tenant:Further tenant operation #1 (with no parameters)': { method: 'post', path: '/api/vendors' },
  'tenant:Further tenant operation #2 (with route id)': { method: 'get', path: '/api/vendors/{id}' },
  'tenant:Further tenant operation #3 (with route id)': { method: 'put', path: '/api/vendors/{id}' },
  'tenant:Further tenant operation #4 (with route id)': { method: 'delete', path: '/api/vendors/{id}' },
  'tenant:Further tenant operation #5 (with no parameters)': { method: 'get', path: '/api/vendors' },
  'tenant:Further tenant operation #6 (with no parameters)': { method: 'post', path: '/api/vendor-versions' },
  'tenant:Further tenant operation #7 (with route id)': { method: 'get', path: '/api/vendor-versions/{id}' },
  'tenant:Further tenant operation #8 (with route id)': { method: 'put', path: '/api/vendor-versions/{id}' },
  'tenant:Further tenant operation #9 (with route id)': { method: 'delete', path: '/api/vendor-versions/{id}' },
  'tenant:Further tenant operation #10 (with optional query vendorId)': { method: 'get', path: '/api/vendor-versions' },
  'tenant:Health check': { method: 'get', path: '/health', direct: true },
};

export interface Addition extends Binding {
  readonly component: 'validation' | 'tenant' | 'gateway';
  /** Why it exists (the specification's planned operations, a Link Cloud path, this project's own resources). */
  readonly why: string;
}

/** Routes beyond the specification's tables, each with its reason. */
export const ADDITIONS: readonly Addition[] = [
  { component: 'validation', method: 'post', path: '/api/artifact/$initialize', why: 'the initialization under the correct spelling, beside the specification\'s /api/aritfact/$initialize' },
  { component: 'validation', method: 'put', path: '/api/category/{id}/rule', why: 'Link Cloud accepted PUT for a new rule too' },
  { component: 'validation', method: 'post', path: '/api/$validate-and-categorize', why: 'planned operation: validate and categorize with a composite response' },
  { component: 'validation', method: 'get', path: '/api/result/{facilityId}/{reportId}/$pre-qualification-report', why: 'the pre-qualification report under /api/result, beside Link Cloud\'s /api/pre-qual' },
  { component: 'validation', method: 'get', path: '/api/result/{facilityId}/{reportId}/$validity', why: 'the validity verdict the results give (404 before any validation)' },
  { component: 'validation', method: 'get', path: '/api/result/{facilityId}/{reportId}/{patientId}/$validity', why: 'one patient\'s validity verdict' },
  { component: 'validation', method: 'post', path: '/api/result/{facilityId}/{reportId}/$recategorize', why: 'planned operation: re-categorize a report (a job)' },
  { component: 'validation', method: 'post', path: '/api/result/{facilityId}/{reportId}/$revalidate', why: 'planned operation: re-validate a report (a job)' },
  { component: 'validation', method: 'get', path: '/api/jobs/{jobId}', why: 'the job those two create' },
  ...(['get', 'post'] as const).map((method) => ({ component: 'validation' as const, method, path: '/api/validation-configurations', why: 'per-facility validation configurations (deficiency: no per-tenant configuration)' })),
  ...(['get', 'put', 'delete'] as const).map((method) => ({ component: 'validation' as const, method, path: '/api/validation-configurations/{name}', why: 'one validation configuration' })),
  ...(['get', 'put', 'delete'] as const).map((method) => ({ component: 'validation' as const, method, path: '/api/facilities/{facilityId}/validation-configuration', why: 'a facility\'s validation configuration' })),
  { component: 'tenant', method: 'get', path: '/api/measure-mappings', why: 'the list of measure mappings (the reference list of CheckIfMeasureExists)' },
  { component: 'tenant', method: 'get', path: '/api/service-info', why: 'GetServiceInfo over HTTP' },
  ...(['get', 'post'] as const).map((method) => ({ component: 'tenant' as const, method, path: '/api/signing-keys', why: 'key management (Authentication: create, list)' })),
  ...(['get', 'put', 'delete'] as const).map((method) => ({ component: 'tenant' as const, method, path: '/api/signing-keys/{kid}', why: 'key management (one key)' })),
  ...(['get', 'put'] as const).map((method) => ({ component: 'tenant' as const, method, path: '/api/facilities/{facilityId}/signing-key', why: 'tenant-to-key association' })),
  { component: 'tenant', method: 'post', path: '/api/facilities/{facilityId}/$client-assertion', why: 'signs the JWT sent to an EHR token endpoint' },
  { component: 'tenant', method: 'get', path: '/.well-known/jwks.json', why: 'the JWKS document exposed to external parties (Authentication 6, 7)' },
];
