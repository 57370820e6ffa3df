/**
 * The distinct regexes that the rules of a categorizer test on one field (MESSAGE, say), and their
 * answers for one value of that field.
 *
 * Default-like rule sets have ~150 MESSAGE leaves, nearly all of them a literal message start or
 * phrase. Asking each leaf in turn costs ~150 startsWith/includes calls per message, and the regex
 * engine for every leaf whose first literal is common (`is (less|greater) than ...` on any message
 * with "is "). Here the texts each match must start with or contain (user-regex.ts: literalShortcut,
 * requiredTexts) decide most leaves for a value at once: anchored leaves are grouped by their first
 * character, so a message is compared only with the few that start like it, and the regex engine
 * runs only for a leaf whose texts are all present, when the rules ask for it.
 */
import type { UserRegex } from './user-regex.js';

/** Answer states of a leaf for one value, in a Uint8Array: 0 so that a fresh array is all unknown. */
const UNKNOWN = 0;
const NO = 1;
const YES = 2;

interface LiteralLeaf {
  readonly index: number;
  /** Further texts every match contains. */
  readonly alsoContains: readonly string[];
  /** The literal is the whole pattern: finding it is the answer. */
  readonly exact: boolean;
}

interface AnchoredLeaf extends LiteralLeaf {
  /** What every match starts with. */
  readonly literal: string;
}

interface ContainedLeaf extends LiteralLeaf {
  /** The id in `texts` of the (longest) text every match contains. */
  readonly text: number;
}

export class FieldLeaves {
  private readonly regexes: UserRegex[] = [];
  private readonly indexBySource = new Map<string, number>();
  /** Leaves whose matches all start with a literal, by the literal's first UTF-16 unit. */
  private readonly anchoredByFirstUnit = new Map<number, AnchoredLeaf[]>();
  /** Leaves whose matches all contain a literal, but not at a known place. */
  private readonly contained: ContainedLeaf[] = [];
  private readonly texts = new TextScan();
  /** Per leaf, its state before the value is looked at: NO when a text must be found first, else UNKNOWN. */
  private readonly initialStates: number[] = [];
  private initial: Uint8Array | undefined;

  /** The index of the leaf testing this regex; a pattern already added (by another rule, say) is shared. */
  add(regex: UserRegex): number {
    const known = this.indexBySource.get(regex.source);
    if (known !== undefined) return known;
    const index = this.regexes.length;
    this.regexes.push(regex);
    this.indexBySource.set(regex.source, index);
    const { exact, anchored, prefix, contains } = regex.literal;
    const start = exact !== undefined && anchored ? exact : prefix;
    let settledByTexts = true;
    if (start !== undefined) {
      const alsoContains = exact !== undefined ? [] : withoutImplied(regex.requiredTexts.filter((text) => !start.includes(text)));
      const unit = start.charCodeAt(0);
      const group = this.anchoredByFirstUnit.get(unit) ?? [];
      group.push({ index, literal: start, alsoContains, exact: exact !== undefined });
      this.anchoredByFirstUnit.set(unit, group);
    } else {
      // testHavingLiteral counts on the shortcut's own text being present, so it is always one of them.
      const texts = exact !== undefined ? [exact] : withoutImplied([...(contains === undefined ? [] : [contains]), ...regex.requiredTexts]);
      const [literal, ...alsoContains] = texts;
      if (literal !== undefined) this.contained.push({ index, text: this.texts.add(literal), alsoContains, exact: exact !== undefined });
      else settledByTexts = false;
    }
    this.initialStates.push(settledByTexts ? NO : UNKNOWN);
    this.initial = undefined;
    return index;
  }

  /** Builds what answering needs once the leaves are all added (else the first answer does). */
  prepare(): void {
    this.initial ??= Uint8Array.from(this.initialStates);
    this.texts.prepare();
  }

