import { randomUUID } from 'node:crypto';
import { Migration } from '@mikro-orm/migrations';
import {
  defineEntity, LockMode, p, UniqueConstraintViolationException, type EntityManager, type FilterQuery, type InferEntity, type MigrationObject, type MikroORM,
} from '@mikro-orm/postgresql';
import { enqueueOutboxMessage, storedMember } from '#adapters/persistence/index.js';
import type { Catalog } from '#contracts/catalog.js';
import type { EhrConnection } from '../../domain/ehr-connection.js';
import type { Sealed } from '../domain/master-keyring.js';
import type { FacilityKeyReferences } from '../domain/ports/facility-key-references.js';
import type { KeyChanges, KeySearch, KeySortField, SigningKeyRepository, StoredPrivateKey } from '../domain/ports/signing-key-repository.js';
import type { SigningKeyStore, SigningKeyTransaction } from '../domain/ports/signing-key-store.js';
import { KEY_STATUSES, SIGNING_ALGORITHMS, SigningKeyError, type PublicJwk, type SigningKey } from '../domain/model.js';

/**
 * Storage of the key registry: the `signing_key` table (own migration, no foreign key into the
 * facility module's tables), the association through the facility table's `key_id` column
 * (FacilityKeyReferences), and audit events through the shared transactional outbox.
 */

export const SigningKeyEntity = defineEntity({
  name: 'SigningKeyEntity',
  tableName: 'signing_key',
  properties: {
    kid: p.string().primary().length(36),
    algorithm: p.string().length(16),
    status: p.string().length(16),
    isPrimary: p.boolean(),
    createdAt: p.datetime(),
    statusChangedAt: p.datetime(),
    expiresAt: p.datetime().nullable(),
    publicJwk: p.json<PublicJwk>(),
    /** `enc:v1:...` envelope (master-keyring.ts); never selected except to sign or re-encrypt. */
    privateKeyEnvelope: p.text().lazy(),
    /** The master key that sealed the envelope (as the envelope says): start-up check and re-encryption select by it. */
    masterKeyId: p.string().length(64),
  },
});
export type SigningKeyRow = InferEntity<typeof SigningKeyEntity>;

export class CreateSigningKeyTable extends Migration {
  override up(): void {
    this.addSql(`create table "signing_key" (
      "kid" varchar(36) primary key,
      "algorithm" varchar(16) not null check ("algorithm" in ('RS384', 'ES384', 'RS256', 'ES256', 'PS384', 'EdDSA')),
      "status" varchar(16) not null check ("status" in ('active', 'disabled', 'expired')),
      "is_primary" boolean not null default false,
      "created_at" timestamptz not null,
      "status_changed_at" timestamptz not null,
      "expires_at" timestamptz null,
      "public_jwk" jsonb not null,
      "private_key_envelope" text not null,
      constraint "signing_key_primary_is_active" check (not "is_primary" or "status" = 'active')
    )`);
    // One primary key at a time, enforced by the database rather than by check-then-update.
    this.addSql(`create unique index "signing_key_single_primary_uq" on "signing_key" ("is_primary") where "is_primary"`);
    this.addSql(`create index "signing_key_expires_at_idx" on "signing_key" ("expires_at") where "status" <> 'expired'`);
  }

  override down(): void {
    this.addSql('drop table if exists "signing_key"');
  }
}

/**
 * Records with each private key the id of the master key that sealed it, taken from the envelope
 * (`enc:v1:<id>:...`; rows written before the keyring carry the legacy key's fingerprint there).
 */
export class AddSigningKeyMasterKeyId extends Migration {
  override up(): void {
    this.addSql(`alter table "signing_key" add column "master_key_id" varchar(64) null`);
    this.addSql(`update "signing_key" set "master_key_id" = split_part("private_key_envelope", ':', 3)`);
    this.addSql(`alter table "signing_key" alter column "master_key_id" set not null`);
    this.addSql(`create index "signing_key_master_key_id_idx" on "signing_key" ("master_key_id")`);
  }

