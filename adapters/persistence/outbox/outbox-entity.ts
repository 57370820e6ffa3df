import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * Read model of `outbox_message` for MikroORM (operations: "what is still unpublished?"). Writes go
 * through `enqueueOutboxMessage` and the relay, which use SQL directly. Every service that has the
 * outbox registers this entity, which also gives MikroORM at least one entity to start with.
 */
export const OutboxMessageEntity = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox_message',
  properties: {
    id: p.uuid().primary(),
    subject: p.text(),
    payload: p.json<unknown>(),
    headers: p.json<Record<string, string>>(),
    msgId: p.text().fieldName('msg_id'),
    createdAt: p.datetime().fieldName('created_at'),
    publishedAt: p.datetime().nullable().fieldName('published_at'),
    attempts: p.integer(),
    nextAttemptAt: p.datetime().nullable().fieldName('next_attempt_at'),
    lastError: p.text().nullable().fieldName('last_error'),
    parkedAt: p.datetime().nullable().fieldName('parked_at'),
  },
});
