import { expect } from 'chai';
import { fieldValue, MatcherError, matcherTree, parseMatcher, MAX_MATCHED_CHARACTERS, MAX_MATCHER_DEPTH, MAX_RULE_PROGRAM_SIZE } from '#validation/domain/categorization/matcher.js';
import sinon from 'sinon';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { RE2JS } from 're2js';
import { compileUserRegex, literalShortcut, requiredTexts, translateJavaRegex, UserRegexError } from '#validation/domain/categorization/user-regex.js';

const issue = {
  severity: 'error',
  code: 'code-invalid',
  message: "Unknown code 'urn:oid:1.2.840.114350.1' for in-memory expansion of ValueSet 'http://x'",
  expression: 'Bundle.entry[3].resource.ofType(Encounter).where(id = \'e1\').class',
};

describe('validation: matchers', () => {
  it('regex leaves search unanchored (Java find) on the chosen field', () => {
    expect(parseMatcher({ field: 'MESSAGE', regex: 'in-memory expansion' }).matches(issue)).to.equal(true);
    expect(parseMatcher({ field: 'MESSAGE', regex: '^in-memory' }).matches(issue)).to.equal(false);
    expect(parseMatcher({ field: 'EXPRESSION', regex: 'ofType\\(Encounter\\)' }).matches(issue)).to.equal(true);
  });

  it('MESSAGE_ID selects by the HL7 message id whatever the wording, and reads an engine key stored earlier as its HL7 id', () => {
    const m = parseMatcher({ field: 'message_id', regex: '^Extension_EXT_Unknown_NotHere$' });
    expect(m.toJSON()).to.deep.equal({ field: 'MESSAGE_ID', regex: '^Extension_EXT_Unknown_NotHere$' });
    const hapi = { ...issue, message: 'The extension http://x is unknown, and not allowed here', messageId: 'Extension_EXT_Unknown_NotHere' };
    const hl7 = { ...issue, message: 'The extension http://x could not be found so is not allowed here', messageId: 'Extension_EXT_Unknown_NotHere' };
    expect([m.matches(hapi), m.matches(hl7), m.matches({ ...hapi, messageId: 'EXTENSION_UNKNOWN' })]).to.deep.equal([true, true, true]);
    expect([m.matches(issue), m.matches({ ...hapi, messageId: 'Extension_EXT_Unknown' })]).to.deep.equal([false, false]);
  });

  it('SEVERITY and CODE compare FHIR codes', () => {
    const m = parseMatcher({ children: [{ field: 'SEVERITY', regex: '^error$' }, { field: 'CODE', regex: '^code-invalid$' }], requiresAllChildren: true });
    expect(m.matches(issue)).to.equal(true);
    expect(m.matches({ ...issue, severity: 'warning' })).to.equal(false);
  });

  it('composites are AND or OR, inverted after evaluation, nested', () => {
    const or = { children: [{ field: 'MESSAGE', regex: 'nope' }, { field: 'MESSAGE', regex: 'Unknown code' }], requiresAllChildren: false };
    expect(parseMatcher(or).matches(issue)).to.equal(true);
    expect(parseMatcher({ ...or, requiresAllChildren: true }).matches(issue)).to.equal(false);
    expect(parseMatcher({ ...or, inverted: true }).matches(issue)).to.equal(false);
    const nested = { children: [or, { field: 'MESSAGE', regex: '114350', inverted: true }], requiresAllChildren: true };
    expect(parseMatcher(nested).matches(issue)).to.equal(false);
    expect(parseMatcher(nested).matches({ ...issue, message: 'Unknown code x' })).to.equal(true);
  });

  it('a missing field never matches, and an inverted leaf then matches', () => {
    expect(parseMatcher({ field: 'EXPRESSION', regex: '.*' }).matches({ message: 'x' })).to.equal(false);
    expect(parseMatcher({ field: 'EXPRESSION', regex: '.*', inverted: true }).matches({ message: 'x' })).to.equal(true);
  });

  it('accepts field names in any case and round-trips to canonical JSON', () => {
    const m = parseMatcher({ field: 'message', regex: 'a', inverted: false });
    expect(m.toJSON()).to.deep.equal({ field: 'MESSAGE', regex: 'a' });
    const c = parseMatcher({ children: [{ field: 'CODE', regex: 'b', inverted: true }], requiresAllChildren: false, inverted: true });
    expect(c.toJSON()).to.deep.equal({ children: [{ field: 'CODE', regex: 'b', inverted: true }], requiresAllChildren: false, inverted: true });
  });

  it('names the path of the bad node', () => {
    const bad = { children: [{ field: 'MESSAGE', regex: 'ok' }, { children: [{ field: 'WHAT', regex: 'x' }], requiresAllChildren: true }], requiresAllChildren: false };
    expect(() => parseMatcher(bad)).to.throw(MatcherError).with.property('path', 'matcher.children[1].children[0].field');
    expect(() => parseMatcher({ children: [], requiresAllChildren: true })).to.throw(MatcherError).with.property('path', 'matcher.children');
    expect(() => parseMatcher({ children: [{ field: 'MESSAGE', regex: 'a' }] })).to.throw(MatcherError).with.property('path', 'matcher.requiresAllChildren');
    expect(() => parseMatcher({ field: 'MESSAGE', regex: 'a', inverse: true })).to.throw(MatcherError).with.property('path', 'matcher.inverse');
    expect(() => parseMatcher({ field: 'MESSAGE', regex: 'a', children: [] })).to.throw(MatcherError, /either a composite or a regex/);
    expect(() => parseMatcher('x')).to.throw(MatcherError).with.property('path', 'matcher');
    expect(() => parseMatcher({ field: 'MESSAGE', regex: 'a', inverted: 'yes' })).to.throw(MatcherError).with.property('path', 'matcher.inverted');
  });

  it('refuses regexes RE2 cannot run in linear time, with the reason', () => {
    expect(() => parseMatcher({ field: 'MESSAGE', regex: '(?=a)b' })).to.throw(MatcherError, /matcher\.regex: .*RE2/);
    expect(() => parseMatcher({ field: 'MESSAGE', regex: '(a)\\1' })).to.throw(MatcherError).with.property('path', 'matcher.regex');
    expect(() => parseMatcher({ field: 'MESSAGE', regex: '' })).to.throw(MatcherError, /must not be empty/);
    expect(() => parseMatcher({ field: 'MESSAGE', regex: '[' })).to.throw(MatcherError);
  });

  it('refuses trees nested deeper than the limit instead of exhausting the stack', () => {
    let node: unknown = { field: 'MESSAGE', regex: 'a' };
    for (let i = 0; i < MAX_MATCHER_DEPTH + 5; i++) node = { children: [node], requiresAllChildren: true };
    expect(() => parseMatcher(node)).to.throw(MatcherError, /nested at most/);
  });

  it('evaluates a hostile regex on a long input without backtracking', () => {
    const m = parseMatcher({ field: 'MESSAGE', regex: '(a+)+$' });
    // just under what a rule sees (MAX_MATCHED_CHARACTERS): exponential for a backtracking engine
    const hostile = `${'a'.repeat(MAX_MATCHED_CHARACTERS - 1)}!`;
    expect(m.matches({ message: hostile })).to.equal(false);
    expect(m.matches({ message: 'aaa' })).to.equal(true);
    expect(parseMatcher({ field: 'MESSAGE', regex: '(x+x+)+y' }).matches({ message: 'x'.repeat(100_000) })).to.equal(false);
  });
});