  override down(): void {
    this.addSql('alter table "signing_key" drop column if exists "master_key_id"');
  }
}

/** Independent of the facility tables, so they may be listed anywhere in the service's migrations. */
export const signingKeyMigrations: MigrationObject[] = [
  { name: 'Migration20261122060000_signing_keys', class: CreateSigningKeyTable },
  { name: 'Migration20261201020000_signing_key_master_key_id', class: AddSigningKeyMasterKeyId },
];
export const signingKeyEntities = [SigningKeyEntity];

export function toSigningKey(row: SigningKeyRow): SigningKey {
  return {
    kid: row.kid,
    algorithm: storedMember(SIGNING_ALGORITHMS, row.algorithm, 'signing_key.algorithm'),
    createdAt: row.createdAt,
    status: storedMember(KEY_STATUSES, row.status, 'signing_key.status'),
    statusChangedAt: row.statusChangedAt,
    primary: row.isPrimary,
    expiresAt: row.expiresAt ?? null,
    publicJwk: row.publicJwk,
  };
}

const SORT_COLUMNS: Record<KeySortField, keyof SigningKeyRow> = {
  Kid: 'kid', Algorithm: 'algorithm', Status: 'status', CreatedAt: 'createdAt', ExpiresAt: 'expiresAt',
};

export class MikroSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly em: EntityManager) {}

  async insert(key: SigningKey, privateKey: Sealed): Promise<void> {
    try {
      await this.em.insert(SigningKeyEntity, {
        kid: key.kid, algorithm: key.algorithm, status: key.status, isPrimary: key.primary, createdAt: key.createdAt,
        statusChangedAt: key.statusChangedAt, expiresAt: key.expiresAt, publicJwk: key.publicJwk,
        privateKeyEnvelope: privateKey.envelope, masterKeyId: privateKey.masterKeyId,
      });
    } catch (error) {
      throw primaryConflict(error);
    }
  }

  async find(kid: string, lock = false): Promise<SigningKey | null> {
    const row = await this.em.findOne(SigningKeyEntity, { kid }, {
      disableIdentityMap: true, ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
    });
    return row ? toSigningKey(row) : null;
  }

  async privateKey(kid: string, lock = false): Promise<StoredPrivateKey | null> {
    const rows: PrivateKeyRow[] = await this.em.execute(
      `select "kid", "private_key_envelope", "master_key_id" from "signing_key" where "kid" = ?${lock ? ' for update' : ''}`, [kid]);
    return rows[0] ? toStoredPrivateKey(rows[0]) : null;
  }

  async privateKeys(): Promise<StoredPrivateKey[]> {
    const rows: PrivateKeyRow[] = await this.em.execute(
      'select "kid", "private_key_envelope", "master_key_id" from "signing_key" order by "created_at", "kid"');
    return rows.map(toStoredPrivateKey);
  }

  async kidsSealedOutside(masterKeyIds: readonly string[]): Promise<string[]> {
    if (masterKeyIds.length === 0) throw new Error('kidsSealedOutside needs at least one master key id');
    const rows: Array<{ kid: string }> = await this.em.execute(
      `select "kid" from "signing_key" where "master_key_id" not in (${masterKeyIds.map(() => '?').join(', ')}) order by "created_at", "kid"`, [...masterKeyIds]);
    return rows.map((row) => row.kid);
  }

  async replacePrivateKey(kid: string, privateKey: Sealed): Promise<void> {
    await this.em.execute('update "signing_key" set "private_key_envelope" = ?, "master_key_id" = ? where "kid" = ?',
      [privateKey.envelope, privateKey.masterKeyId, kid]);
  }

  async search(criteria: KeySearch, sort: { field: KeySortField; order: 'asc' | 'desc' }, page: { limit: number; offset: number }) {
    const where: FilterQuery<SigningKeyRow> = {};
    // The stored status lags behind an expiry the job has not recorded yet: filter on the effective one.
    if (criteria.status === 'expired') {
      where.$or = [{ status: 'expired' }, { expiresAt: { $lte: criteria.now } }];
    } else if (criteria.status !== undefined) {
      where.status = criteria.status;
      where.$or = [{ expiresAt: null }, { expiresAt: { $gt: criteria.now } }];
    }
    if (criteria.algorithm !== undefined) where.algorithm = criteria.algorithm;
    if (criteria.primary !== undefined) where.isPrimary = criteria.primary;
    const [rows, totalCount] = await this.em.findAndCount(SigningKeyEntity, where, {
      orderBy: { [SORT_COLUMNS[sort.field]]: sort.order, ...(sort.field === 'Kid' ? {} : { kid: 'asc' }) },
      limit: page.limit, offset: page.offset, disableIdentityMap: true,
    });
    return { records: rows.map(toSigningKey), totalCount };
  }

  async all(): Promise<SigningKey[]> {
    const rows = await this.em.find(SigningKeyEntity, {}, { orderBy: { createdAt: 'asc', kid: 'asc' }, disableIdentityMap: true });
    return rows.map(toSigningKey);
  }

  async update(kid: string, changes: KeyChanges): Promise<void> {
    try {
      await this.em.nativeUpdate(SigningKeyEntity, { kid }, {
        status: changes.status, statusChangedAt: changes.statusChangedAt, isPrimary: changes.primary, expiresAt: changes.expiresAt,
      });
    } catch (error) {
      throw primaryConflict(error);
    }
  }

  async clearPrimary(exceptKid: string): Promise<void> {
    await this.em.nativeUpdate(SigningKeyEntity, { isPrimary: true, kid: { $ne: exceptKid } }, { isPrimary: false });
  }

  async remove(kid: string): Promise<void> {
    await this.em.nativeDelete(SigningKeyEntity, { kid });
  }

  async expireDue(now: Date): Promise<string[]> {
    const rows: Array<{ kid: string }> = await this.em.execute(
      `update "signing_key" set "status" = 'expired', "is_primary" = false, "status_changed_at" = "expires_at"
       where "status" <> 'expired' and "expires_at" is not null and "expires_at" <= ? returning "kid"`, [now]);
    return rows.map((row) => row.kid);
  }
}

