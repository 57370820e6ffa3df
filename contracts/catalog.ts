/**
 * The message catalog: the ONE place that says, for every event, command and query, what it is
 * called, which schema version it has, on which NATS subject it travels and in which JetStream
 * stream it is kept. Stream definitions live here too, so that start-up provisioning
 * (adapters/messaging/provisioning.ts) and the Kubernetes manifests use the same definitions.
 *
 * ## Subject naming scheme
 *
 *     <root>.<domain>.<interaction>.<message-name-in-kebab-case>.v<major>
 *
 * - `root` is `nhsn` (tests build their own catalog with a random root so runs never collide).
 * - `domain` is the owning domain in lower case: `compliance`, `report`, `evaluation`, `acquisition`, `tenant`.
 * - `interaction` says how the message travels:
 *   - `event`   – a fact, kept in the domain's JetStream stream;
 *   - `command` – fire-and-forget instruction, kept in the domain's JetStream stream;
 *   - `rpc`     – core NATS request-reply (queries, and commands that need an answer such as the
 *                 terminology checks). NEVER inside a stream: a stream that captured an `rpc` subject
 *                 would answer the request with its own PubAck. That is why streams filter on
 *                 `<root>.<domain>.event.>` and `<root>.<domain>.command.>`, not on `<root>.<domain>.>`.
 * - `v<major>`: the contract's major version. A breaking change gets a new schema file and a new
 *   subject (`.v2`) so old and new consumers can run side by side; minor versions only add optional
 *   fields and keep the subject. Events and commands also carry `schemaVersion` (full semver) in the
 *   payload because they are stored and may be replayed long after they were written.
 *   ResourceAcquired is the exception: the specification fixes its fields, so its version (0.6.0)
 *   lives only in the catalog and the subject (`.v0`).
 *
 * Dead letters: `<root>.dead-letter.<original subject>` in stream DEAD_LETTER (see
 * adapters/messaging/dead-letter.ts for the headers).
 */
import AuditableEventOccurredV1 from './schemas/AuditableEventOccurred.v1.schema.json' with { type: 'json' };
import GenerateReportRequestedV1 from './schemas/GenerateReportRequested.v1.schema.json' with { type: 'json' };
import GetFacilitiesListReplyV1 from './schemas/GetFacilitiesList.reply.v1.schema.json' with { type: 'json' };
import GetFacilitiesListV1 from './schemas/GetFacilitiesList.v1.schema.json' with { type: 'json' };
import GetFacilityConfigReplyV1 from './schemas/GetFacilityConfig.reply.v1.schema.json' with { type: 'json' };
import GetFacilityConfigV1 from './schemas/GetFacilityConfig.v1.schema.json' with { type: 'json' };
import GetServiceInfoReplyV1 from './schemas/GetServiceInfo.reply.v1.schema.json' with { type: 'json' };
import GetServiceInfoV1 from './schemas/GetServiceInfo.v1.schema.json' with { type: 'json' };
import ReadyForValidationV1 from './schemas/ReadyForValidation.v1.schema.json' with { type: 'json' };
import ReportScheduledV1 from './schemas/ReportScheduled.v1.schema.json' with { type: 'json' };
import ResourceAcquiredV0 from './schemas/ResourceAcquired.v0.schema.json' with { type: 'json' };
import ResourceEvaluatedV1 from './schemas/ResourceEvaluated.v1.schema.json' with { type: 'json' };
import SignClientAssertionReplyV1 from './schemas/SignClientAssertion.reply.v1.schema.json' with { type: 'json' };
import SignClientAssertionV1 from './schemas/SignClientAssertion.v1.schema.json' with { type: 'json' };
import ValidateCodeResultV1 from './schemas/ValidateCodeResult.v1.schema.json' with { type: 'json' };
import ValidateCodeSystemCodeV1 from './schemas/ValidateCodeSystemCode.v1.schema.json' with { type: 'json' };
import ValidateValueSetCodeV1 from './schemas/ValidateValueSetCode.v1.schema.json' with { type: 'json' };
import ValidationCompleteV1 from './schemas/ValidationComplete.v1.schema.json' with { type: 'json' };

