/**
 * The Categorizer shares work between leaves and issues (answers per field value, literal
 * prefilters, one scan for contained texts); it must give exactly what the plain evaluation gives:
 * every rule's `matcher.matches(issue)`, in rule order, `uncategorized` when none matches.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { sharedDir } from '#test-support/shared-dir.js';
import { loadDefinitions } from '#validation/adapters/fhir-definitions/definition-cache.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import type { Category, CategoryWithMatcher } from '#validation/domain/categorization/category.js';
import { parseMatcher, type MatchableIssue, type Matcher, type MatcherJson } from '#validation/domain/categorization/matcher.js';
import { literalShortcut, requiredTexts } from '#validation/domain/categorization/user-regex.js';
import { LayeredConformanceSource } from '#validation/domain/engine/layered-source.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { referenceAggregate } from '../flow/support/aggregate-oracle.js';
import type { FhirResourceJson } from '#validation/domain/ports/submission-source.js';
import { issuesFromOperationOutcome } from '#validation/domain/results/validation-issue.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';

const category = (id: string): Category => ({ id, title: id, severity: 'ERROR', acceptable: false, guidance: 'g' });

function reference(rules: readonly CategoryWithMatcher[], issue: MatchableIssue): string[] {
  const ids = rules.filter((rule) => rule.matcher.matches(issue)).map((rule) => rule.category.id);
  return ids.length > 0 ? ids : ['uncategorized'];
}

/** Through one categorizer twice (the second pass answers from what the first remembered), and a fresh one per issue. */
function expectSameAsReference(rules: readonly CategoryWithMatcher[], issues: readonly MatchableIssue[]): void {
  const expected = issues.map((issue) => reference(rules, issue));
  const shared = new Categorizer(rules);
  for (const pass of [1, 2]) {
    shared.categorize(issues).forEach((issue, i) => {
      expect(issue.categories.map((c) => c.id), `pass ${pass}, ${JSON.stringify(issues[i])}`).to.deep.equal(expected[i]);
    });
  }
  issues.forEach((issue, i) => {
    expect(new Categorizer(rules).categoriesOf(issue).map((c) => c.id), `fresh, ${JSON.stringify(issue)}`).to.deep.equal(expected[i]);
  });
}

const rulesOf = (entries: readonly [string, MatcherJson][]): CategoryWithMatcher[] =>
  entries.map(([id, json]) => ({ category: category(id), matcher: parseMatcher(json) }));

/** Seeded, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x80000000;
  };
}

/** Issues of the NHSN sample patients as the flow sees them: each entry validated alone, expressions rebased into the Bundle. */
async function sampleIssues(): Promise<MatchableIssue[]> {
  const samples = sharedDir('samples', 'nhsn-ach');
  const loaded = await loadDefinitions({ packages: [sharedDir('fhir-packages')] });
  const source = new LayeredConformanceSource([], loaded.index);
  const validator = new Validator(source, new LocalTerminology(source));
  const files = readdirSync(samples).filter((f) => /^patient-.*\.json$/.test(f) && f !== 'patient-list.json');
  return files.flatMap((file) => {
    const bundle = JSON.parse(readFileSync(join(samples, file), 'utf8')) as { entry: { resource: FhirResourceJson }[] };
    const entries = bundle.entry.map(({ resource }, index) => ({ index, resource, outcome: validator.validate(resource) }));
    return issuesFromOperationOutcome(referenceAggregate(entries));
  });
}

