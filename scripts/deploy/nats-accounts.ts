/**
 * The NATS users of the platform and what each may publish and subscribe to, derived from the message
 * catalog (contracts/catalog.ts) so that a subject exists in the permissions exactly as the services
 * use it. `scripts/render-manifests.ts` writes the NATS server configuration to
 * deploy/nats-accounts/accounts.yaml (a ConfigMap whose `accounts.conf` the NATS server includes);
 * test/deploy checks that the committed file equals the rendering and, with a real nats-server, that
 * the permissions let each service do its work and nothing else.
 *
 * Rules:
 * - Only the service that owns a message publishes it (ValidationComplete: validation;
 *   ReadyForValidation: the report service; ReportScheduled, GenerateReportRequested,
 *   AuditableEventOccurred: tenant …); only the responder of a request-reply message subscribes to its
 *   subject (SignClientAssertion and the other tenant queries: tenant alone), and answers through
 *   `allow_responses` (one reply to each request it received, nothing else).
 * - Replies and JetStream deliveries go to per-user inboxes `_INBOX_<user>.>` (the services connect
 *   with that inbox prefix: adapters/messaging/connection.ts), so no user can read another's replies —
 *   signed client assertions included.
 * - JetStream API (`$JS.API.…`): stream management belongs to the `provisioner` user of the
 *   jetstream-provisioning Job (look up, create and update the catalog's streams and the validation
 *   service's durable consumer; never delete or purge). This repository's services run with
 *   nats.provision=false and may only use what it made: tenant publishes its events, validation looks
 *   up, pulls from and acknowledges its own durable consumer. Other teams' services may create and pull
 *   from their own durable consumers by name. No service may manage a stream, delete a consumer, purge,
 *   or touch another's consumer.
 * - Dead letters: a consumer publishes only the dead letters of the subjects it consumes.
 * - `operator` (people with the nats CLI or the dead-letter tool, and the NACK controller) is the
 *   administrator: the whole JetStream API and re-publishing stored subjects (dead-letter replay).
 */
import { stringify } from 'yaml';
import { kebabCase, type Catalog } from '#contracts/catalog.js';

export interface NatsUser {
  readonly user: string;
  readonly description: string;
  /** Deployed by this repository (its Deployment or Job sets NATS_USER to this user). */
  readonly deployedHere: boolean;
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
  /** Answers requests: may publish one reply to the reply subject of each request it received. */
  readonly respondsToRequests: boolean;
}

/** The environment variable of the NATS server holding a user's password (or its bcrypt hash). */
export function passwordVariable(user: string): string {
  return `NATS_PASSWORD_${user.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}

export function inboxOf(user: string): string {
  return `_INBOX_${user}.>`;
}

/** The durable consumer name another team's service uses for a message: `<user>-<message>`. */
export function durableFor(user: string, message: string): string {
  return `${user}-${kebabCase(message)}`;
}

/** What the provisioning Job needs for the catalog's streams (adapters/messaging/provisioning.ts). */
function streamProvisioning(catalog: Catalog): string[] {
  return [
    '$JS.API.INFO',
    ...[...catalog.streams, catalog.deadLetterStream].flatMap((stream) =>
      ['INFO', 'CREATE', 'UPDATE'].map((action) => `$JS.API.STREAM.${action}.${stream.name}`)),
  ];
}

/**
 * A durable pull consumer that the provisioning Job made, as adapters/messaging/consumer-runner.ts
 * uses it with `provision: false`: look it up, pull, acknowledge (progress acks and naks included),
 * and dead-letter what it gives up on.
 */
function provisionedPullConsumer(catalog: Catalog, message: string, durable: string): string[] {
  const contract = catalog.byName(message);
  const stream = contract.stream!;
  return [
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    `$JS.ACK.${stream}.${durable}.>`,
    `${catalog.deadLetterPrefix}.${contract.subject}`,
  ];
}

/** Creating or updating a durable consumer (the provisioning Job; other teams' services for their own). */
function consumerProvisioning(stream: string, durable: string): string[] {
  return [
    `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
  ];
}

/**
 * A durable pull consumer of one message, as adapters/messaging/consumer-runner.ts uses it: look it
 * up, create or update it (with or without filter subject in the API subject), pull, acknowledge, and
 * dead-letter what it gives up on.
 */
function pullConsumer(catalog: Catalog, message: string, durable: string): string[] {
  return unique([...consumerProvisioning(catalog.byName(message).stream!, durable), ...provisionedPullConsumer(catalog, message, durable)]);
}

