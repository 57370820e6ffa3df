import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { ColumnType, Generated, Selectable } from 'kysely';
import { countOf } from './count.js';
import type { Category, CategorySeverity, CategorySnapshot } from '../../domain/categorization/category.js';
import type {
  CategoryRepository, CategoryRule, CategoryWithLatestRule, ImportOutcome,
} from '../../domain/ports/category-repository.js';
import { isMatcherJson, type MatcherJson } from '../../domain/categorization/matcher.js';
import { stableStringify } from './stable-json.js';

/**
 * The tables as Kysely sees them (columns as in migrations.ts; bigserial ids read as text, jsonb written as JSON text).
 * `severity` is a CategorySeverity because the column's CHECK constraint admits only those values;
 * `matcher` reads as unknown JSON and is parsed before use (matcherOf).
 */
export interface CategoryDatabase {
  category: { id: string; title: string; severity: CategorySeverity; acceptable: boolean; guidance: string };
  category_rule: {
    id: Generated<string | number>; category_id: string; matcher: ColumnType<unknown, string, string>; timestamp: ColumnType<Date | string, Date, Date>;
  };
}
type CategoryRow = Selectable<CategoryDatabase['category']>;
type RuleRow = Selectable<CategoryDatabase['category_rule']>;

const toCategory = (row: CategoryRow): Category => ({
  id: row.id, title: row.title, severity: row.severity, acceptable: row.acceptable, guidance: row.guidance,
});

/** A stored matcher: jsonb, or its text where a driver answers text; its shape is checked, not trusted. */
function matcherOf(stored: unknown): MatcherJson {
  const json: unknown = typeof stored === 'string' ? JSON.parse(stored) : stored;
  if (!isMatcherJson(json)) throw new Error('A stored category rule matcher does not have the shape of a matcher');
  return json;
}

const toRule = (row: RuleRow): CategoryRule => ({
  id: Number(row.id),
  categoryId: row.category_id,
  matcher: matcherOf(row.matcher),
  timestamp: new Date(row.timestamp).toISOString(),
});

/** Categories and their versioned rules in PostgreSQL (tables category, category_rule). */
export class PgCategoryRepository implements CategoryRepository {
  constructor(private readonly orm: MikroORM) {}

  private db(em: EntityManager = this.orm.em.fork()) {
    return em.getKysely<CategoryDatabase>();
  }

  async list(): Promise<Category[]> {
    const rows = await this.db().selectFrom('category').selectAll().orderBy('id').execute();
    return rows.map(toCategory);
  }

  async get(id: string): Promise<Category | undefined> {
    const row = await this.db().selectFrom('category').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toCategory(row) : undefined;
  }

  async save(category: Category): Promise<{ created: boolean }> {
    return this.orm.em.fork().transactional(async (em) => upsertCategory(em, category));
  }

  async delete(id: string): Promise<boolean> {
    return this.orm.em.fork().transactional(async (em) => (await deleteCategoriesIn(em, [id])) > 0);
  }

  async count(): Promise<number> {
    const row = await this.db().selectFrom('category').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    return countOf(row);
  }

  async latestRule(categoryId: string): Promise<CategoryRule | undefined> {
    const row = await this.db().selectFrom('category_rule').selectAll().where('category_id', '=', categoryId)
      .orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row ? toRule(row) : undefined;
  }

  async ruleHistory(categoryId: string): Promise<CategoryRule[]> {
    const rows = await this.db().selectFrom('category_rule').selectAll().where('category_id', '=', categoryId)
      .orderBy('timestamp', 'desc').orderBy('id', 'desc').execute();
    return rows.map(toRule);
  }

  async addRule(categoryId: string, matcher: MatcherJson, timestamp: Date): Promise<CategoryRule> {
    return insertRule(this.orm.em.fork(), categoryId, matcher, timestamp);
  }

  async deleteRule(ruleId: number): Promise<boolean> {
    const result = await this.db().deleteFrom('category_rule').where('id', '=', ruleId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async listWithLatestRules(): Promise<CategoryWithLatestRule[]> {
    const em = this.orm.em.fork();
    const [categories, rules] = await Promise.all([
      this.db(em).selectFrom('category').selectAll().orderBy('id').execute(),
      // DISTINCT ON keeps the first row per category in index order: the latest rule.
      this.db(em).selectFrom('category_rule').selectAll().distinctOn('category_id')
        .orderBy('category_id').orderBy('timestamp', 'desc').orderBy('id', 'desc').execute(),
    ]);
    const latest = new Map(rules.map((row) => [row.category_id, toRule(row)]));
    return categories.map((row) => {
      const rule = latest.get(row.id);
      return rule ? { category: toCategory(row), rule } : { category: toCategory(row) };
    });
  }

  async importSnapshots(snapshots: readonly CategorySnapshot[], timestamp: Date, options: { replaceAll?: boolean } = {}): Promise<ImportOutcome> {
    return this.orm.em.fork().transactional(async (em) => {
      const db = em.getKysely<CategoryDatabase>();
      let created = 0;
      let updated = 0;
      let rulesAdded = 0;
      let deleted = 0;
      for (const snapshot of snapshots) {
        const { matcher, ...category } = snapshot;
        if ((await upsertCategory(em, category)).created) created++;
        else updated++;
        const latest = await db.selectFrom('category_rule').select('matcher').where('category_id', '=', category.id)
          .orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
        // An unchanged matcher adds no history row, so repeated imports and initializations stay idempotent.
        if (!latest || stableStringify(matcherOf(latest.matcher)) !== stableStringify(matcher)) {
          await insertRule(em, category.id, matcher, timestamp);
          rulesAdded++;
        }
      }
      if (options.replaceAll) {
        const keep = snapshots.map((s) => s.id);
        const gone = await db.selectFrom('category').select('id').where('id', 'not in', keep).execute();
        deleted = await deleteCategoriesIn(em, gone.map((row) => row.id));
      }
      return { created, updated, rulesAdded, deleted };
    });
  }
}

async function upsertCategory(em: EntityManager, category: Category): Promise<{ created: boolean }> {
  const db = em.getKysely<CategoryDatabase>();
  const existing = await db.selectFrom('category').select('id').where('id', '=', category.id).forUpdate().executeTakeFirst();
  const values = { title: category.title, severity: category.severity, acceptable: category.acceptable, guidance: category.guidance };
  await db.insertInto('category').values({ id: category.id, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values)).execute();
  return { created: !existing };
}

async function insertRule(em: EntityManager, categoryId: string, matcher: MatcherJson, timestamp: Date): Promise<CategoryRule> {
  const row = await em.getKysely<CategoryDatabase>().insertInto('category_rule')
    .values({ category_id: categoryId, matcher: JSON.stringify(matcher), timestamp })
    .returningAll().executeTakeFirstOrThrow();
  return toRule(row);
}

/**
 * Deletes categories with their rules (ON DELETE CASCADE). Stored results keep the ids they were
 * categorized with; every reader counts only categories that exist (submission-categorization.ts),
 * so the results of a deleted category are uncategorized from the moment this commits.
 */
async function deleteCategoriesIn(em: EntityManager, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const deleted = await em.getKysely<CategoryDatabase>().deleteFrom('category').where('id', 'in', ids).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