describe('validation: the cost of a rule is bounded (program size, characters seen)', () => {
  it('refuses a leaf whose RE2 program is over the limit, naming the leaf and the limit; one at the limit passes', () => {
    const over = 'a'.repeat(MAX_RULE_PROGRAM_SIZE);
    try {
      parseMatcher({ children: [{ field: 'CODE', regex: 'x' }, { field: 'MESSAGE', regex: over }], requiresAllChildren: true });
      expect.fail('a program over the limit was accepted');
    } catch (error) {
      expect(error).to.be.instanceOf(MatcherError);
      expect((error as MatcherError).path).to.equal('matcher.children[1].regex');
      expect((error as MatcherError).problem).to.contain(`at most ${MAX_RULE_PROGRAM_SIZE}`).and.contain(`size ${RE2JS.compile(over).programSize()}`);
    }
    expect(() => parseMatcher({ field: 'MESSAGE', regex: 'a'.repeat(MAX_RULE_PROGRAM_SIZE - 2) })).to.not.throw();
    // the hostile leaf of issue 28 is under it: the characters a rule sees bound it (below)
    expect(matcherTree(parseMatcher({ field: 'MESSAGE', regex: '[\\p{L}\\d]{900}' }))!).to.have.nested.property('regex.programSize').below(MAX_RULE_PROGRAM_SIZE);
  });

  it('lets rules see only the first MAX_MATCHED_CHARACTERS characters of a field, never half a surrogate pair', () => {
    const quoted = { message: `Value '${'é'.repeat(1_000_000)}' is not valid`, expression: 'Patient.name' };
    expect(fieldValue(quoted, 'MESSAGE')).to.equal(quoted.message.slice(0, MAX_MATCHED_CHARACTERS));
    expect(fieldValue(quoted, 'EXPRESSION')).to.equal('Patient.name');
    const astral = { message: `${'x'.repeat(MAX_MATCHED_CHARACTERS - 1)}😀 and more` };
    expect(fieldValue(astral, 'MESSAGE')).to.equal('x'.repeat(MAX_MATCHED_CHARACTERS - 1));
    // a category decides by the start of a message
    expect(parseMatcher({ field: 'MESSAGE', regex: '^Value ' }).matches(quoted)).to.equal(true);
    expect(parseMatcher({ field: 'MESSAGE', regex: 'is not valid$' }).matches(quoted)).to.equal(false);
  });

  it('the categorizer hands the regex engine at most the bounded prefix of a 1 MB quoted value', () => {
    const rule = { category: { id: 'costly', title: 'Costly', severity: 'ERROR' as const, acceptable: false, guidance: 'g' }, matcher: parseMatcher({ field: 'MESSAGE', regex: '[\\p{L}\\d]{900}!' }) };
    const regex = matcherTree(rule.matcher)!;
    if (regex.kind !== 'leaf') return expect.fail('a leaf was expected');
    const seen = [sinon.spy(regex.regex, 'test'), sinon.spy(regex.regex, 'testHavingLiteral')];
    const issues = Array.from({ length: 20 }, (_, i) => ({ message: `Value '${i}${'é'.repeat(1_000_000)}!' is not valid` }));
    const categorized = new Categorizer([rule]).categorize(issues);
    const lengths = seen.flatMap((spy) => spy.getCalls().map((call) => (call.args[0] as string).length));
    expect(lengths).to.have.length.above(0);
    expect(Math.max(...lengths)).to.be.at.most(MAX_MATCHED_CHARACTERS);
    // the `!` after the run is past the prefix: the verdict is the start's
    expect(categorized.map((i) => i.categories[0]!.id)).to.deep.equal(issues.map(() => 'uncategorized'));
    expect(parseMatcher({ field: 'MESSAGE', regex: '[\\p{L}\\d]{900}' }).matches(issues[0]!)).to.equal(true);
  });
});