interface PrivateKeyRow {
  kid: string;
  private_key_envelope: string;
  master_key_id: string;
}

function toStoredPrivateKey(row: PrivateKeyRow): StoredPrivateKey {
  return { kid: row.kid, envelope: row.private_key_envelope, masterKeyId: row.master_key_id };
}

function primaryConflict(error: unknown): unknown {
  if (error instanceof UniqueConstraintViolationException) {
    return new SigningKeyError('conflict', 'Another key became primary at the same moment; only one key can be primary. Retry.');
  }
  return error;
}

/** FacilityKeyReferences in SQL on the facility module's `facility` table (columns facility_id, key_id, is_deleted, modify_date). */
export class SqlFacilityKeyReferences implements FacilityKeyReferences {
  constructor(private readonly em: EntityManager) {}

  async facilitiesUsingKey(kid: string): Promise<string[]> {
    const rows: Array<{ facility_id: string }> = await this.em.execute(
      'select "facility_id" from "facility" where "key_id" = ? and not "is_deleted" order by "facility_id"', [kid]);
    return rows.map((row) => row.facility_id);
  }

  async keyOfFacility(facilityId: string): Promise<{ kid: string | null } | undefined> {
    const rows: Array<{ key_id: string | null }> = await this.em.execute(
      'select "key_id" from "facility" where "facility_id" = ? and not "is_deleted"', [facilityId]);
    return rows[0] ? { kid: rows[0].key_id ?? null } : undefined;
  }

  async signingProfileOf(facilityId: string): Promise<{ kid: string | null; ehrConnections: EhrConnection[] } | undefined> {
    const rows: Array<{ key_id: string | null; ehr_connections: EhrConnection[] | string | null }> = await this.em.execute(
      'select "key_id", "ehr_connections" from "facility" where "facility_id" = ? and not "is_deleted"', [facilityId]);
    const row = rows[0];
    if (!row) return undefined;
    const stored: unknown = typeof row.ehr_connections === 'string' ? JSON.parse(row.ehr_connections) : row.ehr_connections ?? [];
    if (!isStoredConnectionList(stored)) throw new Error(`facility.ehr_connections of ${facilityId} is not a list of EHR connections`);
    return {
      kid: row.key_id ?? null,
      ehrConnections: stored.map((connection) => ({ name: connection.name, clientId: connection.clientId, tokenUrl: connection.tokenUrl })),
    };
  }