const subjectOf = (catalog: Catalog, ...messages: string[]) => messages.map((message) => catalog.byName(message).subject);
const TENANT_QUERIES = ['GetFacilitiesList', 'GetFacilityConfig', 'GetServiceInfo'];

/** Another team's service: publishes its messages, pulls with its own durable consumers, asks tenant queries. */
function platformService(catalog: Catalog, user: string, description: string, roles: {
  publishes?: string[]; consumes?: string[]; requests?: string[]; answers?: string[];
}): NatsUser {
  const consumes = roles.consumes ?? [];
  return {
    user, description, deployedHere: false,
    publish: unique([
      ...(consumes.length > 0 || (roles.publishes ?? []).some((message) => catalog.byName(message).stream) ? ['$JS.API.INFO'] : []),
      ...subjectOf(catalog, ...(roles.publishes ?? [])),
      ...subjectOf(catalog, ...(roles.requests ?? [])),
      ...consumes.flatMap((message) => pullConsumer(catalog, message, durableFor(user, message))),
    ]),
    subscribe: [...subjectOf(catalog, ...(roles.answers ?? [])), inboxOf(user)],
    respondsToRequests: (roles.answers ?? []).length > 0,
  };
}

/** Every NATS user, this repository's services first. */
export function natsUsers(catalog: Catalog, options: { validationDurable?: string } = {}): NatsUser[] {
  const root = catalog.subjectRoot;
  const validationDurable = options.validationDurable ?? 'validation-ready-for-validation';
  return [
    {
      user: 'tenant',
      description: 'Tenant service: answers the tenant queries and SignClientAssertion (it alone); publishes ReportScheduled, GenerateReportRequested and AuditableEventOccurred from its outbox',
      deployedHere: true,
      // $JS.API.INFO: the client's JetStream manager asks for the account's JetStream info when it connects.
      publish: ['$JS.API.INFO', ...subjectOf(catalog, 'ReportScheduled', 'GenerateReportRequested', 'AuditableEventOccurred')],
      subscribe: [...subjectOf(catalog, ...TENANT_QUERIES, 'SignClientAssertion'), inboxOf('tenant')],
      respondsToRequests: true,
    },
    {
      user: 'validation',
      description: 'Validation service: pulls ReadyForValidation with its durable consumer, publishes ValidationComplete (it alone), asks the terminology commands; its internal artifact-change subject',
      deployedHere: true,
      publish: unique([
        '$JS.API.INFO',
        ...provisionedPullConsumer(catalog, 'ReadyForValidation', validationDurable),
        ...subjectOf(catalog, 'ValidationComplete', 'ValidateValueSetCode', 'ValidateCodeSystemCode'),
        `${root}.validation.internal.>`,
      ]),
      subscribe: [`${root}.validation.internal.>`, inboxOf('validation')],
      respondsToRequests: false,
    },
    {
      user: 'provisioner',
      description: 'The jetstream-provisioning Job: creates and updates the catalog\'s streams and the validation service\'s durable consumer (never deletes or purges); nothing else',
      deployedHere: true,
      publish: unique([...streamProvisioning(catalog), ...consumerProvisioning(catalog.byName('ReadyForValidation').stream!, validationDurable)]),
      subscribe: [inboxOf('provisioner')],
      respondsToRequests: false,
    },
    platformService(catalog, 'report-service', 'Report service: publishes ReadyForValidation (it alone); consumes ValidationComplete, ReportScheduled, GenerateReportRequested, ResourceEvaluated and MeasureReportGenerated', {
      publishes: ['ReadyForValidation'], consumes: ['ValidationComplete', 'ReportScheduled', 'GenerateReportRequested', 'ResourceEvaluated', 'MeasureReportGenerated'], requests: TENANT_QUERIES,
    }),
    platformService(catalog, 'data-acquisition', 'Data acquisition: asks SignClientAssertion (it alone) to authenticate at EHR token endpoints; publishes ResourceAcquired', {
      publishes: ['ResourceAcquired'], requests: [...TENANT_QUERIES, 'SignClientAssertion'],
    }),
    platformService(catalog, 'query-dispatch', 'Query dispatch: consumes ReportScheduled', { consumes: ['ReportScheduled'], requests: TENANT_QUERIES }),
    platformService(catalog, 'measure-evaluation', 'Measure evaluation: consumes ReportScheduled; publishes ResourceEvaluated and MeasureReportGenerated', {
      publishes: ['ResourceEvaluated', 'MeasureReportGenerated'], consumes: ['ReportScheduled'], requests: TENANT_QUERIES,
    }),
    platformService(catalog, 'normalization', 'Normalization: consumes ResourceAcquired', { consumes: ['ResourceAcquired'], requests: TENANT_QUERIES }),
    platformService(catalog, 'audit-service', 'Audit service: consumes AuditableEventOccurred', { consumes: ['AuditableEventOccurred'] }),
    platformService(catalog, 'terminology-service', 'Terminology service: answers ValidateValueSetCode and ValidateCodeSystemCode (it alone)', {
      answers: ['ValidateValueSetCode', 'ValidateCodeSystemCode'],
    }),
    {
      user: 'operator',
      description: 'Administrators (nats CLI, the dead-letter tool) and the NACK controller: the whole JetStream API, and re-publishing stored subjects to replay dead letters',
      deployedHere: false,
      publish: unique(['$JS.API.>', ...[...catalog.streams, catalog.deadLetterStream].flatMap((stream) => stream.subjects)]),
      subscribe: [inboxOf('operator')],
      respondsToRequests: false,
    },
  ];
}