/** Edge cases of the shortcuts and prefilters, and of the tree evaluation. */
const HAND_MADE: [string, MatcherJson][] = [
  ['anchored_exact', { field: 'MESSAGE', regex: '^Unknown code' }],
  ['unanchored_exact', { field: 'MESSAGE', regex: 'labeled as a fragment' }],
  ['longer_overlapping_text', { field: 'MESSAGE', regex: 'labeled as a fragment, so' }],
  ['text_inside_another', { field: 'MESSAGE', regex: 'as a frag' }],
  ['prefix_then_regex', { field: 'MESSAGE', regex: "^Wrong Display Name '.*' for " }],
  ['texts_around_groups', { field: 'MESSAGE', regex: 'is (less|greater) than the specified (minimum|maximum) value' }],
  ['prefix_and_later_text', { field: 'MESSAGE', regex: '^Unable to (resolve|find) value [Ss]et ' }],
  ['top_level_alternation', { field: 'MESSAGE', regex: '^abc|xyz' }],
  ['alternation_in_group', { field: 'MESSAGE', regex: '^(abc|x)yz' }],
  ['leading_class', { field: 'MESSAGE', regex: '[Cc]omma .*in the JSON' }],
  ['case_folded', { field: 'MESSAGE', regex: '(?i)unknown CODE' }],
  ['case_folded_later', { field: 'MESSAGE', regex: 'Unknown (?i)CODE' }],
  ['case_folded_group', { field: 'MESSAGE', regex: 'Unknown (?i:CODE) x' }],
  ['escaped_punctuation', { field: 'MESSAGE', regex: 'cannot be null \\(at ' }],
  ['quoted', { field: 'MESSAGE', regex: '\\Q(a.b)\\E+c' }],
  ['optional_character', { field: 'MESSAGE', regex: '^abc?d' }],
  ['optional_astral_character', { field: 'MESSAGE', regex: '^a😀?b' }],
  ['repeat', { field: 'MESSAGE', regex: 'ab{2}c' }],
  ['digits', { field: 'MESSAGE', regex: ': minimum required = \\d+, but only found \\d+' }],
  ['end_anchored', { field: 'MESSAGE', regex: "\\(for '[^']*#[^']*'\\)$" }],
  ['posix_class', { field: 'MESSAGE', regex: 'x[[:digit:]]+ y' }],
  ['empty_value', { field: 'MESSAGE', regex: '^$' }],
  ['anything', { field: 'MESSAGE', regex: '.*' }],
  ['accented', { field: 'MESSAGE', regex: 'é.x' }],
  ['inverted_leaf', { field: 'MESSAGE', regex: 'fragment', inverted: true }],
  ['same_pattern_inverted', { field: 'MESSAGE', regex: '^Unknown code', inverted: true }],
  ['and_not', { children: [{ field: 'MESSAGE', regex: '^Unknown [Cc]ode' }, { field: 'MESSAGE', regex: 'fragment', inverted: true }], requiresAllChildren: true }],
  ['inverted_or', { children: [{ field: 'MESSAGE', regex: 'Unknown' }, { field: 'MESSAGE', regex: '^Wrong' }], requiresAllChildren: false, inverted: true }],
  ['nested', {
    children: [
      { children: [{ field: 'MESSAGE', regex: 'code' }, { field: 'SEVERITY', regex: '^error$' }], requiresAllChildren: true },
      { children: [{ field: 'CODE', regex: 'invalid' }, { field: 'EXPRESSION', regex: 'Patient', inverted: true }], requiresAllChildren: false, inverted: true },
    ],
    requiresAllChildren: false,
  }],
  ['severity_only', { field: 'SEVERITY', regex: '^(error|fatal)$' }],
  ['code_only_inverted', { field: 'CODE', regex: '^code-invalid$', inverted: true }],
  ['expression_patient', { field: 'EXPRESSION', regex: '(^Patient\\.|ofType\\(Patient\\))' }],
  ['message_and_not_expression', {
    children: [{ field: 'MESSAGE', regex: 'whitespace' }, { field: 'EXPRESSION', regex: 'ofType\\(Patient\\)', inverted: true }],
    requiresAllChildren: true,
  }],
  ['missing_expression_or_code', { children: [{ field: 'EXPRESSION', regex: '.*', inverted: true }, { field: 'CODE', regex: 'x' }], requiresAllChildren: false }],
];

const MESSAGES = [
  '', 'x', 'Unknown code', "Unknown code 'x' in the CodeSystem 'y'", 'unknown CODE 1', 'UNKNOWN code', 'Unknown CoDe x', 'Unknown code x',
  'it is labeled as a fragment, so the code may be valid', 'labeled as a frag', 'as a fragment', 'fragment',
  "Wrong Display Name 'x' for y", "Wrong Display Name 'x'", 'Wrong', ' Wrong Display Name', 'It is less than the specified minimum value',
  'is greater than the specified maximum', 'is  than the specified value', 'Unable to find value set x', 'Unable to resolve value Set ',
  'Unable to validate code', 'abc', 'abd', 'abcd', 'xyz', 'zzxyz', 'abcyz', 'xyz!', 'a😀b', 'ab', 'a😀', 'a\ud83db', 'cannot be null (at x',
  'cannot be null at', '(a.b)(a.b)c', '(a.b)c', 'a.bc', 'abbc', 'abc', 'x1 y', 'x y', 'Comma x in the JSON', 'comma in the JSON', 'Coma in the JSON',
  ': minimum required = 1, but only found 0', 'Patient.x: minimum required = x, but only found 0', "(for 'a#b')", "(for 'a#b') ", "(for 'ab')",
  'value should not start or finish with whitespace', 'éax', 'éx', 'e x', "Rule dom-6: 'x' Failed", "Rule dom-6: 'x' Failed (Best Practice Recommendation)",
];
const EXPRESSIONS = [undefined, '', 'Patient.name[0].family', "Bundle.entry[2].resource.ofType(Patient).where(id = 'p1').name[0]", 'Encounter.class', 'Bundle.entry[3].resource.ofType(Encounter)'];

