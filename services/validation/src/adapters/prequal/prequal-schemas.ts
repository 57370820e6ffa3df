import { z } from 'zod';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { ISSUE_GROUP_EXTENSION, VERDICT_EXTENSION } from './prequal-operation-outcome.js';

/** OpenAPI components of the pre-qualification report (JSON model and OperationOutcome). */
export function preQualSchemas(openApi: OpenApiBuilder) {
  const IssueSeverity = z.enum(['information', 'warning', 'error', 'fatal']);
  const report = openApi.register('PreQualificationReport', z.object({
    facilityId: z.string(),
    reportId: z.string(),
    generatedAt: z.string().openapi({ format: 'date-time' }),
    metadata: z.object({
      measures: z.array(z.string()),
      periodStart: z.string().optional(),
      periodEnd: z.string().optional(),
      submittedAt: z.string().optional(),
    }).optional().openapi({ description: 'From the report service, when it could tell' }),
    metadataNote: z.string().optional().openapi({ description: 'Why the metadata is missing' }),
    minimumSeverity: IssueSeverity,
    verdict: z.object({
      preQualified: z.boolean().openapi({ description: 'No issue in a category that is not acceptable, and no uncategorized error or fatal issue (over every issue, whatever the minimum severity)' }),
      issueCount: z.number().int(),
      unacceptableIssueCount: z.number().int(),
      uncategorizedErrorCount: z.number().int(),
      uncategorizedIssueCount: z.number().int(),
    }),
    shown: z.object({ issueCount: z.number().int(), messageCount: z.number().int(), patientCount: z.number().int() })
      .openapi({ description: 'Counts of the issues at or above the minimum severity' }),
    categories: z.array(z.object({
      id: z.string(), title: z.string(), severity: z.enum(['ERROR', 'WARNING', 'INFORMATION']), acceptable: z.boolean(), guidance: z.string(),
      count: z.number().int(),
      blocking: z.boolean().openapi({ description: 'These issues stop pre-qualification' }),
    })),
    issues: z.array(z.object({
      message: z.string(), severity: IssueSeverity, code: z.string(), count: z.number().int(), patientCount: z.number().int(),
      categoryIds: z.array(z.string()), expressions: z.array(z.string()).openapi({ description: 'Up to 5 sample locations' }),
    })).openapi({ description: 'Issues grouped by identical message, most frequent first' }),
  }));
  const operationOutcome = openApi.register('PreQualificationOperationOutcome', z.object({
    resourceType: z.literal('OperationOutcome'),
    extension: z.array(z.record(z.string(), z.unknown())).openapi({ description: `${VERDICT_EXTENSION}: facilityId, reportId, preQualified, issueCount, minimumSeverity` }),
    issue: z.array(z.record(z.string(), z.unknown())).openapi({ description: `One per message group; ${ISSUE_GROUP_EXTENSION}: category (repeated) and count` }),
  }).openapi({ description: 'FHIR R4 OperationOutcome' }));
  return { report, operationOutcome };
}