function unique(subjects: readonly string[]): string[] {
  return [...new Set(subjects)];
}

/** The `authorization` block: JSON syntax (which NATS configuration accepts) with `$VARIABLE` passwords the server reads from its environment. */
export function renderNatsAuthorization(catalog: Catalog): string {
  const users = natsUsers(catalog).map((user) => ({
    user: user.user,
    password: `@@${passwordVariable(user.user)}@@`,
    permissions: {
      publish: { allow: [...user.publish] },
      subscribe: { allow: [...user.subscribe] },
      ...(user.respondsToRequests ? { allow_responses: true } : {}),
    },
  }));
  const body = JSON.stringify({ users }, null, 2).replace(/"@@([A-Z0-9_]+)@@"/g, '$$$1');
  const legend = natsUsers(catalog).map((user) => `#   ${user.user}: ${user.description}`).join('\n');
  return [
    '# NATS users of the NHSN platform and their subject permissions. GENERATED from contracts/catalog.ts by',
    '# scripts/render-manifests.ts (rules: scripts/deploy/nats-accounts.ts); do not edit. Each password is read',
    '# from the NATS server\'s environment variable NATS_PASSWORD_<USER> (plain text or a bcrypt hash from',
    '# `nats server passwd`); docs/operations.md, NATS accounts.',
    legend,
    `authorization ${body}`,
    '',
  ].join('\n');
}

/** Parses what renderNatsAuthorization wrote back into users (for checks; passwords become their variable names). */
export function parseNatsAuthorization(text: string): Array<{ user: string; password: string; permissions: { publish: { allow: string[] }; subscribe: { allow: string[] }; allow_responses?: boolean } }> {
  const start = text.indexOf('authorization {');
  if (start < 0) throw new Error('no authorization block');
  const json = text.slice(start + 'authorization '.length).replace(/: \$([A-Z0-9_]+)/g, ': "$$$1"');
  return (JSON.parse(json) as { users: never[] }).users;
}

export const NATS_ACCOUNTS_CONFIGMAP = 'nats-accounts';
export const NATS_ACCOUNTS_FILE = 'accounts.conf';

/** The ConfigMap the NATS server mounts and includes (`include ../nats-accounts/accounts.conf`; runbook). */
export function renderNatsAccountsYaml(catalog: Catalog): string {
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: NATS_ACCOUNTS_CONFIGMAP,
      labels: { 'app.kubernetes.io/name': 'nats', 'app.kubernetes.io/component': 'nats-accounts', 'app.kubernetes.io/part-of': 'nhsn-platform' },
    },
    data: { [NATS_ACCOUNTS_FILE]: renderNatsAuthorization(catalog) },
  };
  return [
    '# GENERATED by scripts/render-manifests.ts from contracts/catalog.ts and scripts/deploy/nats-accounts.ts; do not edit.',
    '# The NATS users of the platform with their subject permissions, for the NATS server to include',
    '# (docs/operations.md, NATS accounts). Apply it to the NATS server\'s namespace: kubectl apply -k deploy/nats-accounts',
    stringify(configMap, { lineWidth: 0 }),
  ].join('\n');
}
