import { expect } from 'chai';
import { Categorizer, isUncategorized } from '#validation/domain/categorization/categorizer.js';
import {
  CategoryValidationError, parseCategory, parseCategorySnapshots, UNCATEGORIZED, type Category,
} from '#validation/domain/categorization/category.js';
import { MAX_MATCHED_CHARACTERS, parseMatcher, type MatchableIssue, type Matcher, type MatcherJson } from '#validation/domain/categorization/matcher.js';
import { summarizeByCategory, summarizeByMessage } from '#validation/domain/categorization/summary.js';
import { assessValidity, isSubmissionValid } from '#validation/domain/categorization/validity.js';

const cat = (id: string, acceptable: boolean): Category => ({ id, title: id.toUpperCase(), severity: 'ERROR', acceptable, guidance: 'g' });

describe('validation: categorization', () => {
  const display = cat('display', true);
  const terminology = cat('terminology', false);
  const categorizer = new Categorizer([
    { category: display, matcher: parseMatcher({ field: 'MESSAGE', regex: '^Wrong Display Name' }) },
    { category: terminology, matcher: parseMatcher({ field: 'CODE', regex: '^code-invalid$' }) },
  ]);

  it('gives an issue every matching category, in rule order, and uncategorized when none', () => {
    const [both, none] = categorizer.categorize([
      { severity: 'warning', code: 'code-invalid', message: 'Wrong Display Name x' },
      { severity: 'error', code: 'structure', message: 'other' },
    ]);
    expect(both!.categories.map((c) => c.id)).to.deep.equal(['display', 'terminology']);
    expect(none!.categories).to.deep.equal([UNCATEGORIZED]);
    expect(isUncategorized(none!.categories)).to.equal(true);
    expect(isUncategorized(both!.categories)).to.equal(false);
  });

  it('remembers answers per issue, but only for the same severity, code, expression and message', () => {
    const byExpression = new Categorizer([
      { category: display, matcher: parseMatcher({ field: 'EXPRESSION', regex: 'Encounter' }) },
      { category: terminology, matcher: parseMatcher({ field: 'SEVERITY', regex: '^error$' }) },
    ]);
    const issue = { severity: 'warning', code: 'x', message: 'same text', expression: 'Bundle.entry[0].resource.ofType(Encounter)' };
    const ids = (i: Parameters<Categorizer['categoriesOf']>[0]) => byExpression.categoriesOf(i).map((c) => c.id);
    expect(ids(issue)).to.deep.equal(['display']);
    // Same message, other fields differ: each answered on its own, not from the first answer.
    expect(ids({ ...issue, expression: 'Bundle.entry[1].resource.ofType(Patient)' })).to.deep.equal(['uncategorized']);
    expect(ids({ ...issue, severity: 'error' })).to.deep.equal(['display', 'terminology']);
    expect(ids({ ...issue, expression: undefined })).to.deep.equal(['uncategorized']);
    // A caller changing the returned list does not change what is remembered.
    byExpression.categoriesOf(issue).push(terminology);
    expect(ids(issue)).to.deep.equal(['display']);
  });

  describe('verdicts remembered per combination of severity, code, message id and message', () => {
    const rule = (id: string, json: MatcherJson) => ({ category: cat(id, false), matcher: parseMatcher(json) });
    // Rules over different fields, decided by different key fields or only with the expression.
    const rules = [
      rule('message_only', { field: 'MESSAGE', regex: '^Unknown code' }),
      rule('id_and_error', { children: [{ field: 'MESSAGE_ID', regex: '^Extension_EXT_Unknown_NotHere$' }, { field: 'SEVERITY', regex: '^(error|fatal)$' }], requiresAllChildren: true }),
      rule('id_and_not_error', { children: [{ field: 'MESSAGE_ID', regex: '^Extension_EXT_Unknown_NotHere$' }, { field: 'SEVERITY', regex: '^(error|fatal)$', inverted: true }], requiresAllChildren: true }),
      rule('code_or_message', { children: [{ field: 'CODE', regex: '^too-costly$' }, { field: 'MESSAGE', regex: 'nested too deeply' }], requiresAllChildren: false }),
      rule('message_and_patient', { children: [{ field: 'MESSAGE', regex: 'whitespace' }, { field: 'EXPRESSION', regex: 'ofType\\(Patient\\)' }], requiresAllChildren: true }),
      rule('message_or_not_patient', { children: [{ field: 'MESSAGE', regex: '^Unknown' }, { field: 'EXPRESSION', regex: 'Patient', inverted: true }], requiresAllChildren: false, inverted: true }),
      rule('expression_only', { field: 'EXPRESSION', regex: '\\.extension\\[\\d+\\]$' }),
      rule('long_message_end', { field: 'MESSAGE', regex: 'y$' }),
    ];
    const plain = (issue: MatchableIssue) => {
      const ids = rules.filter((r) => r.matcher.matches(issue)).map((r) => r.category.id);
      return ids.length > 0 ? ids : ['uncategorized'];
    };
    const long = 'x'.repeat(MAX_MATCHED_CHARACTERS - 1);
    const messages = ['Unknown code x', 'value should not start or finish with whitespace', 'The resource is nested too deeply', 'other', undefined,
      `${long}y`, `${long}yz`, `${long}y and more`];
    const issues: MatchableIssue[] = [];
    for (const message of messages) {
      for (const severity of ['error', 'warning', undefined]) {
        for (const code of ['too-costly', 'invalid']) {
          // The HL7 id, the engine key stored by older outcomes (read as that id), another id, none.
          for (const messageId of ['Extension_EXT_Unknown_NotHere', 'EXTENSION_UNKNOWN', 'Other', undefined]) {
            for (const expression of ["Bundle.entry[1].resource.ofType(Patient).where(id = 'p1')", 'Bundle.entry[2].resource.ofType(Encounter).extension[0]', undefined]) {
              issues.push({ severity, code, message, messageId, expression });
            }
          }
        }
      }
    }

    it('gives every issue what the rules\' own matchers give, whatever the order the combinations are met in', () => {
      const expected = new Map(issues.map((issue) => [issue, plain(issue)]));
      // Each rule answers somewhere: the memo must not make them all answer alike.
      expect(new Set([...expected.values()].flat())).to.have.length(rules.length + 1);
      const categorizer = new Categorizer(rules);
      const reversed = [...issues].reverse();
      for (const [pass, order] of [[1, issues], [2, reversed], [3, issues]] as const) {
        categorizer.categorize(order).forEach((categorized, i) => {
          expect(categorized.categories.map((c) => c.id), `pass ${pass}: ${JSON.stringify(order[i])}`).to.deep.equal(expected.get(order[i]!));
        });
      }
    });

    it('answers issues that differ only in fields no rule reads, or in the expression when no undecided rule reads it, from one remembered verdict', () => {
      const categorizer = new Categorizer(rules.slice(0, 4));
      const [first, second] = categorizer.categorize([
        { severity: 'error', code: 'invalid', message: 'Unknown code x', expression: 'Bundle.entry[1].resource', location: '1:2' },
        { severity: 'error', code: 'invalid', message: 'Unknown code x', expression: 'Bundle.entry[7].resource', location: '9:9' },
      ]);
      expect(first!.categories).to.equal(second!.categories);
      expect(Object.isFrozen(first!.categories)).to.equal(true);
      // The same message with another severity is another combination.
      const [error, warning] = categorizer.categorize([
        { severity: 'error', message: 'm', messageId: 'Extension_EXT_Unknown_NotHere' },
        { severity: 'warning', message: 'm', messageId: 'Extension_EXT_Unknown_NotHere' },
      ]);
      expect([error!.categories.map((c) => c.id), warning!.categories.map((c) => c.id)]).to.deep.equal([['id_and_error'], ['id_and_not_error']]);
    });

    it('asks an opaque matcher with every issue, after what the remembered verdicts decided', () => {
      const asked: MatchableIssue[] = [];
      const opaque: Matcher = { matches: (issue) => { asked.push(issue); return issue.expression === 'b'; }, toJSON: () => ({ field: 'MESSAGE', regex: 'x' }) };
      const categorizer = new Categorizer([{ category: cat('opaque', false), matcher: opaque }, rules[0]!]);
      const categorized = categorizer.categorize([{ message: 'Unknown code', expression: 'a' }, { message: 'Unknown code', expression: 'b' }]);
      expect(categorized.map((issue) => issue.categories.map((c) => c.id))).to.deep.equal([['message_only'], ['opaque', 'message_only']]);
      expect(asked).to.have.length(2);
    });

    it('keeps answering right once its bounded memory of combinations has started over', () => {
      const categorizer = new Categorizer(rules);
      const many = Array.from({ length: 22_000 }, (_, i): MatchableIssue => ({
        severity: i % 3 === 0 ? 'error' : 'warning', code: 'invalid', message: `Unknown ${i % 2 === 0 ? 'code' : 'whitespace'} ${i}`,
        messageId: i % 5 === 0 ? 'EXTENSION_UNKNOWN' : 'Other', expression: i % 7 === 0 ? 'Patient.extension[0]' : 'Encounter.ofType(Patient)',
      }));
      const categorized = categorizer.categorize([...many, ...many.slice(0, 200)]);
      // Checked: around the start-over (20,000 combinations) and after it, the first ones met again, a sample of the rest.
      categorized.forEach((issue, i) => {
        if (i >= 19_900 || i % 50 === 0) expect(issue.categories.map((c) => c.id), String(i)).to.deep.equal(plain(many[i % many.length]!));
      });
    });
  });

  it('summarizes by message and by category, most frequent first', () => {
    const issues = categorizer.categorize([
      { severity: 'error', code: 'code-invalid', message: 'a' },
      { severity: 'error', code: 'code-invalid', message: 'a' },
      { severity: 'error', code: 'structure', message: 'b' },
    ]);
    expect(summarizeByMessage(issues)).to.deep.equal([{ value: 'a', count: 2 }, { value: 'b', count: 1 }]);
    expect(summarizeByCategory(issues).map((c) => [c.categoryId, c.count])).to.deep.equal([['terminology', 2], ['uncategorized', 1]]);
  });
});

