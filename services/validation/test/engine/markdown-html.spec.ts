/**
 * Markdown with embedded HTML, as the HL7 validator reports it: a warning by default, an error
 * when the validator is told so (the HL7 test cases' noHtmlInMarkdown), nothing when turned off;
 * an escaped '<' and a '<' that starts no tag are fine.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, issuesWith } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const communication = (text: string) => ({ resourceType: 'Communication', text: narrative, status: 'completed', note: [{ text }] });

describe('engine: HTML in markdown', function () {
  this.timeout(60_000);

  it('warns by default, at the markdown value, and lets escaped or tag-less text through', async () => {
    const v = new Validator(await sourceWith([]));
    const o = v.validate(communication('see <b>this</b>'));
    const hits = issuesWith(o, "embedded HTML tag starting at '<b>this</b>'", 'Communication.note[0].text');
    expect(hits.map((i) => i.severity), describe_(o)).to.deep.equal(['warning']);
    for (const fine of ['a \\<b> is escaped', '1 < 2 and 3 > 2', 'plain *markdown*']) {
      const ok = v.validate(communication(fine));
      expect(issuesWith(ok, 'embedded HTML tag'), describe_(ok)).to.deep.equal([]);
    }
  });

  it('is an error when the validator is told so, and silent when turned off', async () => {
    const source = await sourceWith([]);
    const strict = new Validator(source, undefined, { htmlInMarkdown: 'error' }).validate(communication('<script>x</script>'));
    expect(issuesWith(strict, 'embedded HTML tag').map((i) => i.severity), describe_(strict)).to.deep.equal(['error']);
    const off = new Validator(source, undefined, { htmlInMarkdown: 'none' }).validate(communication('<script>x</script>'));
    expect(issuesWith(off, 'embedded HTML tag'), describe_(off)).to.deep.equal([]);
  });
});
