/**
 * Categorization (specification step 5): every category's latest rule is tested against every
 * issue; an issue gets ALL matching categories (no priority), in the order the categories were
 * given; an issue no rule matches gets `uncategorized`.
 */
import { UNCATEGORIZED, type Category, type CategoryWithMatcher } from './category.js';
import { FieldLeaves, type LeafAnswers } from './field-leaves.js';
import { fieldValue, matcherTree, type MatchableIssue, type MatchField, type MatcherTree } from './matcher.js';

export type Categorized<I> = I & { readonly categories: readonly Category[] };

/**
 * Answers remembered per field and categorizer. The flow categorizes every patient's ~100 issues
 * with one categorizer; whole issues rarely repeat (the expression names the entry, messages name
 * resources), but a message does, within a submission and across patients (same EHR mapping, same
 * profiles). So each distinct leaf is tested once per distinct value of its field, and a rule that
 * reads only the message is decided once per distinct message. Bounded: when a field's memory is
 * full, it starts over.
 */
const MAX_REMEMBERED_VALUES = 20_000;

/** States in Uint8Arrays: 0 so that a fresh array means "not asked yet". */
const NOT_ASKED = 0;
const NO = 1;
const YES = 2;

/** What one value of one field answers: its leaves, and the rules that read only this field. */
interface FieldValueAnswers {
  readonly leaves: LeafAnswers;
  /** Per rule reading only this field (by its slot): NOT_ASKED, NO or YES. */
  readonly rules: Uint8Array;
}

class Field {
  readonly leaves = new FieldLeaves();

  /** `index`: the field's slot in an IssueAnswers. */
  constructor(readonly name: MatchField, readonly index: number) {}

  /** How many rules read only this field (their answers are remembered with the value). */
  singleFieldRules = 0;
  private readonly remembered = new Map<string, FieldValueAnswers>();
  private missing: FieldValueAnswers | undefined;

  answersFor(value: string | undefined): FieldValueAnswers {
    if (value === undefined) return (this.missing ??= this.fresh(undefined));
    let answers = this.remembered.get(value);
    if (answers === undefined) {
      answers = this.fresh(value);
      if (this.remembered.size >= MAX_REMEMBERED_VALUES) this.remembered.clear();
      this.remembered.set(value, answers);
    }
    return answers;
  }

  private fresh(value: string | undefined): FieldValueAnswers {
    return { leaves: this.leaves.answersFor(value), rules: new Uint8Array(this.singleFieldRules) };
  }
}

/** One issue's answers: a field's value is looked up once, and only when some rule reads that field. */
class IssueAnswers {
  private readonly values: (FieldValueAnswers | undefined)[] = [undefined, undefined, undefined, undefined, undefined];

  constructor(readonly issue: MatchableIssue) {}

  of(field: Field): FieldValueAnswers {
    return (this.values[field.index] ??= field.answersFor(fieldValue(this.issue, field.name)));
  }
}

type Evaluate = (answers: IssueAnswers) => boolean;

interface Rule {
  readonly category: Category;
  readonly evaluate: Evaluate;
  /** Set when the rule reads one field only: its answer is remembered with that field's value. */
  readonly singleField?: {
    readonly field: Field;
    readonly slot: number;
    /** Its leaves: when their texts already rule them all out, the answer is `whenNoneFound`, without walking the tree. */
    readonly leaves: Uint32Array;
    readonly whenNoneFound: boolean;
  };
}

export class Categorizer {
  /** Every match field (a Record over MatchField, so a leaf's field is always there). */
  private readonly fields: Readonly<Record<MatchField, Field>> = {
    MESSAGE: new Field('MESSAGE', 0), SEVERITY: new Field('SEVERITY', 1), CODE: new Field('CODE', 2),
    EXPRESSION: new Field('EXPRESSION', 3), MESSAGE_ID: new Field('MESSAGE_ID', 4),
  };
  private readonly rules: readonly Rule[];

  /** The rules as given (to price them: matchingCost in bounded-categorization.ts). */
  readonly given: readonly CategoryWithMatcher[];

  constructor(rules: readonly CategoryWithMatcher[]) {
    this.given = rules;
    this.rules = rules.map(({ category, matcher }): Rule => {
      const tree = matcherTree(matcher);
      // A Matcher not made by parseMatcher cannot be taken apart: it is asked as it is.
      if (tree === undefined) return { category, evaluate: (answers) => matcher.matches(answers.issue) };
      const read = new Map<Field, Set<number>>();
      const evaluate = this.compile(tree, read);
      const only = read.size === 1 ? read.entries().next().value : undefined;
      if (!only) return { category, evaluate };
      const [field, leaves] = only;
      const slot = field.singleFieldRules++;
      return { category, evaluate, singleField: { field, slot, leaves: Uint32Array.from(leaves), whenNoneFound: whenNoneFound(tree) } };
    });
    for (const field of Object.values(this.fields)) field.leaves.prepare();
  }

  /** The matching categories; `[UNCATEGORIZED]` when none matches. */
  categoriesOf(issue: MatchableIssue): Category[] {
    const answers = new IssueAnswers(issue);
    const matched: Category[] = [];
    for (const rule of this.rules) {
      if (this.answer(rule, answers)) matched.push(rule.category);
    }
    return matched.length > 0 ? matched : [UNCATEGORIZED];
  }

  categorize<I extends MatchableIssue>(issues: readonly I[]): Categorized<I>[] {
    return issues.map((issue) => ({ ...issue, categories: this.categoriesOf(issue) }));
  }

  private answer(rule: Rule, answers: IssueAnswers): boolean {
    const single = rule.singleField;
    if (single === undefined) return rule.evaluate(answers);
    const value = answers.of(single.field);
    let state = value.rules[single.slot] ?? NOT_ASKED;
    if (state === NOT_ASKED) {
      const found = value.leaves.noneFound(single.leaves) ? single.whenNoneFound : rule.evaluate(answers);
      state = found ? YES : NO;
      value.rules[single.slot] = state;
    }
    return state === YES;
  }

  /** The tree as a function of the issue's answers; `read` collects the leaves it reads, by field. */
  private compile(tree: MatcherTree, read: Map<Field, Set<number>>): Evaluate {
    if (tree.kind === 'leaf') {
      const field = this.fields[tree.field];
      const leaf = field.leaves.add(tree.regex);
      const leaves = read.get(field) ?? new Set<number>();
      read.set(field, leaves.add(leaf));
      return tree.inverted ? (answers) => !answers.of(field).leaves.found(leaf) : (answers) => answers.of(field).leaves.found(leaf);
    }
    const children = tree.children.map((child) => this.compile(child, read));
    const found: Evaluate = tree.requiresAllChildren
      ? (answers) => children.every((child) => child(answers))
      : (answers) => children.some((child) => child(answers));
    return tree.inverted ? (answers) => !found(answers) : found;
  }
}

/** The tree's answer when none of its leaves finds its regex (before inversions). */
function whenNoneFound(tree: MatcherTree): boolean {
  const found = tree.kind === 'leaf'
    ? false
    : tree.requiresAllChildren ? tree.children.every(whenNoneFound) : tree.children.some(whenNoneFound);
  return tree.inverted ? !found : found;
}

/** True when the issue only carries the placeholder category. */
export function isUncategorized(categories: readonly Pick<Category, 'id'>[]): boolean {
  return categories.length === 0 || (categories.length === 1 && categories[0]?.id === UNCATEGORIZED.id);
}
