/**
 * The validation flow wired like main.ts, against the real PostgreSQL (a unique database) and
 * NATS (a catalog with a random subject root and stream suffix), with a real HTTP report service.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import type { JsMsg } from '@nats-io/jetstream';
import { buildCatalog, type Catalog } from '#contracts/catalog.js';
import { OpenApiBuilder } from '#adapters/http/index.js';
import { connectNats, type NatsHandle } from '#adapters/messaging/connection.js';
import type { ConsumerRunner } from '#adapters/messaging/consumer-runner.js';
import { provisionCatalog } from '#adapters/messaging/provisioning.js';
import { JetStreamPublisher } from '#adapters/messaging/publisher.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { openDatabase, OutboxMessageEntity, outboxMigration, OutboxRelay, type Database } from '#adapters/persistence/index.js';
import { sharedDir } from '#test-support/shared-dir.js';
import { EngineHost, type EngineHostOptions } from '#validation/adapters/engine/index.js';
import { validationApiEntities, validationApiMigrations } from '#validation/adapters/http/validation-api-module.js';
import { createValidationApiModule, type ValidationApiModule } from '#validation/composition.js';
import { pgValidationApiRepositories } from '#validation/adapters/persistence/validation-api-repositories.js';
import { startReadyForValidationConsumer } from '#validation/adapters/messaging/ready-for-validation-consumer.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { ValidationFlow, type FlowContext, type ReadyForValidationEvent } from '#validation/application/validation-flow/index.js';
import { PgFlowStore } from '#validation/adapters/persistence/pg-flow-store.js';
import { validationFlowEntities, validationFlowMigrations } from '#validation/adapters/persistence/validation-flow-tables.js';
import type { Artifact, ArtifactType } from '#validation/domain/artifacts/artifact.js';
import type { ArtifactRepository } from '#validation/domain/ports/artifact-repository.js';
import { ReportServiceStub } from './report-service-stub.js';

export const PG = { host: process.env.PGHOST ?? '127.0.0.1', port: Number(process.env.PGPORT ?? 5432), user: process.env.PGUSER ?? 'postgres' };

export function uniqueSuffix(): string {
  return `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

export function openFlowDatabase(dbName: string): Promise<Database> {
  return openDatabase({
    ...PG, dbName, poolMax: 8, logger: silentLogger(),
    entities: [OutboxMessageEntity, ...validationApiEntities, ...validationFlowEntities],
    migrations: [outboxMigration, ...validationApiMigrations, ...validationFlowMigrations],
  });
}

export async function dropDatabase(dbName: string): Promise<void> {
  if (!/^test_flow_[a-z0-9_]+$/.test(dbName)) throw new Error(`refusing to drop ${dbName}`);
  const orm = await MikroORM.init({ ...PG, dbName: 'postgres', entities: [OutboxMessageEntity], ensureDatabase: false, allowGlobalContext: true, pool: { min: 0, max: 1 } });
  try {
    await orm.em.fork().execute(`drop database if exists "${dbName}" with (force)`);
  } finally {
    await orm.close(true);
  }
}

/** Artifacts read from a folder of .tgz files (the engine host only needs forEachContent). */
export function folderArtifacts(dir: string): ArtifactRepository {
  return {
    async forEachContent(type: ArtifactType, visit: (artifact: Artifact) => Promise<void>) {
      if (type !== 'PACKAGE') return;
      for (const name of readdirSync(dir).filter((f) => f.endsWith('.tgz')).sort()) {
        const content = readFileSync(path.join(dir, name));
        await visit({ id: 0, type, name, content, size: content.length, updatedAt: new Date().toISOString() });
      }
    },
  } as unknown as ArtifactRepository;
}

export interface FlowHarness {
  readonly catalog: Catalog;
  readonly nats: NatsHandle;
  readonly db: Database;
  readonly api: ValidationApiModule;
  readonly engine: EngineHost;
  readonly flow: ValidationFlow;
  readonly store: PgFlowStore;
  readonly reportService: ReportServiceStub;
  /** ValidationComplete messages as stored in the stream. */
  readonly completions: Record<string, unknown>[];
  /** Replaces what the consumer calls (to simulate a crash after the commit). */
  handler: (event: ReadyForValidationEvent, ctx: FlowContext) => Promise<unknown>;
  publishReady(event: Omit<ReadyForValidationEvent, 'schemaVersion'>, msgId?: string): Promise<void>;
  /** True once the ReadyForValidation consumer has nothing pending or unacknowledged. */
  idle(): Promise<boolean>;
  close(): Promise<void>;
}

