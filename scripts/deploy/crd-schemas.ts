/**
 * JSON Schemas for the custom resources deploy/ uses (NACK `jetstream.nats.io/v1beta2` Stream and
 * Consumer). kubernetes-models carries only the built-in kinds. These schemas are our own and
 * deliberately stricter than NACK's CRDs: unknown spec fields are errors, because the API server
 * would silently prune a misspelt field and the stream would be created without it.
 * Field names follow the NACK CRDs (github.com/nats-io/nack, deploy/crds.yml).
 */
const GO_DURATION = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';
/** NATS stream/consumer names: no whitespace, `.`, `*`, `>`, path separators. */
const NATS_NAME = '^[^\\s.*>/\\\\]+$';
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

const metadata = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', maxLength: 253, pattern: DNS_SUBDOMAIN },
    namespace: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const envelope = (kind: string, spec: Record<string, unknown>) => ({
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: 'jetstream.nats.io/v1beta2' },
    kind: { const: kind },
    metadata,
    spec,
  },
});

export const NACK_STREAM_SCHEMA = envelope('Stream', {
  type: 'object',
  required: ['name', 'subjects'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: NATS_NAME },
    description: { type: 'string' },
    subjects: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    retention: { enum: ['limits', 'interest', 'workqueue'] },
    storage: { enum: ['file', 'memory'] },
    discard: { enum: ['old', 'new'] },
    maxAge: { type: 'string', pattern: GO_DURATION },
    duplicateWindow: { type: 'string', pattern: GO_DURATION },
    maxBytes: { type: 'integer', minimum: -1 },
    maxMsgSize: { type: 'integer', minimum: -1 },
    maxMsgs: { type: 'integer', minimum: -1 },
    maxMsgsPerSubject: { type: 'integer', minimum: -1 },
    maxConsumers: { type: 'integer', minimum: -1 },
    replicas: { type: 'integer', minimum: 1, maximum: 5 },
    noAck: { type: 'boolean' },
    denyDelete: { type: 'boolean' },
    denyPurge: { type: 'boolean' },
    preventDelete: { type: 'boolean' },
    preventUpdate: { type: 'boolean' },
  },
});

export const NACK_CONSUMER_SCHEMA = envelope('Consumer', {
  type: 'object',
  required: ['streamName', 'durableName'],
  additionalProperties: false,
  properties: {
    streamName: { type: 'string', minLength: 1, pattern: NATS_NAME },
    durableName: { type: 'string', minLength: 1, pattern: NATS_NAME },
    description: { type: 'string' },
    deliverPolicy: { enum: ['all', 'last', 'new', 'byStartSequence', 'byStartTime', 'lastPerSubject'] },
    ackPolicy: { enum: ['none', 'all', 'explicit'] },
    ackWait: { type: 'string', pattern: GO_DURATION },
    backoff: { type: 'array', items: { type: 'string', pattern: GO_DURATION } },
    maxDeliver: { type: 'integer', minimum: -1 },
    maxAckPending: { type: 'integer', minimum: -1 },
    filterSubject: { type: 'string', minLength: 1 },
    replayPolicy: { enum: ['instant', 'original'] },
    replicas: { type: 'integer', minimum: 0, maximum: 5 },
  },
});

/** `apiVersion/kind` → schema of the custom resources we know. */
export const CUSTOM_RESOURCE_SCHEMAS: Readonly<Record<string, object>> = {
  'jetstream.nats.io/v1beta2/Stream': NACK_STREAM_SCHEMA,
  'jetstream.nats.io/v1beta2/Consumer': NACK_CONSUMER_SCHEMA,
};
