/**
 * Categories and their rules: CRUD, export/import in the editable snapshot shape, initialization
 * from the bundled defaults, and the current Categorizer (compiled latest rules).
 */
import { isObject } from '../domain/engine/json/json-value.js';
import { Categorizer } from '../domain/categorization/categorizer.js';
import {
  CategoryValidationError, categoryIdProblem, parseCategory, parseCategorySnapshot, parseCategorySnapshots, parseMatcherAsField,
  type Category, type CategoryRepresentation, type CategorySnapshot, type CategoryWithMatcher,
} from '../domain/categorization/category.js';
import type { CategoryRepository, CategoryRule, ImportOutcome } from '../domain/ports/category-repository.js';
import { MatcherError, parseMatcher, type Matcher } from '../domain/categorization/matcher.js';
import { defaultCategories } from './default-categories.js';
import { InvalidInputError, NotFoundError } from '#shared-kernel/domain/errors.js';

export interface CategoryServiceOptions {
  readonly clock?: () => Date;
  /** Told about stored rules that no longer compile or are over MAX_RULE_PROGRAM_SIZE (they are skipped, never fatal). */
  readonly onBrokenRule?: (rule: CategoryRule, reason: string) => void;
  /**
   * How long the current categorizer is reused before the rules are read again (ms). Writes through
   * this service drop it at once; writes by another instance are seen after at most this long.
   * Default 2000; 0 reads the rules for every categorization.
   */
  readonly categorizerTtlMs?: number;
  /** Monotonic milliseconds, for the TTL (tests). */
  readonly now?: () => number;
}

export class CategoryService {
  private readonly clock: () => Date;
  /** Compiled matchers by rule id: rules never change once written, so compiling once is enough. */
  private readonly compiled = new Map<number, Matcher | null>();
  private cached: { categorizer: Promise<Categorizer>; at: number } | undefined;
  /** The last categorizer built and what it was built from: unchanged rules keep it (and what it remembers). */
  private built: { signature: string; categorizer: Categorizer } | undefined;

  constructor(private readonly repository: CategoryRepository, private readonly options: CategoryServiceOptions = {}) {
    this.clock = options.clock ?? (() => new Date());
  }

  list(): Promise<Category[]> {
    return this.repository.list();
  }

  async get(id: string): Promise<Category> {
    const category = await this.repository.get(id);
    if (!category) throw new NotFoundError(`No category with id "${id}"`);
    return category;
  }

  /** The category with its current matcher (null without a rule), as the API shows it. */
  async representation(id: string): Promise<CategoryRepresentation> {
    const [category, rule] = await Promise.all([this.repository.get(id), this.repository.latestRule(id)]);
    if (!category) throw new NotFoundError(`No category with id "${id}"`);
    return { ...category, matcher: rule?.matcher ?? null };
  }

  /** Every category with its current matcher (one query). */
  async representations(): Promise<CategoryRepresentation[]> {
    return (await this.repository.listWithLatestRules()).map(({ category, rule }) => ({ ...category, matcher: rule?.matcher ?? null }));
  }

  /**
   * Create or update. The body's id must equal the URL id. A body with a matcher also gives the
   * category that rule (a new latest rule, unless the latest already is that matcher), in the same
   * transaction; without one the category's rules are left as they are.
   */
  async save(id: string, body: unknown): Promise<{ category: CategoryRepresentation; created: boolean }> {
    const idProblem = categoryIdProblem(id);
    if (idProblem) throw new InvalidInputError(`Category id ${idProblem}`, [{ field: 'id', message: idProblem }]);
    if (isObject(body) && body.id !== id) {
      throw new InvalidInputError('Body id must equal the id in the URL', [{ field: 'id', message: 'must equal the id in the URL' }]);
    }
    const matcherGiven = isObject(body) && body.matcher != null;
    let created: boolean;
    try {
      if (matcherGiven) {
        const { snapshot } = naming(id, () => parseCategorySnapshot(body));
        created = (await this.repository.importSnapshots([snapshot], this.clock())).created === 1;
      } else {
        created = (await this.repository.save(parseCategory(body))).created;
      }
    } finally {
      this.invalidate();
    }
    return { category: await this.representation(id), created };
  }

  async delete(id: string): Promise<void> {
    const deleted = await this.repository.delete(id);
    this.invalidate();
    if (!deleted) throw new NotFoundError(`No category with id "${id}"`);
  }

  async latestRule(id: string): Promise<CategoryRule> {
    await this.get(id);
    const rule = await this.repository.latestRule(id);
    if (!rule) throw new NotFoundError(`Category "${id}" has no rule`);
    return rule;
  }

