import type { Designation } from './code-system-index.js';
import { eitherGrammar, grammarWithout, type GrammarCodeSystem } from './builtin/builtin-code-systems.js';

/**
 * The expanded content of a value set, held for O(1) membership: explicit members by system and
 * code, whole grammar-based systems (BCP-47, UCUM, ...) as predicates, and the "open" systems
 * whose codes could not all be enumerated (a filter on LOINC, an include of a code system that is
 * not held, an imported value set that cannot be found). A code of an open system that is not
 * among the members is "unknown", never "not a member": local terminology must not reject a code
 * it cannot see.
 */
export interface ExpansionEntry {
  system: string;
  code: string;
  version?: string;
  display?: string;
  designations?: Designation[];
}

export type Membership =
  | { status: 'member'; entry?: ExpansionEntry; system: string }
  | { status: 'not-member' }
  | { status: 'unknown'; reason: string; missingValueSet?: string };

/** Why codes of a system cannot be judged; `missingValueSet` when an imported value set is not held. */
export interface OpenReason {
  text: string;
  missingValueSet?: string;
  /** Only codes matching this are unknown; others of the system are judged on the members alone. */
  onlyCodesMatching?: RegExp;
}

/** Wildcard key of `open`: an include that could not be resolved at all (any system). */
export const ANY_SYSTEM = '*';

export class CodeSet {
  readonly members = new Map<string, Map<string, ExpansionEntry>>();
  readonly grammars = new Map<string, GrammarCodeSystem>();
  /** system (or ANY_SYSTEM) → why codes outside `members` cannot be judged. */
  readonly open = new Map<string, OpenReason>();
  /** Systems for which an exclude could not be evaluated: even a member is then "unknown". */
  readonly uncertainExcludes = new Map<string, string>();
  /** Systems matched without regard to case (their code system says so). */
  readonly caseInsensitive = new Set<string>();
  private lowerCaseMembers?: Map<string, Map<string, ExpansionEntry>>;
  private membersByCode?: Map<string, ExpansionEntry[]>;

  add(entry: ExpansionEntry): void {
    let codes = this.members.get(entry.system);
    if (!codes) this.members.set(entry.system, (codes = new Map()));
    if (!codes.has(entry.code)) codes.set(entry.code, entry);
  }

  markOpen(system: string, reason: string | OpenReason): void {
    if (!this.open.has(system)) this.open.set(system, typeof reason === 'string' ? { text: reason } : reason);
  }

  /** Union with another set (value set includes). */
  addAll(other: CodeSet): void {
    for (const codes of other.members.values()) for (const entry of codes.values()) this.add(entry);
    for (const [system, grammar] of other.grammars) {
      const mine = this.grammars.get(system);
      this.grammars.set(system, mine ? eitherGrammar(mine, grammar) : grammar);
    }
    for (const [system, reason] of other.open) this.markOpen(system, reason);
    for (const [system, reason] of other.uncertainExcludes) this.uncertainExcludes.set(system, reason);
    for (const system of other.caseInsensitive) this.caseInsensitive.add(system);
  }

  /** Difference (value set excludes). */
  removeAll(other: CodeSet): void {
    for (const [system, codes] of other.members) {
      const mine = this.members.get(system);
      if (!mine) continue;
      for (const code of codes.keys()) mine.delete(code);
    }
    for (const [system, removed] of other.grammars) {
      const mine = this.grammars.get(system);
      if (mine) this.grammars.set(system, grammarWithout(mine, removed));
    }
    for (const [system, reason] of other.open) {
      if (system === ANY_SYSTEM) for (const mine of this.members.keys()) this.uncertainExcludes.set(mine, reason.text);
      else this.uncertainExcludes.set(system, reason.text);
    }
  }

  /** Intersection (an include naming several value sets, or a system and value sets). */
  intersect(other: CodeSet): CodeSet {
    const result = new CodeSet();
    for (const system of [...this.caseInsensitive, ...other.caseInsensitive]) result.caseInsensitive.add(system);
    for (const codes of this.members.values()) {
      for (const entry of codes.values()) {
        const membership = other.membership(entry.system, entry.code);
        if (membership.status === 'member') result.add(entry);
        else if (membership.status === 'unknown') result.markOpen(entry.system, { text: membership.reason, missingValueSet: membership.missingValueSet });
      }
    }
    for (const [system, grammar] of this.grammars) {
      if (other.grammars.has(system)) result.grammars.set(system, grammar);
      else result.markOpen(system, `intersection with the grammar-based code system ${system}`);
    }
    for (const [system, reason] of [...this.open, ...other.open]) result.markOpen(system, reason);
    return result;
  }

  get size(): number {
    let size = 0;
    for (const codes of this.members.values()) size += codes.size;
    return size;
  }

  /** True when every membership question has a definite answer. */
  get complete(): boolean {
    return this.open.size === 0 && this.uncertainExcludes.size === 0;
  }

  entries(): Iterable<ExpansionEntry> {
    const members = this.members;
    return (function* iterate() {
      for (const codes of members.values()) yield* codes.values();
    })();
  }

  /** Membership of a code in a system; without a system (a plain `code` element) any system matches. */
  membership(system: string | undefined, code: string): Membership {
    if (system === undefined) return this.membershipByCode(code);
    const entry = this.members.get(system)?.get(code) ?? (this.caseInsensitive.has(system) ? this.lowerCaseMember(system, code) : undefined);
    if (entry) {
      const uncertain = this.uncertainExcludes.get(system);
      return uncertain ? { status: 'unknown', reason: uncertain } : { status: 'member', entry, system };
    }
    const grammar = this.grammars.get(system);
    if (grammar) {
      if (grammar.check(code).valid) return { status: 'member', system };
      return { status: 'not-member' };
    }
    const open = this.open.get(system) ?? this.open.get(ANY_SYSTEM);
    if (open && (!open.onlyCodesMatching || open.onlyCodesMatching.test(code))) {
      return { status: 'unknown', reason: open.text, missingValueSet: open.missingValueSet };
    }
    return { status: 'not-member' };
  }

  /** The systems this set draws codes from (for "a code without a system" decisions). */
  systems(): Set<string> {
    return new Set([...this.members.keys(), ...this.grammars.keys(), ...[...this.open.keys()].filter((s) => s !== ANY_SYSTEM)]);
  }

  private membershipByCode(code: string): Membership {
    if (!this.membersByCode) {
      this.membersByCode = new Map();
      for (const entry of this.entries()) {
        const list = this.membersByCode.get(entry.code);
        if (list) list.push(entry);
        else this.membersByCode.set(entry.code, [entry]);
      }
    }
    const entry = this.membersByCode.get(code)?.[0];
    if (entry) return this.membership(entry.system, entry.code);
    for (const [system, grammar] of this.grammars) if (grammar.check(code).valid) return { status: 'member', system };
    const [openSystem] = this.open.values();
    if (openSystem !== undefined) return { status: 'unknown', reason: openSystem.text, missingValueSet: openSystem.missingValueSet };
    return { status: 'not-member' };
  }

  private lowerCaseMember(system: string, code: string): ExpansionEntry | undefined {
    this.lowerCaseMembers ??= new Map();
    let lower = this.lowerCaseMembers.get(system);
    if (!lower) {
      lower = new Map();
      for (const entry of this.members.get(system)?.values() ?? []) lower.set(entry.code.toLowerCase(), entry);
      this.lowerCaseMembers.set(system, lower);
    }
    return lower.get(code.toLowerCase());
  }
}
