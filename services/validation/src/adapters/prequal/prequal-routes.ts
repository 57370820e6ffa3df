/**
 * `GET /api/result/{facilityId}/{reportId}/$pre-qualification-report?severity=&format=` and the
 * original's path `GET /api/pre-qual/{facilityId}/{reportId}` (same answer).
 *
 * Representation: `format=html|json|operation-outcome`, else the `Accept` header (text/html, the
 * default; application/json; application/fhir+json → OperationOutcome). 400 for an unknown severity
 * or format, 406 for an Accept none of them satisfies, 404 when the report has no stored results.
 *
 * Mount this router BEFORE the results router: there `/api/result/{facilityId}/{reportId}/{patientId}`
 * would otherwise take `$pre-qualification-report` for a patient id.
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpProblem, singleQueryValue, type OpenApiBuilder } from '#adapters/http/index.js';
import type { Logger } from '#adapters/observability/logger.js';
import { generatePreQualReport, type PreQualSources } from '../../domain/prequal/generate-prequal-report.js';
import type { PreQualReport } from '../../domain/prequal/prequal-report.js';
import { ISSUE_SEVERITIES, parseSeverity, type IssueSeverity } from '../../domain/results/issue-severity.js';
import { PAGE_CONTENT_SECURITY_POLICY_HEADER } from './page-assets.js';
import { renderPreQualHtml } from './prequal-html.js';
import { renderPreQualOperationOutcome } from './prequal-operation-outcome.js';
import { preQualSchemas } from './prequal-schemas.js';

export const PREQUAL_PATH = '/api/result/:facilityId/:reportId/$pre-qualification-report';
export const LEGACY_PREQUAL_PATH = '/api/pre-qual/:facilityId/:reportId';

export const PREQUAL_FORMATS = ['html', 'json', 'operation-outcome'] as const;
export type PreQualFormat = (typeof PREQUAL_FORMATS)[number];

const MEDIA_TYPES: Record<PreQualFormat, string> = {
  html: 'text/html',
  json: 'application/json',
  'operation-outcome': 'application/fhir+json',
};

/** Longest facility or report id accepted (the results store's column length). */
const MAX_ID_LENGTH = 255;

export interface PreQualRouteDependencies extends Omit<PreQualSources, 'onMetadataError'> {
  readonly logger?: Logger;
  /** Also answer the original's `/api/pre-qual/{facilityId}/{reportId}`; default true. */
  readonly legacyPath?: boolean;
}

export function preQualRoutes(openApi: OpenApiBuilder, deps: PreQualRouteDependencies): Router {
  const router = Router();
  const schemas = preQualSchemas(openApi);
  const sources: PreQualSources = {
    ...deps,
    onMetadataError: (error, facilityId, reportId) =>
      deps.logger?.warn({ err: error, facilityId, reportId }, 'report service metadata unavailable for the pre-qualification report'),
  };
  const paths = deps.legacyPath === false ? [PREQUAL_PATH] : [PREQUAL_PATH, LEGACY_PREQUAL_PATH];

  for (const path of paths) {
    const legacy = path === LEGACY_PREQUAL_PATH;
    openApi.registerPath({
      method: 'get', path, tags: ['Results'],
      // Link Cloud's own path stays as it is (its admin UI uses it): documented, not deprecated.
      summary: legacy ? 'Pre-qualification report (Link Cloud\'s path)' : 'Pre-qualification report of a facility and report',
      description: 'The verdict (pre-qualified when no issue falls in a category that is not acceptable and no error or fatal issue is '
        + 'uncategorized, over every issue of the report), the categories with their counts and the issues grouped by message. '
        + 'HTML by default: a self-contained page (no external resources; strict Content-Security-Policy), sortable and filterable. '
        + '`format` (or `Accept`) chooses JSON (the same model) or a FHIR OperationOutcome (one issue per message group).',
      request: {
        params: z.object({ facilityId: z.string().max(MAX_ID_LENGTH), reportId: z.string().max(MAX_ID_LENGTH) }),
        query: z.object({
          severity: z.enum(ISSUE_SEVERITIES).optional().openapi({ description: 'Minimum severity shown in the tables (any case); default information' }),
          format: z.enum(PREQUAL_FORMATS).optional().openapi({ description: 'Overrides the Accept header' }),
        }),
      },
      responses: {
        200: {
          description: 'The report',
          content: {
            'text/html': { schema: z.string().openapi({ description: 'Self-contained HTML page' }) },
            'application/json': { schema: schemas.report },
            'application/fhir+json': { schema: schemas.operationOutcome },
          },
        },
        ...openApi.problemResponses(400, 404, 406, 500),
      },
    });
    router.get(path, async (req, res) => {
      // Both are single segments of every path this serves; anything else reads as empty, refused by checkId.
      const facilityId = typeof req.params.facilityId === 'string' ? req.params.facilityId : '';
      const reportId = typeof req.params.reportId === 'string' ? req.params.reportId : '';
      checkId('facilityId', facilityId);
      checkId('reportId', reportId);
      const minimumSeverity = minimumSeverityOf(req);
      const format = formatOf(req);
      const report = await generatePreQualReport(sources, { facilityId, reportId, ...(minimumSeverity ? { minimumSeverity } : {}) });
      if (!report) throw HttpProblem.notFound(`No results found for facility "${facilityId}" and report "${reportId}"`);
      send(res, report, format);
    });
  }
  return router;
}