export interface FlowHarnessOptions {
  readonly maxDeliver?: number;
  readonly outageHorizonMs?: number;
  /** The consumer's ack wait (default 10 s) and the flow's progress-ack interval (default 2 s). */
  readonly ackWaitMs?: number;
  readonly progressIntervalMs?: number;
  /** Engine settings other than the shared IG packages (default: one worker, local terminology, no deadlines). */
  readonly engine?: Partial<Omit<EngineHostOptions, 'artifacts'>>;
}

export async function startFlowHarness(options: FlowHarnessOptions = {}): Promise<FlowHarness> {
  const suffix = uniqueSuffix();
  const catalog = buildCatalog({ subjectRoot: `flow${suffix}`, streamSuffix: `_H7F${suffix.toUpperCase()}`, streamLimits: 'test' });
  const dbName = `test_flow_${suffix}`;
  const logger = silentLogger();
  const db = await openFlowDatabase(dbName);
  const nats = await connectNats({ servers: [process.env.NATS_URL ?? '127.0.0.1:4222'], name: 'flow-test', logger });
  await provisionCatalog(nats.jsm, catalog);
  const relay = new OutboxRelay({ orm: db.orm, publisher: new JetStreamPublisher(nats.js, { catalog }), logger, pollIntervalMs: 100 });
  relay.start();

  const reportService = new ReportServiceStub();
  await reportService.start();
  const engine = new EngineHost({ artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: 1, terminology: {}, logger, ...options.engine });
  await engine.start();
  const api = createValidationApiModule({ repositories: pgValidationApiRepositories(db.orm), openApi: new OpenApiBuilder({ title: 'test', version: '1' }), validator: engine });
  await api.categories.initialize();

  const store = new PgFlowStore(db.orm);
  const completion = catalog.byName('ValidationComplete');
  const flow = new ValidationFlow({
    source: new HttpReportService({ baseUrl: reportService.url, serviceToken: 'service-token-flow', retries: 0, timeoutMs: 5_000, logger }),
    validator: engine, categories: api.categories, store,
    completion: { subject: completion.subject, schemaVersion: completion.version },
    afterCommit: ({ lastInFlight }) => relay.notify({ now: lastInFlight }),
    // Well inside the consumer's 10 s ack wait below (production: 10 s inside 60 s).
    progressIntervalMs: options.progressIntervalMs ?? 2_000,
  });

  const completions: Record<string, unknown>[] = [];
  const reader = await nats.js.consumers.get(completion.stream!, { filter_subjects: completion.subject });
  const reading = await reader.consume();
  void (async () => {
    for await (const m of reading as AsyncIterable<JsMsg>) completions.push(m.json<Record<string, unknown>>());
  })();

  const harness: FlowHarness = {
    catalog, nats, db, api, engine, flow, store, reportService, completions,
    handler: (event, ctx) => flow.handle(event, ctx),
    async publishReady(event, msgId) {
      const ready = catalog.byName('ReadyForValidation');
      await nats.js.publish(ready.subject, JSON.stringify({ schemaVersion: ready.version, ...event }), msgId ? { msgID: msgId } : undefined);
    },
    async idle() {
      const info = await nats.jsm.consumers.info(catalog.byName('ReadyForValidation').stream!, DURABLE);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    async close() {
      await consumer.stop(5_000);
      await reading.close();
      await relay.stop();
      await engine.close();
      await reportService.stop();
      for (const stream of [...catalog.streams, catalog.deadLetterStream]) await nats.jsm.streams.delete(stream.name).catch(() => undefined);
      await nats.close();
      await db.close();
      await dropDatabase(dbName);
    },
  };
  const DURABLE = 'validation-ready-for-validation';
  const consumer: ConsumerRunner = await startReadyForValidationConsumer({
    js: nats.js, catalog, logger, maxDeliver: options.maxDeliver ?? 3, concurrency: 4, backoffMs: [100], ackWaitMs: options.ackWaitMs ?? 10_000, fetchExpiresMs: 1_000,
    outageHorizonMs: options.outageHorizonMs ?? 30_000, outageBackoff: { initialMs: 100, maxMs: 100 },
    flow: { handle: (event, ctx) => harness.handler(event, ctx ?? {}) as ReturnType<ValidationFlow['handle']> },
    durable: DURABLE,
    beforeFetch: () => engine.whenRoom(),
  });
  return harness;
}

/** Polls until the condition holds (a generous deadline: correctness, not speed, is under test). */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
