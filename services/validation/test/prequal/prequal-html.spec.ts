import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { buildPreQualReport } from '#validation/domain/prequal/index.js';
import { escapeHtml, html, SafeHtml, trustedHtml } from '#validation/adapters/prequal/html-template.js';
import { PAGE_CONTENT_SECURITY_POLICY, PAGE_SCRIPT, PAGE_STYLE } from '#validation/adapters/prequal/page-assets.js';
import { renderPreQualHtml } from '#validation/adapters/prequal/prequal-html.js';
import { CATEGORIES, CONTEXT, IMG_MESSAGE, issue, sampleIssues, SCRIPT_MESSAGE } from './fixtures.js';

const HOSTILE_ID = '"><script>alert("id")</script>';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

describe('pre-qualification HTML', () => {
  describe('escaping template', () => {
    it('escapes the five HTML metacharacters', () => {
      expect(escapeHtml(`<a href="x" title='y'>&</a>`)).to.equal('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    });

    it('escapes every interpolation, keeps nested templates, joins arrays and drops null/undefined/false', () => {
      const cell = (text: string) => html`<td>${text}</td>`;
      const out = html`<tr title="${'"onmouseover="x'}">${['<b>', '&'].map(cell)}${undefined}${null}${false}${3}</tr>`;
      expect(out).to.be.instanceOf(SafeHtml);
      expect(out.value).to.equal('<tr title="&quot;onmouseover=&quot;x"><td>&lt;b&gt;</td><td>&amp;</td>3</tr>');
      expect(html`${trustedHtml('<br>')}`.value).to.equal('<br>');
    });

    it('refuses to interpolate a plain object instead of printing [object Object]', () => {
      expect(() => html`${{} as unknown as string}`).to.throw(TypeError);
    });
  });

  describe('page', () => {
    const hostile = [
      ...sampleIssues(),
      { ...issue('Bad <i>code</i>', 'error', ['missing_code'], 'p9'), code: '<b>code</b>', expression: 'Patient.name.where(given = "</code><script>alert(3)</script>")' },
    ];
    const page = renderPreQualHtml(buildPreQualReport(hostile, CATEGORIES, {
      ...CONTEXT, facilityId: HOSTILE_ID, reportId: '<img src=x onerror=alert(4)>',
      metadata: { measures: ['<svg onload=alert(5)>'], periodStart: '2026-10-01', periodEnd: '"><script>' },
    }));

    it('shows hostile messages, ids, codes, expressions and metadata as text, never as markup', () => {
      expect(page).to.include('Code &lt;script&gt;alert(1)&lt;/script&gt; is not valid');
      expect(page).to.include('Value &quot;&gt;&lt;img src=x onerror=alert(2)&gt; is not allowed');
      expect(page).to.include('&lt;b&gt;code&lt;/b&gt;');
      expect(page).to.include('&lt;/code&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
      expect(page).to.include('&lt;svg onload=alert(5)&gt;');
      expect(page).to.include('&quot;&gt;&lt;script&gt;alert(&quot;id&quot;)&lt;/script&gt;');
      expect(page).to.include('Bad &lt;i&gt;code&lt;/i&gt;');
      for (const raw of [SCRIPT_MESSAGE, IMG_MESSAGE, '<i>code', '<img src=x', '<svg onload', '<b>code', 'alert(3)</script>', HOSTILE_ID]) {
        expect(page, raw).not.to.include(raw);
      }
      // Exactly one script element (the page's own) and no event-handler attribute anywhere.
      expect(page.match(/<script/gi)).to.have.length(1);
      // (Quoted attribute values hold escaped text only, so they are blanked before looking at attribute names.)
      expect(page.replace(/"[^"]*"/g, '""')).not.to.match(/<[^>]+\son[a-z]+=/i);
    });

    it('is self-contained: no external script, style, font, image or link', () => {
      expect(page).not.to.match(/<script[^>]*\ssrc=/i);
      expect(page).not.to.match(/<link\b/i);
      expect(page).not.to.match(/<img\b/i);
      expect(page).not.to.match(/@import|url\(/i);
      expect(page).not.to.match(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    });

    it('allows exactly its own inline script and style by hash, in a CSP meta element', () => {
      const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!;
      const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1]!;
      expect(script).to.equal(PAGE_SCRIPT);
      expect(style).to.equal(PAGE_STYLE);
      expect(PAGE_CONTENT_SECURITY_POLICY).to.include(`script-src 'sha256-${sha256(script)}'`);
      expect(PAGE_CONTENT_SECURITY_POLICY).to.include(`style-src 'sha256-${sha256(style)}'`);
      expect(PAGE_CONTENT_SECURITY_POLICY).to.match(/^default-src 'none';/);
      expect(page).to.include(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_CONTENT_SECURITY_POLICY)}">`);
      expect(page).not.to.match(/\sstyle="/);
    });

    it('holds the verdict, the metadata, the category rows with counts, the chart bars and the message rows', () => {
      expect(page).to.match(/<div id="verdict" class="verdict no" data-prequalified="false">\s*Pre-qualified: No/);
      expect(page).to.include('6 issues in categories that are not acceptable');
      expect(page).to.include('<dd>2026-10-01 to &quot;&gt;&lt;script&gt;</dd>');
      const categoryRows = [...page.matchAll(/<tr data-category="([^"]+)"[^>]*>[\s\S]*?<td class="num count" data-value="(\d+)">/g)].map((m) => [m[1], Number(m[2])]);
      expect(categoryRows).to.deep.equal([['missing_code', 6], ['display_mismatch', 4], ['uncategorized', 2]]);
      const bars = [...page.matchAll(/<g class="(bar(?: highlighted)?)" data-count="(\d+)">/g)].map((m) => [m[1], Number(m[2])]);
      expect(bars).to.deep.equal([['bar highlighted', 6], ['bar', 4], ['bar', 2]]);
      expect(page.match(/<tr data-severity-rank=/g)).to.have.length(6);
    });

    it('says Yes for a report whose issues are all acceptable', () => {
      const yes = renderPreQualHtml(buildPreQualReport([issue('Display is wrong', 'warning', ['display_mismatch'])], CATEGORIES, CONTEXT));
      expect(yes).to.match(/data-prequalified="true">\s*Pre-qualified: Yes/);
    });
  });
});
