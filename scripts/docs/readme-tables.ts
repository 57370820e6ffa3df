/**
 * Generates the reference tables of the documentation from the code that defines them, so the
 * documentation cannot drift: configuration (each service's setting declarations) in
 * docs/configuration.md, routes (the services' OpenAPI registrations) and events (contracts/catalog.ts)
 * in docs/api.md. The README for users has no generated tables; it points to these documents.
 *
 *   npx tsx scripts/docs/readme-tables.ts          # rewrite the generated sections of those documents
 *   npx tsx scripts/docs/readme-tables.ts --check  # exit 1 when one is stale (a test runs this check)
 *
 * Generated sections sit between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeConfig, loadConfig, toMarkdownTable } from '#adapters/config/index.js';
import { catalog } from '#contracts/catalog.js';
import { gatewaySchema } from '#gateway/config.js';
import { validationSchema } from '#validation/config.js';
import { tenantServiceSchema } from '#tenant/service-schema.js';
import express from 'express';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createTenantModule } from '#tenant/composition.js';
import { registerSigningKeyOpenApi } from '#tenant/signing-keys/adapters/http.js';
import { createValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { validationConfigurationRoutes } from '#validation/adapters/http/validation-configuration-routes.js';
import { preQualRoutes } from '#validation/adapters/prequal/index.js';
import { reportJobRoutes } from '#validation/adapters/report-jobs/report-job-routes.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Which generated sections each document holds (paths relative to the project). */
export const GENERATED_DOCUMENTS: Record<string, readonly string[]> = {
  'docs/configuration.md': ['config'],
  'docs/api.md': ['routes', 'events'],
};

const PRODUCERS: Record<string, string> = {
  ReadyForValidation: 'report service → **validation**',
  ValidationComplete: '**validation** → report service',
  ValidateValueSetCode: '**validation** → terminology service (request-reply)',
  ValidateCodeSystemCode: '**validation** → terminology service (request-reply)',
  ReportScheduled: '**tenant** scheduler → query dispatch, report service',
  AuditableEventOccurred: '**tenant** → audit service',
  GenerateReportRequested: '**tenant** → report service',
  ResourceEvaluated: 'measure evaluation → report service',
  MeasureReportGenerated: 'measure evaluation → report service (alias of ResourceEvaluated)',
  ResourceAcquired: 'data acquisition → normalization',
  GetFacilitiesList: 'any service → **tenant** (request-reply)',
  GetFacilityConfig: 'any service → **tenant** (request-reply)',
  GetServiceInfo: 'any service → **tenant** (request-reply)',
  SignClientAssertion: 'data acquisition → **tenant** (request-reply; for a configured EHR connection only)',
};

/**
 * The OpenAPI documents of the services, built from the same route registrations the services use,
 * with inert dependencies (nothing is called while routes are registered).
 */
export function serviceOpenApiDocuments(): { service: string; component: string; document: { paths?: Record<string, Record<string, { summary?: string }>> } }[] {
  const inert = {} as never;
  const tenant = new OpenApiBuilder({ title: 'Tenant service API', version: '1.0.0' });
  // The defaults (an empty environment) are a valid tenant configuration.
  createTenantModule({ orm: inert, logger: silentLogger(), config: { ...loadConfig(tenantServiceSchema, {}), schedulerEnabled: false } })
    .register(express(), tenant);
  registerSigningKeyOpenApi(tenant);
  const validation = new OpenApiBuilder({ title: 'Validation service API', version: '1.0.0' });
  preQualRoutes(validation, { results: inert, categories: inert });
  createValidationApiModule({ repositories: pgValidationApiRepositories(inert), openApi: validation, validator: inert });
  validationConfigurationRoutes(validation, inert);
  reportJobRoutes(validation, inert);
  return [
    { service: 'Validation service', component: 'validation', document: validation.document() as never },
    { service: 'Tenant service', component: 'tenant', document: tenant.document() as never },
  ];
}

export function routeTables(): string {
  return serviceOpenApiDocuments().map(({ service, component, document }) => {
    const rows = Object.entries(document.paths ?? {}).flatMap(([route, item]) => Object.entries(item).map(([method, op]) => {
      const external = route.startsWith('/api/') ? route.replace(/^\/api\//, `/api/${component}/`) : route;
      return `| ${method.toUpperCase()} | \`${route}\` | \`${external}\` | ${op.summary ?? ''} |`;
    }));
    return `### ${service}\n\n| Method | Service route | Through the gateway | Operation |\n|---|---|---|---|\n${rows.join('\n')}`;
  }).join('\n\n');
}

export function generatedSections(): Record<string, string> {
  const config = [
    ['Validation service', validationSchema],
    ['Tenant service', tenantServiceSchema],
    ['Admin gateway', gatewaySchema],
  ] as const;
  const configSection = config
    .map(([title, schema]) => `## ${title}\n\n${toMarkdownTable(describeConfig(schema as Parameters<typeof describeConfig>[0]))}`)
    .join('\n\n');

  const events = ['| Message | Kind | Subject | Stream | Schema version | Direction |', '|---|---|---|---|---|---|',
    ...catalog.messages.map((m) =>
      `| ${m.name} | ${m.kind} | \`${m.subject}\` | ${m.stream ?? '— (request-reply)'} | ${m.version} | ${PRODUCERS[m.name] ?? ''} |`)].join('\n');

  return { config: configSection, events, routes: routeTables() };
}

/** The document with its generated sections (those GENERATED_DOCUMENTS names for it) rewritten. */
export function renderDocument(document: string, current: string): string {
  const sections = generatedSections();
  let text = current;
  for (const name of GENERATED_DOCUMENTS[document] ?? []) {
    const start = `<!-- generated:${name} -->`;
    const end = `<!-- /generated:${name} -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from === -1 || to === -1) throw new Error(`${document} has no generated section "${name}"`);
    text = `${text.slice(0, from + start.length)}\n${sections[name]}\n${text.slice(to)}`;
  }
  return text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const document of Object.keys(GENERATED_DOCUMENTS)) {
    const file = path.join(projectRoot, document);
    const current = readFileSync(file, 'utf8');
    const next = renderDocument(document, current);
    if (next === current) continue;
    if (process.argv.includes('--check')) {
      process.stderr.write(`${document} is stale: run \`npx tsx scripts/docs/readme-tables.ts\`\n`);
      process.exitCode = 1;
    } else {
      writeFileSync(file, next);
    }
  }
}
