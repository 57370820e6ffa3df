/**
 * PostgreSQL persistence through MikroORM 7, one database per service.
 *
 * - `openDatabase(...)` creates the database if absent, applies the service's migration classes
 *   (passed as a list: file-glob discovery is not used) and returns `{ orm, readinessCheck, close }`;
 *   `databaseConnection(config)` gives its connection fields from `db.url` or db.host/port/user/name.
 * - `requestContextMiddleware(orm)` / `withForkedEm(orm, fn)`: one EntityManager fork per HTTP request,
 *   message or job (the global EM is disabled).
 * - `insertMany(em, table, columns, rows)`: parameterised multi-row INSERTs for bulk writes.
 * - Transactional outbox: add `outboxMigration` to the service's migrations, call
 *   `enqueueOutboxMessage(tx, {...})` inside the transaction that makes the change, and run one
 *   `OutboxRelay` per process; it publishes through the `MessagePublisher` port with the row's msg id.
 */
export { databaseConnection, openDatabase, pgSslOptions, type Database, type DatabaseOptions } from './database.js';
export { requestContextMiddleware, withForkedEm, currentEm } from './request-context.js';
export { insertMany, type BulkValue, type InsertManyOptions } from './bulk-insert.js';
export { enqueueOutboxMessage, pendingOutboxRow, type OutboxMessageInput, type EnqueuedOutboxMessage, type PendingOutboxRow } from './outbox/enqueue.js';
export { DEFAULT_RELAY_GATHER_MS, OutboxRelay, type OutboxRelayOptions, type OutboxRelayEvent, type RelayBatchResult } from './outbox/relay.js';
export {
  outboxMigration, outboxParkingMigration, withOutboxMigrations, CreateOutboxMessageTable, ParkUnpublishableOutboxRows, OUTBOX_TABLE,
  type OutboxRow, type OutboxDatabase,
} from './outbox/outbox-table.js';
export { uuidV7 } from './outbox/uuid-v7.js';
export { OutboxMessageEntity } from './outbox/outbox-entity.js';
export { storedMember } from './stored-values.js';