describe('validation: Java regex compatibility', () => {
  it('keeps the identity escapes of Java patterns working', () => {
    const re = compileUserRegex("^Code System URI \\'urn\\:oid\\:1\\.2\\' is unknown");
    expect(re.test("Code System URI 'urn:oid:1.2' is unknown so the code cannot be validated")).to.equal(true);
    expect(compileUserRegex('http:\\/\\/hl7\\.org\\/fhir\\/ValueSet\\/x\\|4\\.0\\.1').test('(http://hl7.org/fhir/ValueSet/x|4.0.1)')).to.equal(true);
    expect(compileUserRegex('Patient\\.gender\\: minimum').test('Patient.gender: minimum required = 1')).to.equal(true);
  });

  it('keeps Java semantics for an unescaped group (it matches without the parentheses)', () => {
    const re = compileUserRegex("Codes (RxNorm)'\\.");
    expect(re.test("value set 'US Core Medication Codes RxNorm'.")).to.equal(true);
    expect(re.test("value set 'US Core Medication Codes (RxNorm)'.")).to.equal(false);
  });

  it('rewrites Java-only escapes that have an exact RE2 spelling', () => {
    expect(translateJavaRegex('a\\Z')).to.equal('a(?:\\n?\\z)');
    expect(compileUserRegex('done\\Z').test('done\n')).to.equal(true);
    expect(compileUserRegex('done\\Z').test('done.')).to.equal(false);
    expect(compileUserRegex('a\\hb').test('a b')).to.equal(true);
    expect(compileUserRegex('[\\h]x').test('\tx')).to.equal(true);
    expect(translateJavaRegex('\\Qa\\Zb\\E')).to.equal('\\Qa\\Zb\\E');
    expect(compileUserRegex('\\Q(a)\\E').test('x(a)y')).to.equal(true);
  });

  it('refuses oversized patterns', () => {
    expect(() => compileUserRegex('a'.repeat(5000))).to.throw(UserRegexError, /at most/);
  });
});

