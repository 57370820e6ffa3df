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
