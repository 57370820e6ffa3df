/**
 * The pre-qualification report's adapters: the express route (HTML page, JSON, OperationOutcome) and
 * the ports over the validation API. For services/validation/src/main.ts:
 *
 * ```ts
 * http.app.use(preQualRoutes(openApi, {           // before api.router (see prequal-routes.ts)
 *   results: resultServiceSource(api.results),
 *   categories: categoryServiceCatalog(api.categories),
 *   reportMetadata,                               // optional ReportMetadataSource over the report service
 *   logger,
 * }));
 * http.app.use(api.router);
 * ```
 */
export { preQualRoutes, PREQUAL_PATH, LEGACY_PREQUAL_PATH, PREQUAL_FORMATS, type PreQualFormat, type PreQualRouteDependencies } from './prequal-routes.js';
export { resultServiceSource, categoryServiceCatalog, RESULT_PAGE_SIZE } from './validation-api-sources.js';
export { renderPreQualHtml } from './prequal-html.js';
export { renderPreQualOperationOutcome, ISSUE_GROUP_EXTENSION, VERDICT_EXTENSION, PREQUAL_EXTENSION_BASE, type PreQualOperationOutcome } from './prequal-operation-outcome.js';
export { PAGE_CONTENT_SECURITY_POLICY, PAGE_CONTENT_SECURITY_POLICY_HEADER } from './page-assets.js';
export { escapeHtml, html, SafeHtml, trustedHtml } from './html-template.js';