describe('validation: the validity rule', () => {
  it('is valid with no issues, and with only acceptable categories', () => {
    expect(isSubmissionValid([])).to.equal(true);
    expect(isSubmissionValid([{ severity: 'error', categories: [cat('a', true), cat('b', true)] }])).to.equal(true);
  });

  it('is invalid when any category of any issue is not acceptable', () => {
    const verdict = assessValidity([
      { severity: 'information', categories: [cat('a', true), cat('b', false)] },
      { severity: 'error', categories: [cat('a', true)] },
    ]);
    expect(verdict).to.include({ valid: false, unacceptableIssueCount: 1, uncategorizedErrorCount: 0 });
  });

  it('is invalid when an error or fatal issue is uncategorized, but not a warning or information', () => {
    expect(isSubmissionValid([{ severity: 'warning', categories: [UNCATEGORIZED] }, { severity: 'information', categories: [] }])).to.equal(true);
    expect(isSubmissionValid([{ severity: 'error', categories: [UNCATEGORIZED] }])).to.equal(false);
    expect(assessValidity([{ severity: 'fatal', categories: [] }])).to.include({ valid: false, uncategorizedErrorCount: 1, uncategorizedIssueCount: 1 });
  });
});

describe('validation: category records and imports', () => {
  const valid = { id: 'unknown_code_system', title: 'Unknown code system', severity: 'error', acceptable: true, guidance: 'Do x', matcher: { field: 'MESSAGE', regex: 'x' } };

  it('normalizes severity and keeps the fields', () => {
    expect(parseCategory(valid)).to.deep.equal({ id: 'unknown_code_system', title: 'Unknown code system', severity: 'ERROR', acceptable: true, guidance: 'Do x' });
  });

  it('refuses the reserved id, bad ids and over-long text, naming the fields', () => {
    const error = (input: unknown) => {
      try { parseCategory(input); } catch (e) { return e as CategoryValidationError; }
      throw new Error('expected an error');
    };
    expect(error({ ...valid, id: 'Uncategorized' }).problems[0]).to.include({ field: 'id' });
    expect(error({ ...valid, id: 'a/b' }).problems[0]!.field).to.equal('id');
    expect(error({ ...valid, guidance: 'x'.repeat(1001) }).problems[0]!.field).to.equal('guidance');
    expect(error({ ...valid, severity: 'FATAL', acceptable: 'yes' }).problems.map((p) => p.field)).to.deep.equal(['severity', 'acceptable']);
  });

  it('names the index and field of the first invalid import item', () => {
    const items = [valid, { ...valid, id: 'second', matcher: { children: [{ field: 'MESSAGE', regex: '(?=x)' }], requiresAllChildren: true } }];
    expect(() => parseCategorySnapshots(items)).to.throw(CategoryValidationError, /index 1.*\[1\]\.matcher\.children\[0\]\.regex/);
    expect(() => parseCategorySnapshots([valid, { ...valid, title: '' }])).to.throw(CategoryValidationError, /index 1.*\[1\]\.title/);
  });

  it('refuses duplicate ids in one import', () => {
    expect(() => parseCategorySnapshots([valid, { ...valid }])).to.throw(CategoryValidationError, /\[1\]\.id duplicate of the id at index 0/);
    expect(() => parseCategorySnapshots([])).to.throw(CategoryValidationError, /at least one/);
    expect(() => parseCategorySnapshots({})).to.throw(CategoryValidationError, /array/);
    expect(() => parseCategorySnapshots(Array.from({ length: 1001 }, (_, i) => ({ ...valid, id: `c${i}` })))).to.throw(CategoryValidationError, /at most 1000/);
  });
});

