/**
 * Idempotent provisioning of streams and durable consumers from the catalog, run at every
 * service start-up and by the provisioning Job (services/validation/src/cli/provision-jetstream.ts):
 * create what is missing, update what differs, never delete a stream or its messages. Running it
 * twice (or from several instances at once) is harmless.
 */
import {
  AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType,
  type ConsumerConfig, type JetStreamManager, type StreamConfig,
} from '@nats-io/jetstream';
import type { Catalog, StreamDefinition } from '#contracts/catalog.js';

export type ProvisionAction = 'created' | 'updated' | 'unchanged';

const nanos = (ms: number) => ms * 1_000_000;

/** The JetStream configuration of a catalog stream (also the input for generated Kubernetes stream manifests). */
export function toStreamConfig(def: StreamDefinition): Partial<StreamConfig> & { name: string } {
  return {
    name: def.name,
    description: def.description,
    subjects: [...def.subjects],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(def.maxAgeMs),
    duplicate_window: nanos(def.duplicateWindowMs),
    max_bytes: def.maxBytes,
    max_msg_size: def.maxMsgSize,
    num_replicas: def.replicas,
  };
}

function isNotFound(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

/** The fields of `wanted` whose value differs in `actual` (arrays compared by content). */
function differences(wanted: object, actual: object): string[] {
  const actualValues = new Map<string, unknown>(Object.entries(actual));
  return Object.entries(wanted)
    .filter(([k, v]: [string, unknown]) => JSON.stringify(v) !== JSON.stringify(actualValues.get(k) ?? (Array.isArray(v) ? [] : undefined)))
    .map(([k]) => k);
}

/** JetStream's answers to a replica count the servers cannot hold: not clustered, or fewer servers than replicas. */
const REPLICAS_NOT_SUPPORTED = 10074;
const INSUFFICIENT_RESOURCES = 10023;
/** JetStream cannot reserve a new stream's max_bytes against its storage (JSStorageResourcesExceededErr). */
const STORAGE_RESOURCES_EXCEEDED = 10047;

/** Says what to do when the servers cannot hold the replicas asked for. */
function replicasError(def: StreamDefinition, reason: string, cause?: unknown): Error {
  return new Error(
    `Stream ${def.name}: ${def.replicas} replicas requested (nats.stream-replicas) but ${reason}; ` +
    `set nats.stream-replicas to 1 for a single NATS server, or to at most the number of servers of the JetStream cluster`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Says what to do when JetStream cannot reserve a stream's max_bytes: it reserves the whole size of
 * every stream at creation, so a machine with many installations (or production-sized streams on a
 * laptop) runs out of reservable storage long before its disk is full.
 */
function storageError(def: StreamDefinition, cause: JetStreamApiError): Error {
  const mib = Math.round(def.maxBytes / (1024 * 1024));
  return new Error(
    `Stream ${def.name}: JetStream cannot reserve its ${mib} MiB (${cause.message}). JetStream reserves every stream's max_bytes when it is created. `
    + 'On a local or test installation set nats.stream-limits (NATS_STREAM_LIMITS) to local or test for every service of the installation; '
    + 'or delete the streams of installations no longer used (their names end with _<NAMESPACE>); or give the NATS server more storage (jetstream max_file_store)',
    { cause },
  );
}

/**
 * Creates or updates one stream. Changing storage type or retention of an existing stream is
 * refused by the server and reported as an error. The replica count (def.replicas, the setting
 * nats.stream-replicas) is applied to an existing stream too: a JetStream cluster adds or removes
 * the copies while the stream stays in service. A replica count a single server cannot hold is
 * refused with an error that says so (the server itself refuses it at creation but would accept it
 * silently in an update, leaving one copy).
 */
export async function provisionStream(jsm: JetStreamManager, def: StreamDefinition): Promise<ProvisionAction> {
  const wanted = toStreamConfig(def);
  let current: StreamConfig;
  try {
    const info = await jsm.streams.info(def.name);
    current = info.config;
    if (def.replicas > 1 && !info.cluster) throw replicasError(def, 'the NATS server is not clustered');
  } catch (err) {
    if (!isNotFound(err, JetStreamApiCodes.StreamNotFound)) throw err;
    try {
      await jsm.streams.add(wanted);
      return 'created';
    } catch (addErr) {
      if (addErr instanceof JetStreamApiError && addErr.code === REPLICAS_NOT_SUPPORTED) throw replicasError(def, 'the NATS server is not clustered', addErr);
      if (addErr instanceof JetStreamApiError && addErr.code === INSUFFICIENT_RESOURCES && def.replicas > 1) {
        throw replicasError(def, `the JetStream cluster cannot place them (${addErr.message})`, addErr);
      }
      if (addErr instanceof JetStreamApiError && (addErr.code === STORAGE_RESOURCES_EXCEEDED || addErr.code === INSUFFICIENT_RESOURCES)) throw storageError(def, addErr);
      // Another instance created it between our info and add: fall through to the comparison.
      current = (await jsm.streams.info(def.name).catch(() => { throw addErr; })).config;
    }
  }
  const diff = differences(wanted, current);
  if (diff.length === 0) return 'unchanged';
  try {
    await jsm.streams.update(def.name, wanted);
  } catch (err) {
    throw new Error(`Stream ${def.name} differs from the catalog in ${diff.join(', ')} and could not be updated: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return 'updated';
}

/** Provisions every stream (in order); returns what was done to each. */
export async function provisionStreams(jsm: JetStreamManager, defs: readonly StreamDefinition[]): Promise<Record<string, ProvisionAction>> {
  const result: Record<string, ProvisionAction> = {};
  for (const def of defs) result[def.name] = await provisionStream(jsm, def);
  return result;
}

export interface ProvisionCatalogOptions {
  /** Copies of every stream across the JetStream cluster (nats.stream-replicas); the catalog's own (1) when absent. */
  readonly replicas?: number;
}

/** Every stream of a catalog, the dead-letter stream included, with the replica count of this installation. */
export function catalogStreams(catalog: Catalog, options: ProvisionCatalogOptions = {}): StreamDefinition[] {
  const all = [...catalog.streams, catalog.deadLetterStream];
  const { replicas } = options;
  return replicas === undefined ? all : all.map((def) => ({ ...def, replicas }));
}

/** Provisions every stream of a catalog, the dead-letter stream included: what a service calls at start-up. */
export function provisionCatalog(jsm: JetStreamManager, catalog: Catalog, options: ProvisionCatalogOptions = {}): Promise<Record<string, ProvisionAction>> {
  return provisionStreams(jsm, catalogStreams(catalog, options));
}

export interface ConsumerSpec {
  durable: string;
  /** Only messages on this subject (may contain wildcards); all of the stream when absent. One filter only: nats-server 2.9 has no filter_subjects. */
  filterSubject?: string;
  /** Server-side maximum number of deliveries. */
  maxDeliver: number;
  /** Time the server waits for an ack (or a +WPI progress ack) before redelivering. Ignored when backoffMs is given (the server uses backoffMs[0]). */
  ackWaitMs: number;
  /**
   * Server-side redelivery delays for messages that were NOT acked in time (crashes, timeouts).
   * When set, the server uses backoff[0] instead of ackWait for the first wait, and requires
   * maxDeliver > backoff.length. Delays after a nak are chosen by the runner, not by this.
   */
  backoffMs?: number[];
  /** At most this many unacknowledged messages across all instances; default 1000. */
  maxAckPending?: number;
  description?: string;
}

/** The JetStream configuration of a durable pull consumer. */
export function toConsumerConfig(spec: ConsumerSpec): Partial<ConsumerConfig> {
  const backoff = spec.backoffMs && spec.backoffMs.length > 0 ? spec.backoffMs : undefined;
  return {
    durable_name: spec.durable,
    description: spec.description,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: spec.filterSubject,
    max_deliver: spec.maxDeliver,
    // The server replaces ack_wait by backoff[0] when a backoff is set; say so, or every start would see a difference.
    ack_wait: nanos(backoff?.[0] ?? spec.ackWaitMs),
    backoff: backoff?.map(nanos),
    max_ack_pending: spec.maxAckPending ?? 1000,
  };
}

/** What a consumer-runner durable (consumer-runner.ts `startConsumer`) is given for its server-side consumer. */
export interface RunnerConsumerDefinition {
  durable: string;
  filterSubject?: string;
  /** The runner's attempts before dead-lettering. */
  maxDeliver: number;
  ackWaitMs: number;
  maxAckPending?: number;
}

/**
 * The server-side consumer of a consumer-runner durable: what `startConsumer` ensures at start-up and
 * what the provisioning Job creates, so the two never update the consumer back and forth.
 * max_deliver is the runner's maxDeliver + 1, because the runner dead-letters a message whose last
 * attempt crashed when the server delivers it once more; the runner's backoff is its own nak delay.
 */
export function runnerConsumerSpec(definition: RunnerConsumerDefinition): ConsumerSpec {
  return {
    durable: definition.durable,
    filterSubject: definition.filterSubject,
    maxDeliver: definition.maxDeliver + 1,
    ackWaitMs: definition.ackWaitMs,
    maxAckPending: definition.maxAckPending,
  };
}

/** Creates the durable pull consumer, or updates it when its configuration differs. Delivery position is never reset. */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, spec: ConsumerSpec): Promise<ProvisionAction> {
  const wanted = toConsumerConfig(spec);
  let current: ConsumerConfig;
  try {
    current = (await jsm.consumers.info(stream, spec.durable)).config;
  } catch (err) {
    if (!isNotFound(err, JetStreamApiCodes.ConsumerNotFound)) throw err;
    await jsm.consumers.add(stream, wanted);
    return 'created';
  }
  // deliver_policy cannot change after creation, and undefined fields mean "server default".
  const comparable = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => v !== undefined && k !== 'deliver_policy'));
  const diff = differences(comparable, current);
  if (diff.length === 0) return 'unchanged';
  const { durable_name: _name, deliver_policy: _policy, ...updatable } = wanted;
  try {
    await jsm.consumers.update(stream, spec.durable, updatable);
  } catch (err) {
    throw new Error(`Consumer ${stream}/${spec.durable} differs in ${diff.join(', ')} and could not be updated: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return 'updated';
}