export type MessageKind = 'event' | 'command' | 'query';
/** `jetstream`: persisted in a stream, consumed by durable consumers. `request-reply`: core NATS, nothing stored. */
export type Transport = 'jetstream' | 'request-reply';
export type Domain = 'compliance' | 'report' | 'evaluation' | 'acquisition' | 'tenant';

/** A JSON Schema document as stored in contracts/schemas (always has $id and title). */
export type JsonSchema = { $id: string; title: string; [keyword: string]: unknown };

export interface SchemaRef {
  /** File name under contracts/schemas (referenced by the AsyncAPI document). */
  file: string;
  schema: JsonSchema;
}

export interface MessageContract {
  name: string;
  kind: MessageKind;
  transport: Transport;
  domain: Domain;
  /** Full semantic version of the payload contract, e.g. '1.0.0' ('0.6.0' for ResourceAcquired). */
  version: string;
  subject: string;
  /** JetStream stream name; undefined for request-reply messages. */
  stream: string | undefined;
  /** Schema of the payload (the request, for request-reply). */
  payload: SchemaRef;
  /** Schema of the reply; only for request-reply messages. */
  reply: SchemaRef | undefined;
  /** For an alias (MeasureReportGenerated): the message it is another name of. */
  aliasOf?: string;
  description: string;
}

export interface StreamDefinition {
  name: string;
  description: string;
  subjects: string[];
  /** limits: keep until max age (every consumer group reads independently); never workqueue, so several services can subscribe. */
  retention: 'limits';
  storage: 'file';
  maxAgeMs: number;
  /** Window in which JetStream drops a second message with the same Nats-Msg-Id. */
  duplicateWindowMs: number;
  /** Hard cap on the stream size so a runaway producer cannot fill the disk. */
  maxBytes: number;
  /** Largest single message accepted (FHIR resources in ResourceEvaluated can be large). */
  maxMsgSize: number;
  replicas: number;
}

export interface CatalogOptions {
  /** First subject token; 'nhsn' in production. Tests pass a random root. */
  subjectRoot?: string;
  /** Appended to every stream name, e.g. '_T1A2B' in tests. */
  streamSuffix?: string;
  /**
   * Size of every stream (`STREAM_LIMITS`). JetStream reserves a stream's `max_bytes` against the
   * server's storage when the stream is created, so the production sizes on a laptop or a CI machine
   * let only a few installations or test files exist at once. Default `production`.
   */
  streamLimits?: StreamLimitsProfile;
}

/** Who the streams are sized for: a production cluster, a developer's local installation, a test. */
export const STREAM_LIMIT_PROFILES = ['production', 'local', 'test'] as const;
export type StreamLimitsProfile = (typeof STREAM_LIMIT_PROFILES)[number];

/**
 * The stream-size profile the environment names (`NATS_STREAM_LIMITS`), for the tools and tests that
 * provision streams without loading a service configuration; `fallback` when it names none.
 */
export function streamLimitsFromEnvironment(raw: string | undefined, fallback: StreamLimitsProfile): StreamLimitsProfile {
  const value = raw?.trim();
  if (value === undefined || value === '') return fallback;
  const profile = STREAM_LIMIT_PROFILES.find((p) => p === value);
  if (profile === undefined) throw new Error(`NATS_STREAM_LIMITS must be one of ${STREAM_LIMIT_PROFILES.join(', ')}; got ${JSON.stringify(value.slice(0, 40))}`);
  return profile;
}

/** `max_bytes` of each domain stream and of the dead-letter stream, per profile. */
export const STREAM_LIMITS: Readonly<Record<StreamLimitsProfile, { readonly stream: number; readonly deadLetter: number }>> = {
  production: { stream: 4 * 1024 * 1024 * 1024, deadLetter: 2 * 1024 * 1024 * 1024 },
  local: { stream: 256 * 1024 * 1024, deadLetter: 128 * 1024 * 1024 },
  test: { stream: 64 * 1024 * 1024, deadLetter: 32 * 1024 * 1024 },
};