describe('validation: literal shortcuts of user regexes', () => {
  it('takes a shortcut only for shapes whose meaning is certain', () => {
    expect(literalShortcut('labeled as a fragment')).to.deep.equal({ exact: 'labeled as a fragment', anchored: false });
    expect(literalShortcut('^Unknown code')).to.deep.equal({ exact: 'Unknown code', anchored: true });
    expect(literalShortcut("^Wrong Display Name '.*' for ")).to.deep.equal({ prefix: "Wrong Display Name '" });
    expect(literalShortcut('^abc?d')).to.deep.equal({ prefix: 'ab' }); // c is optional
    expect(literalShortcut('^a{2}')).to.deep.equal({});
    expect(literalShortcut('^abc|xyz')).to.deep.equal({}); // ^ binds to the first alternative only
    expect(literalShortcut('^(abc|x)yz')).to.deep.equal({});
    expect(literalShortcut('^ab(c|x)yz')).to.deep.equal({ prefix: 'ab' });
    expect(literalShortcut('[|]abc')).to.deep.equal({});
    expect(literalShortcut('(?i)^abc')).to.deep.equal({});
    expect(literalShortcut('^a\\.b')).to.deep.equal({ prefix: 'a' });
    expect(literalShortcut('abc$')).to.deep.equal({ contains: 'abc' });
    expect(literalShortcut('https?://x')).to.deep.equal({ contains: 'http' });
    expect(literalShortcut('a*b')).to.deep.equal({});
    expect(literalShortcut('cannot be null \\(at ')).to.deep.equal({ contains: 'cannot be null ' });
    expect(literalShortcut('ab(?i)*')).to.deep.equal({ contains: 'a' }); // the star applies to b
    expect(literalShortcut('^a😀?')).to.deep.equal({ prefix: 'a' }); // ... to the whole character
  });

  it('answers exactly as the regex engine does, with or without a shortcut', () => {
    const patterns = [
      'labeled as a fragment', '^Unknown code', "^Wrong Display Name '.*' for ", '^abc?d', '^ab*c', '^a+b', '^a{2}b', '^abc|xyz',
      '^(abc|x)yz', '^ab(c|x)yz', '[|]abc', '(?i)^abc', '^a\\.b', 'abc$', '^$', 'a|^b', '^\\Qa|b\\E', 'é', '^é.',
      'https?://x', 'a*b', 'ab+c', 'b(c|x)', 'abc\\.', 'is (less|greater) than', '^a😀?b', 'a😀*b', 'x😀+', 'ab(?i)*', '^ab\\Q\\E?c', 'ab(?:)*',
    ];
    const values = [
      '', 'a', 'ab', 'abd', 'abcd', 'abbbc', 'ac', 'aab', 'aaab', 'b', 'abc', 'xyz', 'zzxyz', 'abcyz', 'xyz!', 'abxyz', 'abcyzz', '|abc',
      'ABC', 'a.b', 'aXb', 'zabc', 'a|b', 'é', 'éa', 'xé', 'Unknown code x', 'x Unknown code', "Wrong Display Name 'X' for y",
      "Wrong Display Name 'X'", 'it is labeled as a fragment!', 'http://x', 'https://x', 'see https://x.org', 'abc.', 'xabc.y',
      'it is less than', 'is greater than 5', 'bx', 'zbcz', 'abbc', 'xab', 'a😀b', 'a😀😀b', 'x😀', 'a\ud83db', 'aB', 'ac',
    ];
    for (const pattern of patterns) {
      const reference = RE2JS.compile(translateJavaRegex(pattern));
      const compiled = compileUserRegex(pattern);
      for (const value of values) expect(compiled.test(value), `${pattern} on ${JSON.stringify(value)}`).to.equal(reference.test(value));
    }
  });
});