function checkId(name: string, value: string): void {
  if (value.trim() === '' || value.length > MAX_ID_LENGTH) {
    throw HttpProblem.badRequest(`${name} must be 1 to ${MAX_ID_LENGTH} characters`, [{ field: name, message: `must be 1 to ${MAX_ID_LENGTH} characters` }]);
  }
}

function minimumSeverityOf(req: Request): IssueSeverity | undefined {
  const text = singleQueryValue(req.query, 'severity');
  if (text === undefined || text.trim() === '') return undefined;
  return parseSeverity(text); // UnknownSeverityError: 400 naming `severity`, from the app's error handler
}

function formatOf(req: Request): PreQualFormat {
  const requested = singleQueryValue(req.query, 'format')?.trim().toLowerCase();
  if (requested) {
    const known = PREQUAL_FORMATS.find((format) => format === requested);
    if (known !== undefined) return known;
    throw HttpProblem.badRequest(`Unknown format "${requested.slice(0, 40)}"; use one of ${PREQUAL_FORMATS.join(', ')}`,
      [{ field: 'format', message: `must be one of ${PREQUAL_FORMATS.join(', ')}` }]);
  }
  // No Accept header accepts anything: the first (HTML) wins, as it does for */*.
  const accepted = req.accepts(Object.values(MEDIA_TYPES));
  const format = PREQUAL_FORMATS.find((candidate) => MEDIA_TYPES[candidate] === accepted);
  if (!format) {
    throw new HttpProblem(406, 'not-acceptable', 'Not acceptable',
      `The report is available as ${Object.values(MEDIA_TYPES).join(', ')}; use Accept or the format parameter`);
  }
  return format;
}

function send(res: Response, report: PreQualReport, format: PreQualFormat): void {
  res.vary('Accept');
  // Results can quote patient data: never cached by shared caches or the browser.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (format === 'json') {
    res.json(report);
    return;
  }
  if (format === 'operation-outcome') {
    res.type('application/fhir+json').send(JSON.stringify(renderPreQualOperationOutcome(report)));
    return;
  }
  res.setHeader('Content-Security-Policy', PAGE_CONTENT_SECURITY_POLICY_HEADER);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Content-Disposition', `inline; filename="${fileName(report)}"`);
  res.type('text/html; charset=utf-8').send(renderPreQualHtml(report));
}

/** A file name made only of safe characters (ids may contain anything a URL segment can). */
function fileName(report: PreQualReport): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  return `pre-qualification-${safe(report.facilityId)}-${safe(report.reportId)}.html`;
}
