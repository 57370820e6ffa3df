/**
 * Categories of validation issues (specification, "Category record") and the editable snapshot
 * shape used by export, import and the bundled defaults: {id, title, severity, acceptable,
 * guidance, matcher}.
 */
import { InvalidInputError, type FieldProblem } from '#shared-kernel/domain/errors.js';
import { isObject } from '../engine/json/json-value.js';
import { MatcherError, parseMatcher, type Matcher, type MatcherJson } from './matcher.js';

export const CATEGORY_SEVERITIES = ['ERROR', 'WARNING', 'INFORMATION'] as const;
export type CategorySeverity = (typeof CATEGORY_SEVERITIES)[number];

export interface Category {
  readonly id: string;
  readonly title: string;
  readonly severity: CategorySeverity;
  /** Issues in an acceptable category do not stop a submission (see validity.ts). */
  readonly acceptable: boolean;
  /** What the facility should do about such issues. */
  readonly guidance: string;
}

export interface CategorySnapshot extends Category {
  readonly matcher: MatcherJson;
}

/**
 * A category as the API shows it (specification: Category JSON shape is id, title, severity,
 * acceptable, guidance, matcher): with its current matcher, null while it has no rule.
 */
export interface CategoryRepresentation extends Category {
  readonly matcher: MatcherJson | null;
}

/** A category with its current (latest) rule, compiled, ready to categorize. */
export interface CategoryWithMatcher {
  readonly category: Category;
  readonly matcher: Matcher;
}

export const UNCATEGORIZED_ID = 'uncategorized';

/** Given to issues no category matches. Never stored; the id is reserved. */
export const UNCATEGORIZED: Category = Object.freeze({
  id: UNCATEGORIZED_ID,
  title: 'Uncategorized',
  severity: 'WARNING',
  acceptable: false,
  guidance: 'No category describes this issue yet. Until one does, an uncategorized error or fatal issue makes the submission invalid; '
    + 'ask the platform team to review the message and add or adjust a category rule.',
});

export const MAX_ID_LENGTH = 255;
export const MAX_TITLE_LENGTH = 255;
export const MAX_GUIDANCE_LENGTH = 1000;
/** Categories in one import (or one trial in $categorize): far above real use, a bound on the work one request causes. */
export const MAX_CATEGORIES_PER_IMPORT = 1000;
/** Human-readable ids with underscores (`unknown_code_system`); they appear in URLs, so no slashes or spaces. */
// Linear: anchored, one character class.
const CATEGORY_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A category (or an import of them) that is not valid; each problem names its field (`[3].matcher.children[0].regex`, `title`). */
export class CategoryValidationError extends InvalidInputError {
  override readonly name = 'CategoryValidationError';
  constructor(problems: readonly FieldProblem[], summary?: string) {
    super(summary ?? problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  }
}

/** Checks a category id given in a URL or a body. Returns the problem or undefined. */
export function categoryIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id.length === 0) return 'is required';
  if (id.length > MAX_ID_LENGTH) return `must be at most ${MAX_ID_LENGTH} characters`;
  if (!CATEGORY_ID.test(id)) return 'may contain only letters, digits, underscores, hyphens and dots, and must start with a letter or digit';
  if (id.toLowerCase() === UNCATEGORIZED_ID) return `"${UNCATEGORIZED_ID}" is reserved for issues that match no category`;
  return undefined;
}

/**
 * Validates the category fields of `input` (without the matcher). Severity is accepted in any case
 * and stored upper-case. `prefix` is prepended to field names (`[2].` in an import).
 */
