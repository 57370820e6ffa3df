/**
 *   POST /api/result/{facilityId}/{reportId}/$recategorize   201 the job (and jobId), Location: /api/jobs/{jobId}
 *   POST /api/result/{facilityId}/{reportId}/$revalidate     201 (same); 404 when the report has nothing stored
 *   GET  /api/jobs/{jobId}                                   200 the job with its progress; 404 unknown; 400 Invalid Id format (not a UUID)
 * The POSTs create a job resource, hence 201 + Location (shared API conventions, POST creating a
 * resource). `/api/jobs` is this project's route, plural by the conventions; `/api/job/{jobId}`,
 * its earlier path, answers for one release (deprecated).
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpProblem, renamedRoutes, requireUuidParams, sendCreated, type OpenApiBuilder } from '#adapters/http/index.js';
import { REPORT_JOB_KINDS, REPORT_JOB_STATUSES, type ReportJobKind } from '../../domain/report-jobs/report-job.js';
import type { ReportJobService } from '../../application/report-jobs/report-job-service.js';

/** Longest facility or report id (the results store's column length). */
const MAX_ID_LENGTH = 255;
const ReportParams = z.object({ facilityId: z.string().max(MAX_ID_LENGTH), reportId: z.string().max(MAX_ID_LENGTH) });

export function reportJobRoutes(openApi: OpenApiBuilder, jobs: Pick<ReportJobService, 'submit' | 'get'>): Router {
  const router = Router();
  router.use(renamedRoutes(openApi, [{ from: '/api/job/:jobId', to: '/api/jobs/:jobId' }]));
  // Job ids are UUIDs (shared API conventions: "Invalid Id format" for any other id).
  requireUuidParams(router, ['jobId']);
  const tags = ['Report jobs'];
  const status = z.enum(REPORT_JOB_STATUSES);
  const job = openApi.register('ReportJob', z.object({
    id: z.uuid(), kind: z.enum(REPORT_JOB_KINDS), facilityId: z.string(), reportId: z.string(), status,
    total: z.number().int().openapi({ description: 'Patients to process' }),
    done: z.number().int().openapi({ description: 'Patients processed, successfully or not' }),
    errors: z.number().int().openapi({ description: 'Patients that failed' }),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(), updatedAt: z.iso.datetime(),
  }));
  const created = openApi.register('ReportJobCreated', job.extend({ jobId: z.uuid().openapi({ description: 'The same as id (the field the first answer of these operations had)' }) }));

  const operations: { kind: ReportJobKind; summary: string; description: string }[] = [
    {
      kind: 'recategorize', summary: 'Re-categorize the stored results of a report (background job)',
      description: 'Applies the latest category rules to every stored result of the report, replacing their category links and each patient\'s '
        + 'stored verdict. Does not validate again. A patient whose verdict (valid or not) changes gets a ValidationComplete with the new verdict; '
        + 'other changes of its categories are not announced (read them from the results). 404 when the report has no stored results.',
    },
    {
      kind: 'revalidate', summary: 'Re-validate every patient of a report (background job)',
      description: 'Runs the validation flow again for every patient with a stored outcome: fetch from the report service, validate, categorize, '
        + 'store, and ValidationComplete per patient (only when the outcome differs from the one last announced). 404 when no patient is known.',
    },
  ];
  for (const operation of operations) {
    const path = `/api/result/:facilityId/:reportId/$${operation.kind}`;
    openApi.registerPath({
      method: 'post', path, tags, summary: operation.summary, description: operation.description,
      request: { params: ReportParams },
      responses: {
        201: {
          description: 'The job was created (queued); follow Location for its progress',
          headers: { Location: { description: '/api/jobs/{jobId}', schema: { type: 'string' } } },
          content: { 'application/json': { schema: created } },
        },
        ...openApi.problemResponses(400, 404, 500),
      },
    });
    router.post(path, async (req: Request<{ facilityId: string; reportId: string }>, res: Response) => {
      const params = ReportParams.safeParse(req.params);
      if (!params.success) throw HttpProblem.badRequest(`facilityId and reportId must be at most ${MAX_ID_LENGTH} characters`);
      // Nothing stored for the report: the service's NotFoundError is the 404.
      const submitted = await jobs.submit(operation.kind, params.data.facilityId, params.data.reportId);
      sendCreated(res, `/api/jobs/${submitted.id}`, { ...submitted, jobId: submitted.id });
    });
  }

  openApi.registerPath({
    method: 'get', path: '/api/jobs/:jobId', tags, summary: 'Get a report job with its progress',
    description: 'A job cut off by a restart of its instance is resumed (by that instance once restarted, or by another) from the last patient '
      + 'before which all were done; one cut off three times fails with lastError "interrupted by a restart".',
    request: { params: z.object({ jobId: z.string() }) },
    responses: { 200: { description: 'The job', content: { 'application/json': { schema: job } } }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.get('/api/jobs/:jobId', async (req: Request<{ jobId: string }>, res: Response) => {
    const found = await jobs.get(req.params.jobId);
    if (!found) throw HttpProblem.notFound(`No job ${req.params.jobId}`);
    res.json(found);
  });
  return router;
}
