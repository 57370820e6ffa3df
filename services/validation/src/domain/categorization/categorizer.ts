/**
 * Categorization (specification step 5): every category's latest rule is tested against every
 * issue; an issue gets ALL matching categories (no priority), in the order the categories were
 * given; an issue no rule matches gets `uncategorized`.
 */
import { UNCATEGORIZED, type Category, type CategoryWithMatcher } from './category.js';
import { FieldLeaves, type LeafAnswers } from './field-leaves.js';
import { fieldKey, fieldValue, matcherTree, type MatchableIssue, type Matcher, type MatchField, type MatcherTree } from './matcher.js';

export type Categorized<I> = I & { readonly categories: readonly Category[] };

/**
 * Answers remembered per field and categorizer. The flow categorizes every patient's ~100 issues
 * with one categorizer; a message repeats, within a submission and across patients (same EHR
 * mapping, same profiles). So each distinct leaf is tested once per distinct value of its field.
 * Bounded: when a field's memory is full, it starts over.
 */
const MAX_REMEMBERED_VALUES = 20_000;

/**
 * Verdicts remembered per combination of field values (see Combination). Whole issues rarely repeat
 * (the expression names the entry and the resource), but the severity, code, message id and message
 * of an issue do, and they decide nearly every rule. Bounded like the values: past this many
 * combinations the categorizer starts over.
 */
const MAX_REMEMBERED_COMBINATIONS = 20_000;

/**
 * The fields whose values key the remembered verdicts, the fewest distinct values first (a message
 * nearly determines its message id, code and severity, so the combinations are about as many as the
 * messages). EXPRESSION is not one of them: it names the entry and the resource, so it is nearly
 * unique per issue (and per copy of a submission); a rule reading it is decided as far as the other
 * fields decide it, and only the rest is asked per issue.
 */
const KEY_FIELDS: readonly MatchField[] = ['SEVERITY', 'CODE', 'MESSAGE_ID', 'MESSAGE'];

/** A rule's answer for a combination: Kleene's three values, so that a rule is decided before all its fields are known. */
const NO = 0;
const YES = 1;
const UNKNOWN = 2;
type Truth = typeof NO | typeof YES | typeof UNKNOWN;

/** Per field (by its index), the leaf answers of the field's value, or undefined while the value is not known. */
type Known = readonly (LeafAnswers | undefined)[];
type Evaluate = (known: Known) => Truth;

class Field {
  readonly leaves = new FieldLeaves();
  private readonly remembered = new Map<string, LeafAnswers>();
  private missing: LeafAnswers | undefined;

  /** Its bit in a rule's `reads`. */
  readonly bit: number;

  /** `index`: the field's slot in a Known. */
  constructor(readonly name: MatchField, readonly index: number) {
    this.bit = 1 << index;
  }

  answersFor(value: string | undefined): LeafAnswers {
    if (value === undefined) return (this.missing ??= this.leaves.answersFor(undefined));
    let answers = this.remembered.get(value);
    if (answers === undefined) {
      answers = this.leaves.answersFor(value);
      if (this.remembered.size >= MAX_REMEMBERED_VALUES) this.remembered.clear();
      this.remembered.set(value, answers);
    }
    return answers;
  }
}

interface Rule {
  readonly category: Category;
  /** The tree over the known answers; NO for a rule given as an opaque matcher (never asked this way). */
  readonly evaluate: Evaluate;
  /** The fields it reads, one bit per field (Field.bit); 0 for an opaque matcher. */
  readonly reads: number;
  /** A Matcher not made by parseMatcher cannot be taken apart: it is asked with the whole issue, per issue. */
  readonly opaque?: Matcher;
}

/**
 * What the rules answer for issues that share the values of the key fields seen so far (a path from
 * the root: severity, then code, ...). Rules decided by those values are settled here once, for every
 * issue with them; the undecided ones wait for the next key field one of them reads, or, past the
 * last, are asked per issue (they read the expression, or are opaque).
 */
class Combination {
  /** The next combinations, by the key of the next key field's value (see fieldKey); created as issues need them. */
  next: Map<string | undefined, Combination> | undefined;
  /** When nothing is left undecided: the issue's categories, one frozen array shared by every issue with this combination. */
  readonly categories: readonly Category[] | undefined;