export function parseCategory(input: unknown, prefix = ''): Category {
  if (!isObject(input)) {
    throw new CategoryValidationError([{ field: prefix === '' ? '(root)' : prefix.replace(/\.$/, '') /* linear: one character at each position */, message: 'must be an object' }]);
  }
  const body = input;
  const problems: FieldProblem[] = [];
  const idProblem = categoryIdProblem(body.id);
  if (idProblem) problems.push({ field: `${prefix}id`, message: idProblem });
  const title = requiredText(body.title, MAX_TITLE_LENGTH, `${prefix}title`, problems);
  const guidance = requiredText(body.guidance, MAX_GUIDANCE_LENGTH, `${prefix}guidance`, problems);
  const upperSeverity = typeof body.severity === 'string' ? body.severity.toUpperCase() : undefined;
  const severity = CATEGORY_SEVERITIES.find((known) => known === upperSeverity);
  if (!severity) {
    problems.push({ field: `${prefix}severity`, message: `must be one of ${CATEGORY_SEVERITIES.join(', ')}` });
  }
  const { id, acceptable } = body;
  if (typeof acceptable !== 'boolean') problems.push({ field: `${prefix}acceptable`, message: 'must be true or false' });
  // Each undefined below has put its problem in the list (categoryIdProblem refuses a non-string id).
  if (problems.length > 0 || typeof id !== 'string' || title === undefined || guidance === undefined || !severity || typeof acceptable !== 'boolean') {
    throw new CategoryValidationError(problems);
  }
  return { id, title, severity, acceptable, guidance };
}

function requiredText(value: unknown, max: number, field: string, problems: FieldProblem[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push({ field, message: 'is required' });
    return undefined;
  }
  if (value.length > max) {
    problems.push({ field, message: `must be at most ${max} characters; got ${value.length}` });
    return undefined;
  }
  return value;
}

/** Parses one snapshot (category plus matcher); the matcher is compiled to prove it works. */
export function parseCategorySnapshot(input: unknown, prefix = ''): { snapshot: CategorySnapshot; matcher: Matcher } {
  const category = parseCategory(input, prefix);
  const rawMatcher = isObject(input) ? input.matcher : undefined;
  if (rawMatcher === undefined || rawMatcher === null) {
    throw new CategoryValidationError([{ field: `${prefix}matcher`, message: 'is required' }]);
  }
  const matcher = parseMatcherAsField(rawMatcher, `${prefix}matcher`);
  return { snapshot: { ...category, matcher: matcher.toJSON() }, matcher };
}

/** parseMatcher, with its error turned into a field problem. */
export function parseMatcherAsField(json: unknown, path = 'matcher'): Matcher {
  try {
    return parseMatcher(json, path);
  } catch (error) {
    if (error instanceof MatcherError) throw new CategoryValidationError(error.problems);
    throw error;
  }
}

/**
 * Parses a whole import: an array of snapshots, all valid, ids unique (case-insensitively, since
 * ids are compared that way by people). The error names the index and field of the first problem.
 */
export function parseCategorySnapshots(input: unknown): { snapshot: CategorySnapshot; matcher: Matcher }[] {
  if (!Array.isArray(input)) throw new CategoryValidationError([{ field: '(root)', message: 'must be an array of categories' }]);
  if (input.length === 0) throw new CategoryValidationError([{ field: '(root)', message: 'must contain at least one category' }]);
  if (input.length > MAX_CATEGORIES_PER_IMPORT) {
    throw new CategoryValidationError([{ field: '(root)', message: `must contain at most ${MAX_CATEGORIES_PER_IMPORT} categories; got ${input.length}` }]);
  }
  const parsed = input.map((item, index) => {
    try {
      return parseCategorySnapshot(item, `[${index}].`);
    } catch (error) {
      if (error instanceof CategoryValidationError) {
        const [first] = error.problems;
        const id = isObject(item) ? item.id : undefined;
        const named = typeof id === 'string' ? ` (category "${id.slice(0, 100)}")` : '';
        const problem = first ? `: ${first.field}: ${first.message}` : '';
        throw new CategoryValidationError(error.problems, `Item at index ${index}${named} is invalid${problem}`);
      }
      throw error;
    }
  });
  const seen = new Map<string, number>();
  const duplicates: FieldProblem[] = [];
  parsed.forEach(({ snapshot }, index) => {
    const key = snapshot.id.toLowerCase();
    const earlier = seen.get(key);
    if (earlier !== undefined) duplicates.push({ field: `[${index}].id`, message: `duplicate of the id at index ${earlier} ("${snapshot.id}")` });
    else seen.set(key, index);
  });
  if (duplicates.length > 0) {
    throw new CategoryValidationError(duplicates, `Duplicate ids: ${duplicates.map((d) => `${d.field} ${d.message}`).join('; ')}`);
  }
  return parsed;
}