export interface Catalog {
  readonly subjectRoot: string;
  readonly messages: readonly MessageContract[];
  readonly streams: readonly StreamDefinition[];
  readonly deadLetterStream: StreamDefinition;
  /** `<root>.dead-letter` – prefix of every dead-letter subject. */
  readonly deadLetterPrefix: string;
  byName(name: string): MessageContract;
  /** The contract whose subject is exactly `subject`, or undefined. */
  bySubject(subject: string): MessageContract | undefined;
  streamByName(name: string): StreamDefinition;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const MiB = 1024 * 1024;

interface Entry {
  name: string;
  kind: MessageKind;
  transport: Transport;
  domain: Domain;
  version: string;
  payload: SchemaRef;
  reply?: SchemaRef;
  aliasOf?: string;
  description: string;
}

const ref = (file: string, schema: JsonSchema): SchemaRef => ({ file, schema });

/** Kept in declaration order; the order is also the order of the AsyncAPI document. */
const ENTRIES: Entry[] = [
  { name: 'ResourceAcquired', kind: 'event', transport: 'jetstream', domain: 'acquisition', version: '0.6.0',
    payload: ref('ResourceAcquired.v0.schema.json', ResourceAcquiredV0), description: 'One FHIR resource retrieved from a facility (schema fixed by the specification).' },
  { name: 'ReadyForValidation', kind: 'event', transport: 'jetstream', domain: 'compliance', version: '1.0.0',
    payload: ref('ReadyForValidation.v1.schema.json', ReadyForValidationV1), description: 'A patient submission is ready to validate (report service → validation service).' },
  { name: 'ValidationComplete', kind: 'event', transport: 'jetstream', domain: 'compliance', version: '1.0.0',
    payload: ref('ValidationComplete.v1.schema.json', ValidationCompleteV1), description: 'Validation of a patient submission finished (validation service).' },
  { name: 'AuditableEventOccurred', kind: 'event', transport: 'jetstream', domain: 'compliance', version: '1.0.0',
    payload: ref('AuditableEventOccurred.v1.schema.json', AuditableEventOccurredV1), description: 'An auditable change was made (tenant service).' },
  { name: 'ValidateValueSetCode', kind: 'command', transport: 'request-reply', domain: 'compliance', version: '1.0.0',
    payload: ref('ValidateValueSetCode.v1.schema.json', ValidateValueSetCodeV1), reply: ref('ValidateCodeResult.v1.schema.json', ValidateCodeResultV1),
    description: 'Terminology check: is a code in a value set? (validation service → terminology responder).' },
  { name: 'ValidateCodeSystemCode', kind: 'command', transport: 'request-reply', domain: 'compliance', version: '1.0.0',
    payload: ref('ValidateCodeSystemCode.v1.schema.json', ValidateCodeSystemCodeV1), reply: ref('ValidateCodeResult.v1.schema.json', ValidateCodeResultV1),
    description: 'Terminology check: is a code defined in a code system? (validation service → terminology responder).' },
  { name: 'ReportScheduled', kind: 'event', transport: 'jetstream', domain: 'report', version: '1.0.0',
    payload: ref('ReportScheduled.v1.schema.json', ReportScheduledV1), description: 'A reporting period of a facility started (tenant service scheduler).' },
  { name: 'GenerateReportRequested', kind: 'command', transport: 'jetstream', domain: 'report', version: '1.0.0',
    payload: ref('GenerateReportRequested.v1.schema.json', GenerateReportRequestedV1), description: 'Generate or regenerate a report (tenant service → report service).' },
  { name: 'ResourceEvaluated', kind: 'event', transport: 'jetstream', domain: 'evaluation', version: '1.0.0',
    payload: ref('ResourceEvaluated.v1.schema.json', ResourceEvaluatedV1), description: 'One resource resulting from measure evaluation, including the MeasureReport (measure evaluation → report service).' },
  { name: 'MeasureReportGenerated', kind: 'event', transport: 'jetstream', domain: 'evaluation', version: '1.0.0', aliasOf: 'ResourceEvaluated',
    payload: ref('ResourceEvaluated.v1.schema.json', ResourceEvaluatedV1), description: 'Alias of ResourceEvaluated (the specification uses both names); same schema, own subject.' },
  { name: 'GetFacilitiesList', kind: 'query', transport: 'request-reply', domain: 'tenant', version: '1.0.0',
    payload: ref('GetFacilitiesList.v1.schema.json', GetFacilitiesListV1), reply: ref('GetFacilitiesList.reply.v1.schema.json', GetFacilitiesListReplyV1),
    description: 'List facilities (id and name).' },
  { name: 'GetFacilityConfig', kind: 'query', transport: 'request-reply', domain: 'tenant', version: '1.1.0',
    payload: ref('GetFacilityConfig.v1.schema.json', GetFacilityConfigV1), reply: ref('GetFacilityConfig.reply.v1.schema.json', GetFacilityConfigReplyV1),
    description: 'The configuration of one facility.' },
  { name: 'GetServiceInfo', kind: 'query', transport: 'request-reply', domain: 'tenant', version: '1.0.0',
    payload: ref('GetServiceInfo.v1.schema.json', GetServiceInfoV1), reply: ref('GetServiceInfo.reply.v1.schema.json', GetServiceInfoReplyV1),
    description: 'Name and version of the service.' },
  { name: 'SignClientAssertion', kind: 'query', transport: 'request-reply', domain: 'tenant', version: '1.1.0',
    payload: ref('SignClientAssertion.v1.schema.json', SignClientAssertionV1), reply: ref('SignClientAssertion.reply.v1.schema.json', SignClientAssertionReplyV1),
    description: 'Sign the SMART Backend Services client assertion of a facility with its signing key, for one of the EHR connections (client id, token endpoint) its configuration holds.' },
];

/** 'ReadyForValidation' → 'ready-for-validation'. */
export function kebabCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function majorOf(version: string): string {
  return version.split('.')[0]!;
}

function interactionToken(entry: Entry): string {
  return entry.transport === 'request-reply' ? 'rpc' : entry.kind;
}

const STREAM_DESCRIPTIONS: Record<Domain, string> = {
  compliance: 'Compliance domain: validation events and audit events.',
  report: 'Report domain: scheduled reporting periods and report generation commands.',
  evaluation: 'Measure evaluation results.',
  acquisition: 'Data acquisition: resources retrieved from facilities.',
  tenant: 'Tenant domain.',
};

/** Retention per domain; events are kept long enough to rebuild a consumer after a week-end outage. */
const STREAM_MAX_AGE: Record<Domain, number> = {
  compliance: 14 * DAY, report: 14 * DAY, evaluation: 7 * DAY, acquisition: 7 * DAY, tenant: 14 * DAY,
};

/**
 * Builds a catalog. Production code uses the default `catalog` export; tests build their own with a
 * random root and stream suffix so concurrent runs and other engineers' tests never share a stream.
 */
export function buildCatalog(options: CatalogOptions = {}): Catalog {
  const root = options.subjectRoot ?? 'nhsn';
  const suffix = options.streamSuffix ?? '';
  const streamName = (domain: Domain) => domain.toUpperCase() + suffix;
  const limits = STREAM_LIMITS[options.streamLimits ?? 'production'];

  const messages: MessageContract[] = ENTRIES.map((e) => ({
    name: e.name, kind: e.kind, transport: e.transport, domain: e.domain, version: e.version,
    subject: `${root}.${e.domain}.${interactionToken(e)}.${kebabCase(e.name)}.v${majorOf(e.version)}`,
    stream: e.transport === 'jetstream' ? streamName(e.domain) : undefined,
    payload: e.payload, reply: e.reply, aliasOf: e.aliasOf, description: e.description,
  }));

  const domainsWithStreams = [...new Set(messages.filter((m) => m.stream).map((m) => m.domain))];
  const streams: StreamDefinition[] = domainsWithStreams.map((domain) => {
    const tokens = [...new Set(messages.filter((m) => m.domain === domain && m.stream).map((m) => m.kind))].sort();
    return {
      name: streamName(domain), description: STREAM_DESCRIPTIONS[domain],
      subjects: tokens.map((t) => `${root}.${domain}.${t}.>`),
      retention: 'limits', storage: 'file', maxAgeMs: STREAM_MAX_AGE[domain], duplicateWindowMs: 2 * MINUTE,
      maxBytes: limits.stream, maxMsgSize: 8 * MiB, replicas: 1,
    };
  });

  const deadLetterPrefix = `${root}.dead-letter`;
  const deadLetterStream: StreamDefinition = {
    name: 'DEAD_LETTER' + suffix,
    description: 'Messages a consumer gave up on (schema failure, invalid JSON, permanent error, max deliveries). Kept for inspection and replay; see the runbook.',
    subjects: [`${deadLetterPrefix}.>`], retention: 'limits', storage: 'file', maxAgeMs: 30 * DAY,
    duplicateWindowMs: 2 * MINUTE, maxBytes: limits.deadLetter, maxMsgSize: 8 * MiB, replicas: 1,
  };

  const byNameMap = new Map(messages.map((m) => [m.name, m]));
  const bySubjectMap = new Map(messages.map((m) => [m.subject, m]));
  const allStreams = [...streams, deadLetterStream];
  return {
    subjectRoot: root,
    messages,
    streams,
    deadLetterStream,
    deadLetterPrefix,
    byName(name) {
      const m = byNameMap.get(name);
      if (!m) throw new Error(`Unknown message "${name}"; known: ${[...byNameMap.keys()].join(', ')}`);
      return m;
    },
    bySubject: (subject) => bySubjectMap.get(subject),
    streamByName(name) {
      const s = allStreams.find((x) => x.name === name);
      if (!s) throw new Error(`Unknown stream "${name}"; known: ${allStreams.map((x) => x.name).join(', ')}`);
      return s;
    },
  };
}

/** The production catalog (subject root `nhsn`). */
export const catalog: Catalog = buildCatalog();

/**
 * The catalog of an installation with a namespace (`nats.namespace`): subjects under
 * `<namespace>.nhsn.` (dead letters under `<namespace>.nhsn.dead-letter.`), streams named
 * `<STREAM>_<NAMESPACE>`, so durable consumers (which live in a stream) are apart too. Several
 * installations (developers, a demo, a test environment) can then share one NATS server without
 * one consuming the other's messages. No namespace: the production catalog.
 */
export function catalogForNamespace(namespace: string | undefined, streamLimits?: StreamLimitsProfile): Catalog {
  if ((namespace === undefined || namespace === '') && (streamLimits === undefined || streamLimits === 'production')) return catalog;
  if (namespace === undefined || namespace === '') return buildCatalog({ streamLimits });
  if (!/^[a-z][a-z0-9-]{0,30}$/.test(namespace)) throw new Error(`Namespace "${namespace.slice(0, 40)}" must be lower-case letters, digits and hyphens, starting with a letter`);
  return buildCatalog({ subjectRoot: `${namespace}.nhsn`, streamSuffix: `_${namespace.toUpperCase().replace(/-/g, '_')}`, streamLimits });
}

/** Contracts by subject without its root: `compliance.event.validation-complete.v1` → ValidationComplete. */
const contractsByUnrootedSubject = new Map(catalog.messages.map((m) => [m.subject.slice(catalog.subjectRoot.length + 1), m]));

/**
 * The contract a subject names, whatever its root: the services use `nhsn` (or `<namespace>.nhsn`
 * with nats.namespace), tests a random one (buildCatalog). The root is what comes before the first
 * subject tail that names a contract. Undefined when no contract has that subject. The transactional outbox
 * checks every message against it when the message is enqueued, without needing the catalog the
 * caller built.
 */
export function contractOfSubject(subject: string): MessageContract | undefined {
  for (let dot = subject.indexOf('.'); dot > 0; dot = subject.indexOf('.', dot + 1)) {
    const contract = contractsByUnrootedSubject.get(subject.slice(dot + 1));
    if (contract) return contract;
  }
  return undefined;
}

/** NATS subject matching: `*` matches one token, `>` one or more trailing tokens. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}