describe('validation: texts every match of a user regex contains', () => {
  it('collects the plain runs of the top-level sequence, skipping groups and classes', () => {
    expect(requiredTexts('is (less|greater) than the specified (minimum|maximum) value')).to.deep.equal([' than the specified ', ' value', 'is ']);
    expect(requiredTexts('[Cc]omma .*in the JSON')).to.deep.equal(['in the JSON', 'omma ']);
    expect(requiredTexts("\\(for '[^']*#[^']*'\\)$")).to.deep.equal(["(for '", "')", '#']);
    expect(requiredTexts('^Unable to (resolve|find) value [Ss]et ')).to.deep.equal(['Unable to ', ' value ', 'et ']);
    expect(requiredTexts('https?://www\\.cdc\\.gov/x')).to.deep.equal(['://www.cdc.gov/x', 'http']);
    expect(requiredTexts('\\Qa.b\\E+c')).to.deep.equal(['a.', 'c']); // the quantifier takes the quoted text's last character
    expect(requiredTexts('^a😀?b')).to.deep.equal(['a', 'b']);
    expect(requiredTexts('(?:ab)cd')).to.deep.equal(['cd']);
  });

  it('stops where the meaning is not certain, keeping what it found before but its last character', () => {
    expect(requiredTexts('abc|xyz')).to.deep.equal([]);
    expect(requiredTexts('(?i)abc')).to.deep.equal([]);
    expect(requiredTexts('ab(?i)cd')).to.deep.equal(['a']);
    expect(requiredTexts('é(?i)*')).to.deep.equal([]); // the star applies to é
    expect(requiredTexts('ab(?i:x)cd')).to.deep.equal(['a']);
    expect(requiredTexts('abc\\dcd')).to.deep.equal(['ab']);
    expect(requiredTexts('abc{2}d')).to.deep.equal(['ab']);
    expect(requiredTexts('x.abc[[:digit:]]cd')).to.deep.equal(['ab', 'x']);
  });

  it('only names texts that every RE2 match contains (random patterns, seeded)', () => {
    let state = 2024;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff) / 0x80000000;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const atoms = ['a', 'b', 'ab', ' ', '\\.', '.', '\\(', ')', '(', '(a|b)', '(?:ab)', '[ab]', '[^a]', '[]a]', '*', '+', '?', '{2}', '|', '^', '$',
      '\\d', '\\Qa.b\\E', '\\Q', '\\E', '(?i)', '(?i:a)', 'é', '😀', '\\*', '\\\\', '{', '}', ']', '(a)*', '(?P<n>a)'];
    const alphabet = ['a', 'b', 'A', '.', '(', ')', ' ', 'é', '😀', '*', '\\', '1', ']', '{'];
    let checked = 0;
    for (let n = 0; n < 20_000; n++) {
      const pattern = Array.from({ length: 1 + Math.floor(next() * 6) }, () => pick(atoms)).join('');
      let regex: RE2JS;
      try { regex = RE2JS.compile(translateJavaRegex(pattern)); } catch { continue; }
      const texts = requiredTexts(pattern);
      for (let k = 0; k < 10; k++) {
        let value = Array.from({ length: Math.floor(next() * 8) }, () => pick(alphabet)).join('');
        if (texts.length > 0 && next() < 0.5) value = pick(texts) + value;
        if (!regex.test(value)) continue;
        checked++;
        for (const text of texts) expect(value.includes(text), `${JSON.stringify(pattern)} on ${JSON.stringify(value)}: ${JSON.stringify(text)}`).to.equal(true);
      }
    }
    expect(checked).to.be.greaterThan(10_000);
  });
});