  async ruleHistory(id: string): Promise<CategoryRule[]> {
    await this.get(id);
    return this.repository.ruleHistory(id);
  }

  /** Adds a rule; it becomes the latest. The matcher is compiled first (bad regex → 400). */
  async addRule(id: string, matcherJson: unknown): Promise<CategoryRule> {
    const matcher = naming(id, () => parseMatcherAsField(matcherJson, 'matcher'));
    await this.get(id);
    const rule = await this.repository.addRule(id, matcher.toJSON(), this.clock());
    this.invalidate();
    return rule;
  }

  async deleteRule(ruleId: number): Promise<void> {
    const deleted = await this.repository.deleteRule(ruleId);
    this.invalidate();
    if (!deleted) throw new NotFoundError(`No category rule with id ${ruleId}`);
  }

  /** Every category that has a rule, with its latest matcher, in the shape import accepts. */
  async exportAll(): Promise<CategorySnapshot[]> {
    const rows = await this.repository.listWithLatestRules();
    return rows.flatMap(({ category, rule }) => (rule ? [{ ...category, matcher: rule.matcher }] : []));
  }

  /** All or nothing: validated completely first, then written in one transaction. */
  async importAll(body: unknown, options: { replaceAll?: boolean } = {}): Promise<ImportOutcome> {
    const parsed = parseCategorySnapshots(body);
    try {
      return await this.repository.importSnapshots(parsed.map((p) => p.snapshot), this.clock(), options);
    } finally {
      this.invalidate();
    }
  }

  /** Loads the bundled defaults (creates or updates them; user-made categories are kept). Idempotent. */
  async initialize(): Promise<ImportOutcome> {
    try {
      return await this.repository.importSnapshots(defaultCategories(), this.clock());
    } finally {
      this.invalidate();
    }
  }

  async isEmpty(): Promise<boolean> {
    return (await this.repository.count()) === 0;
  }

  /** A categorizer over the latest rule of every category (reused for `categorizerTtlMs`). */
  currentCategorizer(): Promise<Categorizer> {
    const ttl = this.options.categorizerTtlMs ?? 2000;
    const now = (this.options.now ?? performance.now.bind(performance))();
    if (this.cached && now - this.cached.at < ttl) return this.cached.categorizer;
    const categorizer = this.readCategorizer();
    this.cached = { categorizer, at: now };
    // A failed read must not be served to later callers.
    categorizer.catch(() => { if (this.cached?.categorizer === categorizer) this.cached = undefined; });
    return categorizer;
  }

  /** Drops the cached categorizer (after a write here, or when another instance announced one). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async readCategorizer(): Promise<Categorizer> {
    const rows = await this.repository.listWithLatestRules();
    const signature = JSON.stringify(rows.map(({ category, rule }) => [category, rule?.id ?? null]));
    if (this.built?.signature === signature) return this.built.categorizer;
    const rules: CategoryWithMatcher[] = [];
    for (const { category, rule } of rows) {
      if (!rule) continue;
      const matcher = this.compile(rule);
      if (matcher) rules.push({ category, matcher });
    }
    const categorizer = new Categorizer(rules);
    this.built = { signature, categorizer };
    return categorizer;
  }

  /** A categorizer over rules given by the caller (to try them before saving). */
  categorizerFor(snapshotsJson: unknown): Categorizer {
    const parsed = parseCategorySnapshots(snapshotsJson);
    return new Categorizer(parsed.map(({ snapshot, matcher }) => ({ category: withoutMatcher(snapshot), matcher })));
  }

  private compile(rule: CategoryRule): Matcher | null {
    let matcher = this.compiled.get(rule.id);
    if (matcher === undefined) {
      try {
        matcher = parseMatcher(rule.matcher);
      } catch (error) {
        if (!(error instanceof MatcherError)) throw error;
        this.options.onBrokenRule?.(rule, error.message);
        matcher = null;
      }
      this.compiled.set(rule.id, matcher);
    }
    return matcher;
  }
}

/** Runs a parse whose problems are about category `id`, and says so (the detail names the category, then the field). */
function naming<T>(id: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof CategoryValidationError) throw new CategoryValidationError(error.problems, `Category "${id}": ${error.message}`);
    throw error;
  }
}

function withoutMatcher(snapshot: CategorySnapshot): Category {
  const { id, title, severity, acceptable, guidance } = snapshot;
  return { id, title, severity, acceptable, guidance };
}
