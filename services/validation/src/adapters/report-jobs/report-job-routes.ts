/**
 *   POST /api/result/{facilityId}/{reportId}/$recategorize   202 { jobId, status }, Location: /api/job/{jobId}
 *   POST /api/result/{facilityId}/{reportId}/$revalidate     202 (same); 404 when the report has nothing stored
 *   GET  /api/job/{jobId}                                    200 the job with its progress; 404 unknown; 400 Invalid Id format (not a UUID)
 */
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpProblem, requireUuidParams, type OpenApiBuilder } from '#adapters/http/index.js';
import { REPORT_JOB_KINDS, REPORT_JOB_STATUSES, type ReportJobKind } from '../../application/report-jobs/report-job.js';
import type { ReportJobService } from '../../application/report-jobs/report-job-service.js';

/** Longest facility or report id (the results store's column length). */
const MAX_ID_LENGTH = 255;
const ReportParams = z.object({ facilityId: z.string().max(MAX_ID_LENGTH), reportId: z.string().max(MAX_ID_LENGTH) });

export function reportJobRoutes(openApi: OpenApiBuilder, jobs: Pick<ReportJobService, 'submit' | 'get'>): Router {
  const router = Router();
  // Job ids are UUIDs (shared API conventions: "Invalid Id format" for any other id).
  requireUuidParams(router, ['jobId']);
  const tags = ['Report jobs'];
  const status = z.enum(REPORT_JOB_STATUSES);
  const accepted = openApi.register('ReportJobAccepted', z.object({ jobId: z.uuid(), status }));
  const job = openApi.register('ReportJob', z.object({
    id: z.uuid(), kind: z.enum(REPORT_JOB_KINDS), facilityId: z.string(), reportId: z.string(), status,
    total: z.number().int().openapi({ description: 'Patients to process' }),
    done: z.number().int().openapi({ description: 'Patients processed, successfully or not' }),
    errors: z.number().int().openapi({ description: 'Patients that failed' }),
    lastError: z.string().nullable(),
    createdAt: z.iso.datetime(), updatedAt: z.iso.datetime(),
  }));

  const operations: { kind: ReportJobKind; summary: string; description: string }[] = [
    {
      kind: 'recategorize', summary: 'Re-categorize the stored results of a report (background job)',
      description: 'Applies the latest category rules to every stored result of the report, replacing their category links and each patient\'s '
        + 'stored verdict. Does not validate again and emits no ValidationComplete. 404 when the report has no stored results.',
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
        202: {
          description: 'Accepted; follow Location for the progress',
          headers: { Location: { description: '/api/job/{jobId}', schema: { type: 'string' } } },
          content: { 'application/json': { schema: accepted } },
        },
        ...openApi.problemResponses(400, 404, 500),
      },
    });
    router.post(path, async (req: Request<{ facilityId: string; reportId: string }>, res: Response) => {
      const params = ReportParams.safeParse(req.params);
      if (!params.success) throw HttpProblem.badRequest(`facilityId and reportId must be at most ${MAX_ID_LENGTH} characters`);
      // Nothing stored for the report: the service's NotFoundError is the 404.
      const submitted = await jobs.submit(operation.kind, params.data.facilityId, params.data.reportId);
      res.status(202).location(`/api/job/${submitted.id}`).json({ jobId: submitted.id, status: submitted.status });
    });
  }

  openApi.registerPath({
    method: 'get', path: '/api/job/:jobId', tags, summary: 'Get a report job with its progress',
    description: 'A job interrupted by a restart of its instance ends as failed with lastError "interrupted by a restart".',
    request: { params: z.object({ jobId: z.string() }) },
    responses: { 200: { description: 'The job', content: { 'application/json': { schema: job } } }, ...openApi.problemResponses(400, 404, 500) },
  });
  router.get('/api/job/:jobId', async (req: Request<{ jobId: string }>, res: Response) => {
    const found = await jobs.get(req.params.jobId);
    if (!found) throw HttpProblem.notFound(`No job ${req.params.jobId}`);
    res.json(found);
  });
  return router;
}
