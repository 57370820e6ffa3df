import { z } from 'zod';
import type { OpenApiBuilder } from '#adapters/http/index.js';
import { MAX_GUIDANCE_LENGTH, MAX_ID_LENGTH, MAX_TITLE_LENGTH } from '../../domain/categorization/category.js';

/** Zod schemas of the validation API's representations, registered as OpenAPI components. */
export function validationApiSchemas(openApi: OpenApiBuilder) {
  const CategorySeverity = z.enum(['ERROR', 'WARNING', 'INFORMATION']);
  const IssueSeverity = z.enum(['information', 'warning', 'error', 'fatal']);

  const Matcher = openApi.register('Matcher', z.record(z.string(), z.unknown()).openapi({
    description: 'A RegexMatcher `{field: MESSAGE|SEVERITY|CODE|EXPRESSION|MESSAGE_ID, regex, inverted?}` (MESSAGE_ID: the HL7 validator\'s message id of the issue) or a CompositeMatcher '
      + '`{children: Matcher[] (non-empty), requiresAllChildren: boolean, inverted?}`, nested to any depth. Regexes use RE2 syntax '
      + '(linear time; Java identity escapes such as \\\' and \\: are accepted) and are searched unanchored (Java find()). '
      + 'SEVERITY and CODE compare FHIR codes (`error`, `code-invalid`).',
    example: { children: [{ field: 'SEVERITY', regex: '^error$' }, { field: 'MESSAGE', regex: 'minimum required' }], requiresAllChildren: true },
  }));

  const Category = openApi.register('Category', z.object({
    id: z.string().max(MAX_ID_LENGTH).openapi({ example: 'missing_required_element' }),
    title: z.string().max(MAX_TITLE_LENGTH),
    severity: CategorySeverity,
    acceptable: z.boolean().openapi({ description: 'Issues only in acceptable categories do not make a submission invalid' }),
    guidance: z.string().max(MAX_GUIDANCE_LENGTH),
  }));

  const CategoryWithMatcher = openApi.register('CategoryWithMatcher', Category.extend({
    matcher: Matcher.nullable().openapi({ description: 'The current (latest) rule\'s matcher; null while the category has no rule' }),
  }).openapi({ description: 'The specification\'s Category JSON shape: id, title, severity, acceptable, guidance, matcher' }));

  const CategoryInput = openApi.register('CategoryInput', Category.extend({
    matcher: Matcher.nullable().optional().openapi({ description: 'When given, becomes the latest rule (unless it already is); when left out, the rules stay as they are' }),
  }));

  const CategorySnapshot = openApi.register('CategorySnapshot', Category.extend({ matcher: Matcher }).openapi({
    description: 'A category with its current matcher: the editable shape of export, import and the bundled defaults',
  }));

  const CategoryRule = openApi.register('CategoryRule', z.object({
    id: z.number().int().openapi({ description: 'Auto-incremented rule id (used to delete the rule)' }),
    categoryId: z.string(),
    matcher: Matcher,
    timestamp: z.string().openapi({ format: 'date-time' }),
  }));

  const ImportOutcome = openApi.register('CategoryImportOutcome', z.object({
    created: z.number().int(), updated: z.number().int(), rulesAdded: z.number().int(), deleted: z.number().int(),
  }));

  const ArtifactSummary = openApi.register('Artifact', z.object({
    id: z.number().int(),
    type: z.enum(['RESOURCE', 'PACKAGE']),
    name: z.string().max(255),
    packageName: z.string().optional(),
    version: z.string().optional(),
    fhirVersion: z.string().optional(),
    resourceType: z.string().optional(),
    url: z.string().optional(),
    size: z.number().int().openapi({ description: 'Content size in bytes' }),
    updatedAt: z.string().openapi({ format: 'date-time' }),
  }));

  const CanonicalRef = z.object({ url: z.string(), version: z.string().optional(), name: z.string().optional() });
  const PackageDetails = openApi.register('PackageDetails', z.object({
    packageId: z.string(), name: z.string(), version: z.string(), fhirVersion: z.string(),
    resourceCounts: z.record(z.string(), z.number().int()),
    dependencies: z.array(z.object({
      name: z.string(), version: z.string(), status: z.enum(['present', 'built-in', 'other-version', 'missing']).openapi({ description: 'present: stored with this version; built-in: the engine has it without artifacts (FHIR R4 core); other-version: stored or built in with another version (storedVersion); missing: not available' }),
      storedVersion: z.string().optional(),
    })),
    profiles: z.array(CanonicalRef), valueSets: z.array(CanonicalRef), codeSystems: z.array(CanonicalRef),
  }));

  const ArtifactWithDetails = openApi.register('ArtifactWithDetails', ArtifactSummary.extend({ details: PackageDetails.optional() }));

  const TerminologyDependency = openApi.register('TerminologyDependency', z.object({
    kind: z.enum(['ValueSet', 'CodeSystem']),
    url: z.string(),
    availability: z.enum(['local', 'remote', 'missing']),
    providedBy: z.array(z.string()),
    usedBy: z.number().int(),
    strongestStrength: z.string().optional(),
  }));

  const InitializationReport = openApi.register('ArtifactInitializationReport', z.object({
    stored: z.array(z.object({
      file: z.string(), source: z.string().openapi({ description: 'embedded (the IG packages shipped with the service) or artifact.init-dir' }),
      type: z.enum(['RESOURCE', 'PACKAGE']), name: z.string(), created: z.boolean(),
    })),
    failed: z.array(z.object({ file: z.string(), source: z.string(), reason: z.string() })),
  }));

  const OperationOutcome = openApi.register('OperationOutcome', z.object({
    resourceType: z.literal('OperationOutcome'),
    issue: z.array(z.record(z.string(), z.unknown())),
  }).openapi({ description: 'FHIR R4 OperationOutcome' }));

  const CategoryRef = Category;
  const Issue = openApi.register('ValidationIssue', z.object({
    severity: IssueSeverity,
    code: z.string().openapi({ example: 'code-invalid' }),
    message: z.string(),
    expression: z.string().optional(),
    location: z.string().optional(),
    messageId: z.string().optional(),
  }));
  const CategorizedIssue = openApi.register('CategorizedIssue', Issue.extend({ categories: z.array(CategoryRef) }));
  const MessageCount = openApi.register('MessageCount', z.object({ value: z.string(), count: z.number().int() }));
  const CategoryCount = openApi.register('CategoryCount', z.object({
    categoryId: z.string(), title: z.string(), severity: CategorySeverity, acceptable: z.boolean(), count: z.number().int(),
  }));
  const Validity = openApi.register('ValidityVerdict', z.object({
    valid: z.boolean().openapi({ description: 'No issue in a category that is not acceptable, and no uncategorized error or fatal issue' }),
    unacceptableIssueCount: z.number().int(),
    uncategorizedErrorCount: z.number().int(),
    uncategorizedIssueCount: z.number().int(),
  }));
  const CompositeValidation = openApi.register('CompositeValidation', z.object({
    outcome: OperationOutcome,
    issues: z.array(CategorizedIssue),
    summary: z.object({ byCategory: z.array(CategoryCount), byMessage: z.array(MessageCount) }),
    validity: Validity,
  }));
  const CategorizeResult = z.object({
    severity: z.string().optional(), code: z.string().optional(), message: z.string().optional(), expression: z.string().optional(),
  }).catchall(z.unknown());
  const CategorizeRequest = z.union([
    z.array(CategorizeResult),
    z.object({ results: z.array(CategorizeResult), categories: z.array(CategorySnapshot).optional() }),
  ]).openapi({ description: 'Results to categorize; with `categories`, those rules are used instead of the stored ones (nothing is stored)' });

  const StoredResult = openApi.register('ValidationResult', Issue.extend({
    id: z.number().int(), facilityId: z.string(), reportId: z.string(), patientId: z.string(), categories: z.array(CategoryRef),
  }));
  const PageMetadata = z.object({ pageSize: z.number().int(), pageNumber: z.number().int(), totalCount: z.number().int(), totalPages: z.number().int() });
  const PagedResults = openApi.register('PagedValidationResults', z.object({ records: z.array(StoredResult), metadata: PageMetadata }));
  const CategoryWithCount = openApi.register('CategoryWithCount', Category.extend({ count: z.number().int() }));

  return {
    Matcher, Category, CategoryWithMatcher, CategoryInput, CategorySnapshot, CategoryRule, ImportOutcome, ArtifactSummary, ArtifactWithDetails, PackageDetails,
    TerminologyDependency, InitializationReport, OperationOutcome, CategorizedIssue, MessageCount, CategoryCount,
    CompositeValidation, CategorizeRequest, CategorizeResult, PagedResults, CategoryWithCount,
    StoredValidity: openApi.register('StoredResultsValidity', Validity.extend({ issueCount: z.number().int() })),
  };
}

export type ValidationApiSchemas = ReturnType<typeof validationApiSchemas>;
