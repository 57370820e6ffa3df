import type { MikroORM } from '@mikro-orm/postgresql';
import type { ColumnType, Generated, Selectable } from 'kysely';
import { countOf } from './count.js';
import type { Artifact, ArtifactSummary, ArtifactType } from '../../domain/artifacts/artifact.js';
import type { ArtifactMetadata, ArtifactRepository } from '../../domain/ports/artifact-repository.js';
import type { PackageSummary } from '../../domain/artifacts/package-summary.js';

/** Every column but the content: listing artifacts must not read megabytes of packages (V-6). */
const SUMMARY_COLUMNS = ['id', 'type', 'name', 'size', 'package_name', 'version', 'fhir_version', 'resource_type', 'url', 'updated_at'] as const;

/** The tables as Kysely sees them (columns as in migrations.ts). */
interface ArtifactDatabase {
  artifact: {
    id: Generated<number>; type: ArtifactType; name: string; content: Buffer; size: number; package_name: string | null;
    version: string | null; fhir_version: string | null; resource_type: string | null; url: string | null;
    /** jsonb: written as JSON text (only ever a PackageSummary, see save), read parsed. */
    summary: ColumnType<PackageSummary | null, string | null, string | null>;
    created_at: Generated<Date>; updated_at: ColumnType<Date, Date | undefined, Date>;
  };
  /** bigint: read as text. */
  artifact_generation: { id: number; generation: string };
}

type ArtifactRow = Pick<Selectable<ArtifactDatabase['artifact']>, (typeof SUMMARY_COLUMNS)[number]>;

function toSummary(row: ArtifactRow): ArtifactSummary {
  return {
    id: row.id, type: row.type, name: row.name, size: row.size,
    ...(row.package_name ? { packageName: row.package_name } : {}),
    ...(row.version ? { version: row.version } : {}),
    ...(row.fhir_version ? { fhirVersion: row.fhir_version } : {}),
    ...(row.resource_type ? { resourceType: row.resource_type } : {}),
    ...(row.url ? { url: row.url } : {}),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** Artifacts in PostgreSQL (table artifact, unique by (type, name)). */
export class PgArtifactRepository implements ArtifactRepository {
  constructor(private readonly orm: MikroORM) {}

  private db() {
    return this.orm.em.fork().getKysely<ArtifactDatabase>();
  }

  async list(): Promise<ArtifactSummary[]> {
    const rows = await this.db().selectFrom('artifact').select([...SUMMARY_COLUMNS]).orderBy('type').orderBy('name').execute();
    return rows.map(toSummary);
  }

  async get(type: ArtifactType, name: string): Promise<Artifact | undefined> {
    const row = await this.db().selectFrom('artifact').select([...SUMMARY_COLUMNS, 'content'])
      .where('type', '=', type).where('name', '=', name).executeTakeFirst();
    return row ? { ...toSummary(row), content: row.content } : undefined;
  }

  /** The stored summary JSON (package details), without the content. */
  async summaryOf(type: ArtifactType, name: string): Promise<PackageSummary | undefined> {
    const row = await this.db().selectFrom('artifact').select('summary').where('type', '=', type).where('name', '=', name).executeTakeFirst();
    return row?.summary ?? undefined;
  }

  /** Every stored summary with its artifact name (terminology dependencies across artifacts). */
  async allSummaries(): Promise<{ type: ArtifactType; name: string; summary: PackageSummary | undefined }[]> {
    const rows = await this.db().selectFrom('artifact').select(['type', 'name', 'summary']).orderBy('type').orderBy('name').execute();
    return rows.map((row) => ({ type: row.type, name: row.name, summary: row.summary ?? undefined }));
  }

  async save(type: ArtifactType, name: string, content: Buffer, metadata: ArtifactMetadata): Promise<{ artifact: ArtifactSummary; created: boolean }> {
    return this.orm.em.fork().transactional(async (em) => {
      const db = em.getKysely<ArtifactDatabase>();
      const existing = await db.selectFrom('artifact').select('id').where('type', '=', type).where('name', '=', name).forUpdate().executeTakeFirst();
      const values = {
        content, size: content.length,
        package_name: metadata.packageName ?? null, version: metadata.version ?? null, fhir_version: metadata.fhirVersion ?? null,
        resource_type: metadata.resourceType ?? null, url: metadata.url ?? null,
        summary: metadata.summary === undefined ? null : JSON.stringify(metadata.summary),
        updated_at: new Date(),
      };
      const row = await db.insertInto('artifact').values({ type, name, ...values })
        .onConflict((oc) => oc.columns(['type', 'name']).doUpdateSet(values))
        .returning([...SUMMARY_COLUMNS]).executeTakeFirstOrThrow();
      return { artifact: toSummary(row), created: !existing };
    });
  }

  async delete(type: ArtifactType, name: string): Promise<boolean> {
    const result = await this.db().deleteFrom('artifact').where('type', '=', type).where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async count(): Promise<number> {
    const row = await this.db().selectFrom('artifact').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    return countOf(row);
  }

  /** artifact_generation, incremented by a trigger with every change of the artifact table (migrations.ts). */
  async generation(): Promise<number> {
    const row = await this.db().selectFrom('artifact_generation').select('generation').where('id', '=', 1).executeTakeFirst();
    return Number(row?.generation ?? 0);
  }

  async forEachContent(type: ArtifactType, visit: (artifact: Artifact) => Promise<void>): Promise<void> {
    const ids = await this.db().selectFrom('artifact').select(['id', 'name']).where('type', '=', type).orderBy('name').execute();
    for (const { name } of ids) {
      const artifact = await this.get(type, name);
      if (artifact) await visit(artifact);
    }
  }
}