  /** The answers of every leaf for a value: settled by the texts where they can, else UNKNOWN until asked. */
  answersFor(value: string | undefined): LeafAnswers {
    // Java semantics: a missing value never matches.
    if (value === undefined) return new LeafAnswers(this, '', new Uint8Array(this.regexes.length).fill(NO));
    this.initial ??= Uint8Array.from(this.initialStates);
    const states = this.initial.slice();
    const anchored = this.anchoredByFirstUnit.get(value.charCodeAt(0));
    if (anchored) {
      for (const leaf of anchored) {
        if (value.startsWith(leaf.literal) && containsAll(value, leaf.alsoContains)) states[leaf.index] = leaf.exact ? YES : UNKNOWN;
      }
    }
    if (this.contained.length > 0) {
      const found = this.texts.find(value);
      for (const leaf of this.contained) {
        if (found[leaf.text] === 1 && containsAll(value, leaf.alsoContains)) states[leaf.index] = leaf.exact ? YES : UNKNOWN;
      }
    }
    return new LeafAnswers(this, value, states);
  }

  /** The regex engine's answer for a value that has all the leaf's texts. */
  testHavingLiteral(index: number, value: string): boolean {
    const regex = this.regexes[index];
    if (regex === undefined) throw new RangeError(`No leaf ${String(index)} on this field`);
    return regex.testHavingLiteral(value);
  }
}

/**
 * Which of many texts a value contains, in one pass of the JS regex engine instead of one `includes`
 * per text (~50 of them for the default categories). The pattern is an alternation of escaped texts
 * only, never user regex syntax, so the backtracking engine is safe here: its cost is linear in the
 * value for a given set of texts, like the `includes` calls it replaces.
 */
class TextScan {
  private readonly ids = new Map<string, number>();
  private compiled: { regex: RegExp; startingWith: Map<string, number[]> } | undefined;

  add(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(text, id);
      this.compiled = undefined;
    }
    return id;
  }

  prepare(): void {
    if (this.ids.size > 0) this.compiled ??= this.compile();
  }

  /** Per text id, 1 when the value contains that text. */
  find(value: string): Uint8Array {
    const found = new Uint8Array(this.ids.size);
    const { regex, startingWith } = (this.compiled ??= this.compile());
    regex.lastIndex = 0;
    for (let match = regex.exec(value); match !== null; match = regex.exec(value)) {
      // Every match is one of the texts, all of them keys of startingWith.
      for (const id of startingWith.get(match[0]) ?? []) found[id] = 1;
      // Texts may overlap: the next one can start inside this one.
      regex.lastIndex = match.index + 1;
    }
    return found;
  }

  private compile(): { regex: RegExp; startingWith: Map<string, number[]> } {
    // Longest first, so that at each position the alternation reports the longest text that starts
    // there; any shorter text starting there is a prefix of it, found through `startingWith`.
    const texts = [...this.ids.keys()].sort((a, b) => b.length - a.length);
    // Linear in the value: an alternation of escaped literals (no quantifier), so each start position costs at most
    // the total length of the texts, a constant of the category set.
    const regex = new RegExp(texts.map((text) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|'), 'g');
    const startingWith = new Map<string, number[]>();
    for (const text of texts) {
      const ids: number[] = [];
      for (let end = 1; end <= text.length; end++) {
        const id = this.ids.get(text.slice(0, end));
        if (id !== undefined) ids.push(id);
      }
      startingWith.set(text, ids);
    }
    return { regex, startingWith };
  }
}

/** The texts without those found inside another one, longest (the most telling) first. */
function withoutImplied(texts: readonly string[]): string[] {
  const distinct = [...new Set(texts)].sort((a, b) => b.length - a.length);
  return distinct.filter((text, i) => !distinct.slice(0, i).some((longer) => longer.includes(text)));
}

function containsAll(value: string, texts: readonly string[]): boolean {
  for (const text of texts) if (!value.includes(text)) return false;
  return true;
}

/** What the leaves of one field answer for one value; the regex engine runs at most once per leaf, and only when asked. */
export class LeafAnswers {
  constructor(
    private readonly leaves: FieldLeaves,
    private readonly value: string,
    private readonly states: Uint8Array,
  ) {}

  found(index: number): boolean {
    let state = this.states[index] ?? UNKNOWN;
    if (state === UNKNOWN) {
      state = this.leaves.testHavingLiteral(index, this.value) ? YES : NO;
      this.states[index] = state;
    }
    return state === YES;
  }
}
