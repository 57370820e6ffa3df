/**
 * Architecture rules on RESOLVED paths (dependency-cruiser), complementing ESLint's import-string
 * rules: an import is judged by the file it reaches, whatever alias, relative path or re-export
 * it goes through. See docs/architecture.md ("Rings and the lint ratchet").
 *
 * Rings: a service's domain (and the shared kernel) depends on nothing outer; its application on
 * its domain only; no service reaches into another; the shared adapters belong to no service; no
 * cycles. Violations that existed when a rule was introduced are listed in
 * .dependency-cruiser-known-violations.json and may only go away (npm run lint fails on a new one).
 */
const DOMAIN = '^services/[^/]+/src/(?:signing-keys/)?domain/';
const APPLICATION = '^services/[^/]+/src/(?:signing-keys/)?application/';
const KERNEL = '^services/shared-kernel/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-depends-on-nothing-outer',
      comment: 'Domain code (and the shared kernel) imports only domain code, the shared kernel and the event contracts: never an application service, an adapter, the CLI or the wiring.',
      severity: 'error',
      from: { path: [DOMAIN, KERNEL] },
      to: { path: '^(services|adapters)/', pathNot: [DOMAIN, KERNEL] },
    },
    {
      name: 'inner-rings-use-no-infrastructure-library',
      comment: 'Domain and application code: frameworks, drivers and brokers are adapters\' business.',
      severity: 'error',
      from: { path: [DOMAIN, KERNEL, APPLICATION] },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: 'node_modules/(express|pg|kysely|@mikro-orm|@nats-io|keyv|@keyv|ioredis|redis|piscina|swagger-ui-express)/' },
    },
    {
      name: 'application-depends-on-domain-only',
      comment: 'Application code orchestrates its domain through ports (and reads its bundled resources); a logger or metrics it needs is a port too.',
      severity: 'error',
      from: { path: APPLICATION },
      to: { path: '^(services|adapters)/', pathNot: [DOMAIN, APPLICATION, KERNEL, '^services/[^/]+/src/resources/'] },
    },
    {
      name: 'no-service-reaches-into-another',
      comment: 'Services talk through events and HTTP, never through each other\'s code (the shared kernel and the shared adapters are for all).',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: ['^services/$1/', KERNEL] },
    },
    {
      name: 'shared-adapters-belong-to-no-service',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^services/', pathNot: KERNEL },
    },
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one; break it with a port or by moving the shared part down.',
      severity: 'error',
      from: { path: '^(services|adapters|contracts)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)test/', '\\.spec\\.ts$', '^dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