function crossIssues(messages: readonly (string | undefined)[]): MatchableIssue[] {
  const issues: MatchableIssue[] = [];
  for (const message of messages) {
    for (const severity of ['error', 'warning', undefined]) {
      for (const code of ['code-invalid', 'x', undefined]) {
        for (const expression of EXPRESSIONS) issues.push({ severity, code, message, expression });
      }
    }
  }
  return issues;
}

/** Messages put together from the default rules' own texts, so that their prefilters pass and the regex engine has to decide. */
function messagesFromTexts(patterns: readonly string[]): string[] {
  const texts = [...new Set(patterns.flatMap((pattern) => {
    const { exact, prefix, contains } = literalShortcut(pattern);
    return [exact, prefix, contains, ...requiredTexts(pattern)].filter((t): t is string => t !== undefined);
  }))];
  const next = random(7);
  const pick = () => texts[Math.floor(next() * texts.length)]!;
  const messages = texts.flatMap((text) => [text, `${text} 12 x`, `x ${text}`, text.toUpperCase()]);
  for (let i = 0; i < 400; i++) messages.push(`${pick()}'a#b' 3 ${pick()}`, `${pick()}${pick()}`);
  return messages;
}

function leavesOf(json: MatcherJson): { field: string; regex: string }[] {
  return 'children' in json ? json.children.flatMap(leavesOf) : [json];
}

describe('validation: the categorizer gives what every rule\'s matcher gives', () => {
  it('with the default categories on the issues of the NHSN sample submissions', async function () {
    this.timeout(120_000);
    const rules = defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) }));
    const issues = await sampleIssues();
    expect(issues.length).to.be.greaterThan(500);
    const variants = issues.flatMap((issue) => [
      issue,
      { ...issue, expression: undefined },
      { ...issue, expression: 'Patient.name[0].family' },
      { ...issue, message: undefined },
      { ...issue, code: 'too-costly' },
    ]);
    expectSameAsReference(rules, variants);
  });

  it('with the default categories on messages made of their own texts', () => {
    const snapshots = defaultCategories();
    const rules = snapshots.map((snapshot) => ({ category: snapshot, matcher: parseMatcher(snapshot.matcher) }));
    const messages = messagesFromTexts(snapshots.flatMap((s) => leavesOf(s.matcher).map((leaf) => leaf.regex)));
    expectSameAsReference(rules, messages.flatMap((message, i) => [
      { severity: 'error', code: i % 7 === 0 ? 'too-costly' : 'invariant', message, expression: EXPRESSIONS[i % EXPRESSIONS.length] },
    ]));
  });

  it('with hand-made rules: inverted leaves, nested AND/OR, missing fields, literal shapes, case, several fields', () => {
    const rules = rulesOf(HAND_MADE);
    // A Matcher not made by parseMatcher is asked as it is.
    const custom: Matcher = { matches: (issue) => (issue.message ?? '').length % 2 === 0, toJSON: () => ({ field: 'MESSAGE', regex: 'x' }) };
    rules.splice(3, 0, { category: category('custom_matcher'), matcher: custom });
    expectSameAsReference(rules, crossIssues([...MESSAGES, undefined]));
  });

  it('with random trees over the hand-made and default leaves', () => {
    const next = random(42);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const leaves = [...HAND_MADE.flatMap(([, json]) => leavesOf(json)), ...defaultCategories().flatMap((s) => leavesOf(s.matcher))];
    const tree = (depth: number): MatcherJson => {
      const inverted = next() < 0.3;
      if (depth === 0 || next() < 0.4) return { ...(pick(leaves) as MatcherJson), inverted };
      const children = Array.from({ length: 1 + Math.floor(next() * 3) }, () => tree(depth - 1));
      return { children, requiresAllChildren: next() < 0.5, inverted };
    };
    const issues = crossIssues(MESSAGES).filter(() => next() < 0.25);
    for (let set = 0; set < 40; set++) {
      expectSameAsReference(rulesOf(Array.from({ length: 8 }, (_, i) => [`r${i}`, tree(3)] as [string, MatcherJson])), issues);
    }
  });

  it('keeps answering right once its bounded memory has started over', () => {
    const rules = rulesOf([['a', { field: 'MESSAGE', regex: '^m1' }], ['b', { field: 'MESSAGE', regex: '7$' }]]);
    const categorizer = new Categorizer(rules);
    const messages = Array.from({ length: 25_000 }, (_, i) => `m${i}`);
    for (const message of [...messages, ...messages.slice(0, 100)]) {
      expect(categorizer.categoriesOf({ message }).map((c) => c.id)).to.deep.equal(reference(rules, { message }));
    }
  });
});