describe('validation: the validity rule from stored counts', () => {
  it('gives the same verdict as the issue-by-issue form', async () => {
    const { verdictFromCounts } = await import('#validation/domain/categorization/validity.js');
    const issues = [
      { severity: 'error', categories: [UNCATEGORIZED] },
      { severity: 'warning', categories: [cat('a', false)] },
      { severity: 'information', categories: [] },
    ];
    const { valid: _valid, ...counts } = assessValidity(issues);
    expect(verdictFromCounts(counts)).to.deep.equal(assessValidity(issues));
    expect(verdictFromCounts({ unacceptableIssueCount: 0, uncategorizedErrorCount: 0, uncategorizedIssueCount: 3 }).valid).to.equal(true);
  });
});

describe('validation: terminology dependencies', () => {
  it('marks bound value sets and their code systems local, remote or missing', async () => {
    const { terminologyDependencies, summarizePackage } = await import('#validation/domain/artifacts/package-summary.js');
    const profile = {
      resourceType: 'StructureDefinition', url: 'http://x/sd', snapshot: { element: [
        { id: 'Obs.code', path: 'Obs.code', binding: { strength: 'extensible', valueSet: 'http://x/vs|1.0' } },
        { id: 'Obs.status', path: 'Obs.status', binding: { strength: 'required', valueSet: 'http://hl7.org/fhir/ValueSet/observation-status|4.0.1' } },
        { id: 'Obs.method', path: 'Obs.method', binding: { strength: 'example', valueSet: 'http://elsewhere/vs' } },
        { id: 'Obs.other', path: 'Obs.other', binding: { strength: 'preferred', valueSet: 'http://x/vs' } },
      ] },
    };
    const valueSet = { resourceType: 'ValueSet', url: 'http://x/vs', version: '1.0', compose: { include: [{ system: 'http://loinc.org' }, { system: 'http://x/cs' }] } };
    const codeSystem = { resourceType: 'CodeSystem', url: 'http://x/cs' };
    const summary = summarizePackage({ name: 'p', version: '1', fhirVersion: '4.0.1', dependencies: {}, resourceCounts: {}, resources: [profile, valueSet, codeSystem] });
    // Built in: the core value set; known remotely: LOINC (a terminology server is configured).
    const knowledge = {
      isBuiltIn: (kind: 'ValueSet' | 'CodeSystem', url: string) => kind === 'ValueSet' && url.startsWith('http://hl7.org/fhir/ValueSet/observation-status'),
      isAvailableRemotely: (kind: 'ValueSet' | 'CodeSystem', url: string) => kind === 'CodeSystem' && url === 'http://loinc.org',
    };
    const deps = terminologyDependencies([{ source: 'p', summary }], [{ source: 'p', summary }], knowledge);
    expect(deps.map((d) => [d.kind, d.url, d.availability, d.usedBy, d.strongestStrength])).to.deep.equal([
      ['CodeSystem', 'http://loinc.org', 'remote', 1, undefined],
      ['CodeSystem', 'http://x/cs', 'local', 1, undefined],
      ['ValueSet', 'http://elsewhere/vs', 'missing', 1, 'example'],
      ['ValueSet', 'http://hl7.org/fhir/ValueSet/observation-status', 'local', 1, 'required'],
      ['ValueSet', 'http://x/vs', 'local', 2, 'extensible'],
    ]);
  });
});
