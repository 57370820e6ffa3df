import { Migration } from '@mikro-orm/migrations';
import type { MigrationObject } from '@mikro-orm/postgresql';

/**
 * The `outbox_message` table. Each service that publishes events adds `outboxMigration` to its own
 * migrations list, so the table lives in that service's database next to the rows it describes.
 */

export const OUTBOX_TABLE = 'outbox_message';

/** Row shape as Kysely sees it (snake_case, as in the table). */
export interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  headers: Record<string, string>;
  /** Nats-Msg-Id used when publishing: JetStream drops a repeat inside its duplicate window. */
  msg_id: string;
  created_at: Date;
  published_at: Date | null;
  /** Publish attempts made so far, successful or not. */
  attempts: number;
  /** Not before this time after a failure (backoff); null = eligible now. */
  next_attempt_at: Date | null;
  last_error: string | null;
  /** Set when the row can never be published (fails its contract, refused for good): the relay leaves it alone. */
  parked_at: Date | null;
}

export interface OutboxDatabase {
  outbox_message: OutboxRow;
}

export class CreateOutboxMessageTable extends Migration {
  override up(): void {
    this.addSql(`create table if not exists "outbox_message" (
      "id" uuid primary key,
      "subject" text not null,
      "payload" jsonb not null,
      "headers" jsonb not null default '{}'::jsonb,
      "msg_id" text not null,
      "created_at" timestamptz not null default now(),
      "published_at" timestamptz null,
      "attempts" integer not null default 0,
      "next_attempt_at" timestamptz null,
      "last_error" text null
    )`);
    // The relay's poll reads only unpublished rows in created order; published rows are only read by the cleanup.
    this.addSql(`create index if not exists "outbox_message_pending_idx" on "outbox_message" ("created_at", "id") where "published_at" is null`);
    this.addSql(`create index if not exists "outbox_message_published_at_idx" on "outbox_message" ("published_at") where "published_at" is not null`);
  }

  override down(): void {
    this.addSql(`drop table if exists "outbox_message"`);
  }
}

/** Add to a service's `migrations` list. The name is recorded in the migration table: never change it. */
export const outboxMigration: MigrationObject = { name: 'Migration20261122000000_outbox_message', class: CreateOutboxMessageTable };

/**
 * Parked rows: a row that can never be published (its payload fails its contract, no contract has
 * its subject, the broker refuses it for its size) gets `parked_at` and is no longer claimed, so it
 * is not retried forever; `last_error` says why. Operators inspect it, fix the cause and release it
 * (`parked_at = null`) or delete it (docs/operations.md). The relay's claim reads the pending index,
 * which leaves parked rows out; counting parked rows (the metric) reads their own small index.
 */
export class ParkUnpublishableOutboxRows extends Migration {
  override up(): void {
    this.addSql(`alter table "outbox_message" add column if not exists "parked_at" timestamptz null`);
    this.addSql(`drop index if exists "outbox_message_pending_idx"`);
    this.addSql(`create index "outbox_message_pending_idx" on "outbox_message" ("created_at", "id") where "published_at" is null and "parked_at" is null`);
    this.addSql(`create index if not exists "outbox_message_parked_idx" on "outbox_message" ("created_at") where "parked_at" is not null`);
  }

  override down(): void {
    this.addSql(`drop index if exists "outbox_message_parked_idx"`);
    this.addSql(`drop index if exists "outbox_message_pending_idx"`);
    this.addSql(`create index "outbox_message_pending_idx" on "outbox_message" ("created_at", "id") where "published_at" is null`);
    this.addSql(`alter table "outbox_message" drop column if exists "parked_at"`);
  }
}

export const outboxParkingMigration: MigrationObject = { name: 'Migration20261126000000_outbox_parked_rows', class: ParkUnpublishableOutboxRows };

/**
 * A service's migration list with every outbox migration it lacks: the parking column follows the
 * table wherever a list already has `outboxMigration` (lists written before it existed), and a list
 * without the outbox is left alone.
 */
export function withOutboxMigrations(migrations: readonly MigrationObject[]): MigrationObject[] {
  const table = migrations.findIndex((m) => m.name === outboxMigration.name);
  if (table < 0 || migrations.some((m) => m.name === outboxParkingMigration.name)) return [...migrations];
  return [...migrations.slice(0, table + 1), outboxParkingMigration, ...migrations.slice(table + 1)];
}