  constructor(
    readonly known: Known,
    /** Rules (by index, ascending) the values settled as matching. */
    readonly matched: readonly number[],
    /** Rules (by index, ascending) the values have not settled. */
    readonly undecided: readonly number[],
    /** The index in KEY_FIELDS of the next field an undecided rule reads; KEY_FIELDS.length when none. */
    readonly level: number,
    rules: readonly Rule[],
  ) {
    this.categories = undecided.length === 0 ? categoriesOfRules(rules, matched) : undefined;
  }
}

const ONLY_UNCATEGORIZED: readonly Category[] = Object.freeze([UNCATEGORIZED]);

function categoriesOfRules(rules: readonly Rule[], matched: readonly number[]): readonly Category[] {
  if (matched.length === 0) return ONLY_UNCATEGORIZED;
  return Object.freeze(matched.flatMap((index) => {
    const rule = rules[index];
    return rule === undefined ? [] : [rule.category];
  }));
}

export class Categorizer {
  /** Every match field (a Record over MatchField, so a leaf's field is always there). */
  private readonly fields: Readonly<Record<MatchField, Field>> = {
    MESSAGE: new Field('MESSAGE', 0), SEVERITY: new Field('SEVERITY', 1), CODE: new Field('CODE', 2),
    EXPRESSION: new Field('EXPRESSION', 3), MESSAGE_ID: new Field('MESSAGE_ID', 4),
  };
  private readonly rules: readonly Rule[];
  private root: Combination;
  private combinations = 0;
  /** The known answers of the issue being finished (perIssue): reused, this thread asks one issue at a time. */
  private readonly scratch: (LeafAnswers | undefined)[] = [undefined, undefined, undefined, undefined, undefined];

  /** The rules as given (to price them: matchingCost in bounded-categorization.ts). */
  readonly given: readonly CategoryWithMatcher[];

  constructor(rules: readonly CategoryWithMatcher[]) {
    this.given = rules;
    this.rules = rules.map(({ category, matcher }): Rule => {
      const tree = matcherTree(matcher);
      if (tree === undefined) return { category, evaluate: () => NO, reads: 0, opaque: matcher };
      const reads = { fields: 0 };
      return { category, evaluate: this.compile(tree, reads), reads: reads.fields };
    });
    for (const field of Object.values(this.fields)) field.leaves.prepare();
    this.root = this.startingCombination();
  }

  /** The matching categories; `[UNCATEGORIZED]` when none matches. */
  categoriesOf(issue: MatchableIssue): Category[] {
    // A copy: the caller may change its list, never what is remembered.
    return [...this.categoriesShared(issue)];
  }

  categorize<I extends MatchableIssue>(issues: readonly I[]): Categorized<I>[] {
    return issues.map((issue) => ({ ...issue, categories: this.categoriesShared(issue) }));
  }

  /** The categories, frozen and shared with the other issues of its combination when the key fields decided every rule. */
  private categoriesShared(issue: MatchableIssue): readonly Category[] {
    let combination = this.root;
    while (combination.level < KEY_FIELDS.length) {
      const name = KEY_FIELDS[combination.level] ?? 'MESSAGE';
      const key = fieldKey(issue, name);
      combination = combination.next?.get(key) ?? this.extend(combination, this.fields[name], issue, key);
    }
    return combination.categories ?? this.perIssue(combination, issue);
  }

  /** The combination that adds the issue's value of `field` to `from`, remembered under `key`. */
  private extend(from: Combination, field: Field, issue: MatchableIssue, key: string | undefined): Combination {
    const known = [...from.known];
    known[field.index] = field.answersFor(fieldValue(issue, field.name));
    const matched = [...from.matched];
    const undecided: number[] = [];
    for (const index of from.undecided) {
      const rule = this.rules[index];
      const truth = rule === undefined || (rule.reads & field.bit) === 0 ? UNKNOWN : rule.evaluate(known);
      if (truth === YES) matched.push(index);
      else if (truth === UNKNOWN) undecided.push(index);
    }
    matched.sort((a, b) => a - b);
    const combination = new Combination(known, matched, undecided, this.nextLevel(undecided, from.level + 1), this.rules);
    if (++this.combinations > MAX_REMEMBERED_COMBINATIONS) {
      // Start over; this issue goes on from the combination it has (no longer reachable, so forgotten after it).
      this.root = this.startingCombination();
      this.combinations = 0;
    }
    (from.next ??= new Map()).set(key, combination);
    return combination;
  }

