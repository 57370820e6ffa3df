/**
 * The narrative check is linear in its input (issue 28): internal links' paths and texts are the
 * same as the straightforward reading gave (a copy of every text into every open link, the full
 * element path per link) on narratives within the bounds, and bounded per link beyond them.
 */
import { expect } from 'chai';
import { MAX_LINK_TEXT, MAX_PATH_ELEMENTS, scanNarrative, unresolvedInternalLinks } from '#validation/domain/engine/checks/xhtml.js';
import { scanXhtml } from '#validation/domain/engine/checks/xhtml-scanner.js';
import { Validator } from '#validation/domain/engine/validator.js';
import { coreSource } from './support/core-definitions.js';

/** The links as the quadratic reading found them (what xhtml.ts did before), for comparison. */
function referenceLinks(div: string): { href: string; path: string; text: string }[] {
  const links: { href: string; path: string; text: string }[] = [];
  const path: string[] = [];
  const open: { link: { href: string; path: string; text: string }; text: string[] }[] = [];
  scanXhtml(div, {
    open(rawName, attributes, selfClosing) {
      const name = rawName.startsWith('xhtml:') ? rawName.slice(6) : rawName;
      const lower = name.toLowerCase();
      if (lower === 'a') {
        const href = attributes.find((a) => a.name === 'href')?.value;
        if (href !== undefined && href.startsWith('#') && href.length > 1) {
          const entry = { link: { href, path: [...path, 'a'].join('/'), text: '' }, text: [] as string[] };
          links.push(entry.link);
          open.push(entry);
        }
      }
      if (!selfClosing && !['br', 'hr', 'img', 'col'].includes(lower)) path.push(name);
    },
    close(rawName) {
      const name = rawName.startsWith('xhtml:') ? rawName.slice(6) : rawName;
      const at = path.lastIndexOf(name);
      if (at >= 0) path.length = at;
      if (name === 'a') {
        for (const o of open) o.link.text = o.text.join('').trim();
        open.length = 0;
      }
    },
    text(start, end) {
      for (const o of open) o.text.push(div.slice(start, end));
    },
    doctype() { /* not about links */ },
  });
  for (const o of open) o.link.text = o.text.join('').trim();
  return links;
}

/** A deterministic narrative of tables, nested spans, resolved and unresolved links, some left open, stray end tags. */
function largeNarrative(rows: number): string {
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const parts = ['<div xmlns="http://www.w3.org/1999/xhtml"><a name="top"/><table>'];
  for (let r = 0; r < rows; r++) {
    parts.push(`<tr><td id="r${r}">`);
    const depth = next(5);
    for (let d = 0; d < depth; d++) parts.push('<span>');
    const kind = next(6);
    if (kind === 0) parts.push(`<a href="#r${next(rows)}">row ${r}</a>`);
    else if (kind === 1) parts.push(`<a href="#missing${r}"> see <b>bold ${r}</b> &amp; more </a>`);
    else if (kind === 2) parts.push(`<a href="#open${r}">unclosed ${r} <a href="#inner${r}">inner</a> after`);
    else if (kind === 3) parts.push(`<a href="#x%20${r}">  </a></i>`);
    else if (kind === 4) parts.push(`text <br/> <a href="#top">top</a>`);
    else parts.push(`<a href="#deep${r}">${'word '.repeat(next(50))}</a>`); // within MAX_LINK_TEXT
    for (let d = 0; d < depth; d++) parts.push('</span>');
    parts.push('</td></tr>');
  }
  parts.push('</table></div>');
  return parts.join('');
}

describe('engine: narrative links, linear in the narrative', function () {
  this.timeout(120_000);
  let validator: Validator;
  before(async () => {
    validator = new Validator(await coreSource());
  });

  it('gives every link the path and text the straightforward reading gave, on a large narrative of nested links', () => {
    const div = largeNarrative(3_000);
    const expected = referenceLinks(div);
    expect(expected.length).to.be.greaterThan(2_500);
    expect(expected.some((l) => l.text.length > 100), 'some long link texts').to.equal(true);
    expect(scanNarrative(div).internalLinks).to.deep.equal(expected);
  });

  it('the engine reports the same unresolved links as before (href, path, text)', async () => {
    const rows = 400;
    const div = largeNarrative(rows);
    const contained = ['r1'];
    const anchors = new Set(['top', ...Array.from({ length: rows }, (_, r) => `r${r}`), ...contained]);
    const expected = referenceLinks(div).filter((l) => !anchors.has(l.href.slice(1)) && !anchors.has(decodeURIComponent(l.href.slice(1))));
    expect(expected.length).to.be.greaterThan(100);
    expect(unresolvedInternalLinks(div, contained)).to.deep.equal(expected);
    const outcome = await validator.validateAsync({ resourceType: 'Basic', code: { text: 'x' }, contained: [{ resourceType: 'Basic', id: 'r1', code: { text: 'c' } }], text: { status: 'generated', div } });
    const reported = outcome.issue.filter((i) => i.details.text.startsWith('Hyperlink ')).map((i) => i.details.text);
    expect(reported).to.deep.equal(expected.map((l) => `Hyperlink '${l.href}' at '${l.path}' for '${l.text}' does not resolve`));
  });

  it('bounds each link\'s text and path however the links nest (what the quadratic reading copied is not built)', () => {
    const nested = `<div xmlns="http://www.w3.org/1999/xhtml">${'<a href="#x">t'.repeat(24_000)}</div>`;
    const links = scanNarrative(nested).internalLinks;
    expect(links).to.have.length(24_000);
    expect(links[0]!.text).to.equal(`${'t'.repeat(MAX_LINK_TEXT)}...`);
    expect(links[23_999]!.text).to.equal('t');
    expect(links.every((l) => l.text.length <= MAX_LINK_TEXT + 3)).to.equal(true);

    const deep = `<div xmlns="http://www.w3.org/1999/xhtml">${'<b>'.repeat(20_000)}${'<a href="#y">t</a>'.repeat(8_000)}${'</b>'.repeat(20_000)}</div>`;
    const deepLinks = scanNarrative(deep).internalLinks;
    expect(deepLinks).to.have.length(8_000);
    const path = deepLinks[0]!.path.split('/');
    expect(path).to.have.length(MAX_PATH_ELEMENTS + 1);
    expect(path.slice(0, 2)).to.deep.equal(['div', 'b']);
    expect(path.slice(-3)).to.deep.equal(['b', 'b', 'a']);
    expect(path).to.include('...');
  });

  it('stray end tags under deep nesting still close the latest element of their name', () => {
    const div = `<div xmlns="http://www.w3.org/1999/xhtml"><p><span><b>${'</i>'.repeat(1_000)}</span><a href="#z">z</a></b></p></div>`;
    expect(scanNarrative(div).internalLinks.map((l) => l.path)).to.deep.equal(referenceLinks(div).map((l) => l.path));
    expect(scanNarrative(div).internalLinks[0]!.path).to.equal('div/p/a');
  });
});
