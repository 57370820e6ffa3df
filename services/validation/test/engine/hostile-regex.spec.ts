/**
 * Submitted data never meets a backtracking regular expression: the narrative is read by a linear
 * tokenizer, and the patterns that come with the data (Questionnaire and profile regex extensions,
 * FHIRPath matches()) run on RE2. Each hostile resource here took seconds to forever before; now it
 * gets its proper answer. A pattern RE2 cannot run is a warning with the HL7 validator's wording.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { checkXhtml, scanNarrative, unresolvedInternalLinks } from '#validation/domain/engine/checks/xhtml.js';
import { compileLinearRegex, isRegexError } from '#validation/domain/regex/linear-regex.js';
import { coreSource, sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';
import {
  CATASTROPHIC_PATTERN, CATASTROPHIC_VALUE, HOSTILE_PROFILE_URL, hostileProfile, narrativeWithManyAttributes, narrativeWithManyOpenBrackets,
  patientForHostileProfile, questionnaireResponseWithRegex,
} from './support/hostile-resources.js';

const NS = 'xmlns="http://www.w3.org/1999/xhtml"';
const div = (inner: string) => `<div ${NS}>${inner}</div>`;
const ids = (problems: readonly { id: string }[]) => problems.map((p) => p.id);

describe('engine: hostile patterns and the narrative tokenizer', function () {
  // a hang check only: each case takes milliseconds; the old patterns took seconds to forever
  this.timeout(20_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await coreSource());
  });

  describe('narrative rules (HL7 allow-lists, read by the linear tokenizer)', () => {
    it('accepts a plain narrative and keeps the root, namespace and element messages', () => {
      expect(checkXhtml(div('<p class="x">a <b>b</b><br/><img src="http://x/i.png" alt="i"/></p>'))).to.deep.equal([]);
      expect(checkXhtml('<div>x</div>')).to.deep.equal([{ id: 'XHTML_NAMESPACE', args: [''] }]);
      expect(checkXhtml('<p>x</p>')).to.deep.equal([{ id: 'XHTML_ROOT', args: ['p'] }]);
      expect(checkXhtml(div('<script>x</script><iframe/>'))).to.deep.equal([{ id: 'XHTML_ELEMENT', args: ['script'] }, { id: 'XHTML_ELEMENT', args: ['iframe'] }]);
      expect(checkXhtml('some text')).to.deep.equal([{ id: 'XHTML_INVALID', args: ['the narrative does not start with an element'] }]);
    });

    it('allows an attribute globally or on its own element only, as the HL7 validator does', () => {
      expect(checkXhtml(div('<table border="1" cellpadding="2"><tr><td colspan="2">x</td></tr></table><a name="n" href="#n">n</a>'))).to.deep.equal([]);
      expect(checkXhtml(div('<p onclick="x()" href="http://x">a</p>'))).to.deep.equal([
        { id: 'XHTML_ATTRIBUTE', args: ['p', 'onclick'] }, { id: 'XHTML_ATTRIBUTE', args: ['p', 'href'] },
      ]);
      expect(checkXhtml(div('<a href="javascript:alert(1)">x</a>'))).to.deep.equal([{ id: 'XHTML_ATTRIBUTE', args: ['a', 'href'] }]);
    });

    it('checks hyperlink and image URLs for invalid characters, and refuses a DOCTYPE', () => {
      expect(checkXhtml(div('<a href="http://x/a b">x</a>'))).to.deep.equal([{ id: 'XHTML_URL_INVALID', args: ['http://x/a b', "URL contains Invalid Character (' ')"] }]);
      expect(checkXhtml(div('<img src="a{b}.png"/>'))).to.deep.equal([{ id: 'XHTML_URL_INVALID', args: ['a{b}.png', "URL contains 2 Invalid Characters ('{','}')"] }]);
      expect(checkXhtml(div('<a href="http://x/é?q=1&amp;r=(2)">x</a>'))).to.deep.equal([]);
      expect(ids(checkXhtml(`<!DOCTYPE html>${div('x')}`))).to.deep.equal(['XHTML_DOCTYPE']);
    });

    it('reports unbalanced tags and constructs that are not well formed, once', () => {
      expect(checkXhtml(div('<p>a</b>'))).to.deep.equal([{ id: 'XHTML_INVALID', args: ['unexpected closing tag </b>'] }]);
      expect(checkXhtml(`<div ${NS}><p>a</p>`)).to.deep.equal([{ id: 'XHTML_INVALID', args: ['unclosed element <div>'] }]);
      expect(checkXhtml(div('<p title="x>y</p>'))).to.deep.equal([{ id: 'XHTML_INVALID', args: ['unterminated attribute value in start tag <p>'] }]);
      expect(checkXhtml(div('<!-- open'))).to.deep.equal([{ id: 'XHTML_INVALID', args: ['unterminated comment'] }]);
      // lenient where narratives are: a lone '<', <br> without '/', comments and CDATA
      expect(checkXhtml(div('a < b <br> <!-- c --> <![CDATA[ <x> ]]>'))).to.deep.equal([]);
    });

    it('resolves internal links against anchors and contained ids, with the element path and link text', () => {
      const text = div('<table><tr><td><a href="#nope">Some <b>text</b> </a></td></tr></table><a name="here"/><a href="#here">ok</a><a href="#c1">c</a>');
      expect(unresolvedInternalLinks(text, ['c1'])).to.deep.equal([{ href: '#nope', path: 'div/table/tr/td/a', text: 'Some text' }]);
    });

    it('txt-2: content is text or an image, not tags and whitespace alone', () => {
      expect(scanNarrative(div('<p> </p>')).hasContent).to.equal(false);
      expect(scanNarrative(div('<p><img src="x.png"/></p>')).hasContent).to.equal(true);
      expect(scanNarrative(div('<p>x</p>')).hasContent).to.equal(true);
    });
  });

  describe('the hostile narratives', () => {
    it('a start tag with 60 quoted attributes and then no ">" is reported as not well formed', () => {
      const o = v.validate(narrativeWithManyAttributes(60));
      expect(issuesWith(o, 'Error parsing XHTML: malformed attribute in start tag <p>', 'Patient.text.div'), describe_(o)).to.have.length(1);
    });

    it('200,000 "<" without a ">" are text, read once; 200,000 "<a" are one tag that is not well formed', () => {
      const o = v.validate(narrativeWithManyOpenBrackets(200_000, '<'));
      expect(issuesWith(o, 'XHTML', 'Patient.text.div'), describe_(o)).to.deep.equal([]);
      const tags = v.validate(narrativeWithManyOpenBrackets(200_000, '<a'));
      expect(issuesWith(tags, 'Error parsing XHTML: malformed attribute in start tag <a>', 'Patient.text.div'), describe_(tags)).to.have.length(1);
    });

    it('HTML-looking strings (security checks) with many "<p" and no ">" are not tags; with a ">" after them they are', async () => {
      const sv = new Validator(await coreSource(), undefined, { securityChecks: true });
      const patient = (text: string) => ({ resourceType: 'Patient', id: 'p1', text: { status: 'generated', div: div('x') }, name: [{ text }] });
      const many = '<p'.repeat(100_000);
      expect(issuesWith(sv.validate(patient(many)), 'looks like embedded HTML tags')).to.deep.equal([]);
      expect(issuesWith(sv.validate(patient(many + '>')), 'looks like embedded HTML tags', 'Patient.name[0].text')).to.have.length(1);
    });
  });

  describe('patterns that come with the data run on RE2', () => {
    it('a contained Questionnaire regex (a+)+$ against 40 a and a "!" answers the format error', () => {
      const o = v.validate(questionnaireResponseWithRegex());
      expect(issuesWith(o, `The answer '${CATASTROPHIC_VALUE}' does not conform to the expected format`, 'QuestionnaireResponse.item[0].answer[0].value.ofType(string)'), describe_(o)).to.have.length(1);
      expect(errorsOf(v.validate(questionnaireResponseWithRegex(CATASTROPHIC_PATTERN, 'aaaa')))).to.deep.equal([]);
    });

    it('a Questionnaire regex RE2 cannot run is a warning in the HL7 wording, and the answer is not judged', () => {
      const o = v.validate(questionnaireResponseWithRegex('(?=a)a+', 'aaa'));
      const warnings = issuesWith(o, "Exception evaluating regex '(?=a)a+' on type string: not supported by linear-time (RE2) matching");
      expect(warnings.map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    });

    it("a profile's invariant matches() and regex extension with (a+)+$ are evaluated on RE2", async () => {
      const pv = new Validator(await sourceWith([hostileProfile()]));
      const o = pv.validate(patientForHostileProfile(), { profiles: [HOSTILE_PROFILE_URL] });
      expect(issuesWith(o, "Rule hostile-1: 'family is all a' Failed", 'Patient.name[0].family'), describe_(o)).to.have.length(1);
      expect(issuesWith(o, `Element value '${CATASTROPHIC_VALUE}' does not meet regex '${CATASTROPHIC_PATTERN}'`, 'Patient.name[0].given[0]'), describe_(o)).to.have.length(1);
      const ok = pv.validate(patientForHostileProfile('aaaa'), { profiles: [HOSTILE_PROFILE_URL] });
      expect(errorsOf(ok), describe_(ok)).to.deep.equal([]);
    });

    it("a profile's back-reference pattern is a warning on both the invariant and the element, never a crash", async () => {
      const pv = new Validator(await sourceWith([hostileProfile('(a)\\1')]));
      const o = pv.validate(patientForHostileProfile('aa'), { profiles: [HOSTILE_PROFILE_URL] });
      expect(errorsOf(o), describe_(o)).to.deep.equal([]);
      expect(issuesWith(o, "Exception evaluating regex '(a)\\1' on type string", 'Patient.name[0].family').map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
      expect(issuesWith(o, "Exception evaluating regex '(a)\\1' on type string", 'Patient.name[0].given[0]').map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
    });

    it('the RE2 helper: whole match, search, replacement with groups, Java escapes, refusals', () => {
      const re = compileLinearRegex('(\\w+)@(\\w+)\\Z');
      if (isRegexError(re)) throw new Error(re.error);
      expect(re.matchesWhole('joe@x')).to.equal(true);
      expect(re.matchesWhole('joe@x!')).to.equal(false);
      expect(re.find('mail joe@x')).to.equal(true);
      expect(re.replaceAll('joe@x', '$2:$1')).to.equal('x:joe');
      expect(compileLinearRegex('(\\w+)@(\\w+)\\Z')).to.equal(re); // compiled once
      for (const bad of ['(?=a)b', '(a)\\1', 'a++', 'a{1001}', 'x'.repeat(10_001)]) {
        expect(isRegexError(compileLinearRegex(bad)), bad.slice(0, 20)).to.equal(true);
      }
    });
  });
});
