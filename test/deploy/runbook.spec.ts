import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeConfig, envVarCandidates } from '#adapters/config/index.js';
import { serviceOpenApiDocuments } from '#scripts/docs/readme-tables.js';
import { specOf, type WorkloadSpec } from '#scripts/deploy/k8s-model.js';
import { renderKustomization } from '#scripts/deploy/kustomize.js';
import { natsUsers, passwordVariable } from '#scripts/deploy/nats-accounts.js';
import { PLATFORM_SERVICES } from '#scripts/deploy/platform-services.js';
import { catalog } from '#contracts/catalog.js';
import { MAX_MAIN_THREAD_MATCHING_COST } from '#validation/application/validation-api-service.js';
import { MAX_MATCHED_CHARACTERS, MAX_RULE_PROGRAM_SIZE } from '#validation/domain/categorization/matcher.js';

/** Keeps docs/operations.md and deploy/README.md pointing at things that exist. */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const runbook = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
const deployReadme = readFileSync(path.join(root, 'deploy/README.md'), 'utf8');
const code = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

/** Variables the runbook may name that are not configuration properties of a service (the NATS server's password variables among them). */
const OTHER_VARIABLES = new Set([
  'NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'NATS_URL', 'NATS_PASS', 'PGHOST', 'TOKEN', 'DEAD_LETTER',
  'NHSN_LOCAL_TRIAL_HOME', // where npm start keeps the local trial's master key (scripts/local-master-key.ts), not a service setting
  ...natsUsers(catalog).map((user) => passwordVariable(user.user)),
  // limits fixed in code, which the runbook names beside their values (imported, so a rename breaks this list)
  ...Object.keys({ MAX_RULE_PROGRAM_SIZE, MAX_MATCHED_CHARACTERS, MAX_MAIN_THREAD_MATCHING_COST }),
]);

/**
 * Every gateway route a text names (`POST /api/validation/...`, or a URL `https://…/api/tenant/...`):
 * the method when it stands before the path, the component and the service's own path.
 */
function namedRoutes(text: string): { method?: string; component: string; servicePath: string; quoted: string }[] {
  return [...text.matchAll(/(?:\b(GET|POST|PUT|DELETE|PATCH) )?(?:https:\/\/[\w.-]+)?\/api\/(validation|tenant)(\/[^\s`'"),]*)/g)]
    .filter((m) => !m[3]!.endsWith('...'))
    .map((m) => ({ method: m[1], component: m[2]!, servicePath: `/api${m[3]!.replace(/[.:;]+$/, '')}`, quoted: m[0] }));
}

/** The routes of each service's OpenAPI document (built from the route registrations the services use). */
function serviceRoutes(): Map<string, { method: string; pattern: RegExp; template: string }[]> {
  const routes = new Map<string, { method: string; pattern: RegExp; template: string }[]>();
  for (const { component, document } of serviceOpenApiDocuments()) {
    routes.set(component, Object.entries(document.paths ?? {}).flatMap(([template, item]) => Object.keys(item).map((method) => ({
      method: method.toUpperCase(),
      template,
      // `{param}` is one path segment; the runbook writes it as {param}, <param> or an example value.
      pattern: new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
    }))));
  }
  return routes;
}

describe('deploy: runbook and deploy README', () => {
  it('every repository path they name exists', () => {
    const paths = [...code(runbook), ...code(deployReadme)]
      .map((text) => text.split(/\s/)[0]!)
      .filter((text) => /^(deploy|scripts|adapters|contracts|services|docs|test)\/[\w./-]+$/.test(text) && !text.includes('<'));
    expect(paths.length).to.be.greaterThan(10);
    expect(paths.filter((p) => !existsSync(path.join(root, p.replace(/\/$/, ''))))).to.deep.equal([]);
  });

  it('every upper-case variable the runbook names is a declared setting (or a documented non-setting)', () => {
    const declared = new Set(PLATFORM_SERVICES.flatMap((s) => describeConfig(s.schema).flatMap((row) => envVarCandidates(row.property))));
    const named = new Set(code(runbook).flatMap((text) => text.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? []));
    expect(named.size).to.be.greaterThan(15);
    expect(named).to.include('SIGNING_KEYS_DISABLED_RETENTION');
    expect([...named].filter((v) => !declared.has(v) && !OTHER_VARIABLES.has(v))).to.deep.equal([]);
  });

  it('the Secret table lists exactly the keys the production Deployments and Jobs read from Secrets', () => {
    const table = runbook.slice(runbook.indexOf('| Secret | Key |'), runbook.indexOf('- **A bad value'));
    const documented = new Set(code(table).filter((t) => /^[A-Z][A-Z0-9_]+$/.test(t) && t !== 'NATS_USER'));
    const objects = renderKustomization(path.join(root, 'deploy/overlays/production'));
    const referenced = new Set(objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job').flatMap((d) =>
      (specOf<WorkloadSpec>(d).template?.spec?.containers ?? []).flatMap((c) => c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name)));
    expect([...documented].sort()).to.deep.equal([...referenced].sort());
  });

  it('the dead-letter commands it shows are the CLI\'s commands', () => {
    const cli = readFileSync(path.join(root, 'adapters/messaging/dead-letter-cli.ts'), 'utf8');
    const usage = /const USAGE = '([^']+)'/.exec(cli)![1]!;
    for (const command of ['list', 'show', 'replay', 'remove', '--subject', '--from', '--limit', '--remove']) {
      expect(usage, command).to.include(command);
      expect(runbook, command).to.include(`dead-letter-cli.ts ${command.startsWith('--') ? '' : command}`.trimEnd());
    }
    // The services' variable names (loaded through natsSettings), with the earlier NATS_URL / NATS_PASS as fallbacks.
    expect(cli).to.include('natsSettings()');
    for (const variable of ['NATS_URL', 'NATS_PASS']) expect(cli).to.include(`env.${variable}`);
    for (const variable of ['NATS_SERVERS', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN']) expect(runbook).to.include(`\`${variable}\``);
  });

  it('every API route it names exists in the service it goes to (with that method when one is given)', () => {
    const routes = serviceRoutes();
    const named = namedRoutes(runbook);
    expect(named.length).to.be.greaterThan(20);
    expect(named.map((r) => r.servicePath)).to.include.members(['/api/result/<facilityId>/<reportId>/$revalidate', '/api/jobs/{jobId}']);
    const missing = named.filter(({ method, component, servicePath }) =>
      !(routes.get(component) ?? []).some((route) => route.pattern.test(servicePath) && (!method || route.method === method)));
    expect(missing.map((r) => r.quoted)).to.deep.equal([]);
  });

  it('the route check finds a route that does not exist, a wrong method and a wrong component', () => {
    const routes = serviceRoutes();
    const exists = (text: string) => namedRoutes(text).every(({ method, component, servicePath }) =>
      (routes.get(component) ?? []).some((route) => route.pattern.test(servicePath) && (!method || route.method === method)));
    expect(exists('`POST /api/validation/result/f/r/$revalidate`')).to.equal(true);
    expect(exists('`POST /api/validation/result/f/r/$reprocess`')).to.equal(false);
    expect(exists('`GET /api/validation/jobs/{jobId}`')).to.equal(true);
    expect(exists('`DELETE /api/validation/jobs/{jobId}`')).to.equal(false);
    expect(exists('`POST /api/tenant/result/f/r/$revalidate`')).to.equal(false);
    expect(exists('curl https://nhsn.example.org/api/tenant/service-info')).to.equal(true);
  });
});