  async assign(facilityId: string, kid: string | null, at: Date): Promise<boolean> {
    const rows: Array<{ facility_id: string }> = await this.em.execute(
      'update "facility" set "key_id" = ?, "modify_date" = ? where "facility_id" = ? and not "is_deleted" returning "facility_id"', [kid, at, facilityId]);
    return rows.length > 0;
  }
}

export interface MikroSigningKeyStoreOptions {
  readonly orm: MikroORM;
  /** For AuditableEventOccurred; without it no audit events are written. */
  readonly catalog?: Catalog;
  readonly afterCommit?: () => void;
}

const AUDIT_SCHEMA_VERSION = '1.0.0';

/**
 * The advisory lock of JWKS publication (one number for the whole tenant database; advisory locks
 * are per database, so other databases on the server do not share it). Spelled out, not hashed, so
 * that an operator can find the holder in pg_locks (objid 7352 with classid 0).
 */
export const JWKS_PUBLICATION_LOCK = 7352;

export class MikroSigningKeyStore implements SigningKeyStore {
  constructor(private readonly options: MikroSigningKeyStoreOptions) {}

  async write<T>(work: (tx: SigningKeyTransaction) => Promise<T>): Promise<T> {
    const result = await this.options.orm.em.fork().transactional((em) => work(this.transactionOn(em, true)));
    this.options.afterCommit?.();
    return result;
  }

  read<T>(work: (tx: SigningKeyTransaction) => Promise<T>): Promise<T> {
    return work(this.transactionOn(this.options.orm.em.fork(), false));
  }

  publishExclusively<T>(publish: (keys: SigningKey[]) => Promise<T>): Promise<T> {
    return this.options.orm.em.fork().transactional(async (em) => {
      const tx = this.transactionOn(em, false);
      await tx.lockJwksPublication();
      // Read after the lock: everything committed before the previous publisher let go is seen.
      return publish(await tx.keys.all());
    });
  }

  private transactionOn(em: EntityManager, writable: boolean): SigningKeyTransaction {
    const catalog = this.options.catalog;
    return {
      keys: new MikroSigningKeyRepository(em),
      facilities: new SqlFacilityKeyReferences(em),
      lockJwksPublication: async () => {
        if (!em.isInTransaction()) throw new Error('the JWKS publication lock is taken inside a transaction');
        await em.execute('select pg_advisory_xact_lock(0, ?)', [JWKS_PUBLICATION_LOCK]);
      },
      audit: async (event) => {
        if (!writable) throw new Error('audit events can only be written in a write transaction');
        if (!catalog) return;
        const correlationId = randomUUID();
        await enqueueOutboxMessage(em, {
          subject: catalog.byName('AuditableEventOccurred').subject,
          msgId: `audit-${correlationId}`,
          payload: {
            schemaVersion: AUDIT_SCHEMA_VERSION, facilityId: event.facilityId ?? '*', serviceName: 'Tenant', correlationId,
            eventDate: event.at.toISOString(), userId: event.actor.userId, user: event.actor.user, action: event.action,
            resource: event.resource, propertyChanges: event.changes.map((change) => ({ ...change })), notes: event.notes,
          },
        });
      },
    };
  }
}

/** facility.ehr_connections as the tenant writes it: objects with a name, a client id and a token URL. */
function isStoredConnectionList(value: unknown): value is EhrConnection[] {
  return Array.isArray(value) && value.every((item: unknown) => typeof item === 'object' && item !== null
    && 'name' in item && typeof item.name === 'string' && 'clientId' in item && typeof item.clientId === 'string'
    && 'tokenUrl' in item && typeof item.tokenUrl === 'string');
}