  /** The rules the key fields left undecided, asked with the issue's expression (or the whole issue, when opaque). */
  private perIssue(combination: Combination, issue: MatchableIssue): readonly Category[] {
    const known = this.scratch;
    for (let i = 0; i < known.length; i++) known[i] = combination.known[i];
    const expression = this.fields.EXPRESSION;
    known[expression.index] = undefined;
    const matched = [...combination.matched];
    for (const index of combination.undecided) {
      const rule = this.rules[index];
      if (rule === undefined) continue;
      if (rule.opaque !== undefined) {
        if (rule.opaque.matches(issue)) matched.push(index);
        continue;
      }
      if ((rule.reads & expression.bit) !== 0) known[expression.index] ??= expression.answersFor(fieldValue(issue, expression.name));
      // Every field the rule reads is known now: the key fields it reads were on the way here, and the expression.
      if (rule.evaluate(known) === YES) matched.push(index);
    }
    known.fill(undefined);
    if (matched.length === 0) return ONLY_UNCATEGORIZED;
    matched.sort((a, b) => a - b);
    const categories: Category[] = [];
    for (const index of matched) {
      const rule = this.rules[index];
      if (rule !== undefined) categories.push(rule.category);
    }
    return categories;
  }

  private startingCombination(): Combination {
    const undecided = this.rules.map((_, index) => index);
    return new Combination([undefined, undefined, undefined, undefined, undefined], [], undecided, this.nextLevel(undecided, 0), this.rules);
  }

  /** The first key field at or after `level` that one of these rules reads; KEY_FIELDS.length when none does. */
  private nextLevel(undecided: readonly number[], level: number): number {
    let reads = 0;
    for (const index of undecided) reads |= this.rules[index]?.reads ?? 0;
    for (let next = level; next < KEY_FIELDS.length; next++) {
      const name = KEY_FIELDS[next];
      if (name !== undefined && (reads & this.fields[name].bit) !== 0) return next;
    }
    return KEY_FIELDS.length;
  }

  /**
   * The tree as a function of the answers known so far, in Kleene's logic: NO or YES only when the
   * known fields decide it whatever the others hold (a leaf on a field not known yet is UNKNOWN; an
   * AND with a NO child is NO, an OR with a YES child is YES). With every field it reads known, it
   * is the tree's plain answer. `reads` collects the fields it reads.
   */
  private compile(tree: MatcherTree, reads: { fields: number }): Evaluate {
    if (tree.kind === 'leaf') {
      const field = this.fields[tree.field];
      const leaf = field.leaves.add(tree.regex);
      const slot = field.index;
      const inverted = tree.inverted;
      reads.fields |= field.bit;
      return (known) => {
        const answers = known[slot];
        if (answers === undefined) return UNKNOWN;
        return answers.found(leaf) !== inverted ? YES : NO;
      };
    }
    const children = tree.children.map((child) => this.compile(child, reads));
    const found: Evaluate = tree.requiresAllChildren
      ? (known) => {
        let truth: Truth = YES;
        for (const child of children) {
          const answer = child(known);
          if (answer === NO) return NO;
          if (answer === UNKNOWN) truth = UNKNOWN;
        }
        return truth;
      }
      : (known) => {
        let truth: Truth = NO;
        for (const child of children) {
          const answer = child(known);
          if (answer === YES) return YES;
          if (answer === UNKNOWN) truth = UNKNOWN;
        }
        return truth;
      };
    return tree.inverted ? (known) => invert(found(known)) : found;
  }
}

function invert(truth: Truth): Truth {
  return truth === UNKNOWN ? UNKNOWN : truth === YES ? NO : YES;
}

/** True when the issue only carries the placeholder category. */
export function isUncategorized(categories: readonly Pick<Category, 'id'>[]): boolean {
  return categories.length === 0 || (categories.length === 1 && categories[0]?.id === UNCATEGORIZED.id);
}
