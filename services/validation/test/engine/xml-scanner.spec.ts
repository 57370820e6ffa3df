/**
 * The fast XML scanner (xml-scanner.ts) against saxes: for any document, reading it with the
 * scanner first (the default) must give exactly what saxes alone gives: the same value, the same
 * issues, the same position of every object, array, property and item. Documents the scanner
 * leaves to saxes are read by saxes, so the comparison also covers hostile and broken XML; the
 * well-formed FHIR XML written in the many ways XML allows (line breaks, quotes, comments,
 * references, a declaration, a byte order mark) must be read by the scanner itself, or the speed
 * it exists for is silently lost.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { PlanRegistry } from '#validation/domain/engine/plan/plan-registry.js';
import { composeXml } from '#validation/domain/engine/xml/compose-xml.js';
import { parseLocatedXml, type LocatedXml } from '#validation/domain/engine/xml/located-xml.js';
import { scanXml } from '#validation/domain/engine/xml/xml-scanner.js';
import { coreSource } from './support/core-definitions.js';
import { damaged, FUZZ_RUNS, FUZZ_SEED, hostileXmlResource, xmlDamage } from './support/hostile-arbitraries.js';

/** The reading as one comparable text: the value with each object's and array's location beside it, and the issues. */
function snapshot(read: LocatedXml): string {
  const withLocations = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    const loc = read.locations.get(v);
    if (Array.isArray(v)) return { loc, items: v.map(withLocations) };
    return { loc, members: Object.entries(v).map(([k, m]) => [k, withLocations(m)]) };
  };
  return JSON.stringify({ value: withLocations(read.value), issues: read.issues });
}

const scannerTakes = (xml: string): boolean => scanXml(xml, { openTag: () => undefined, closeTag: () => undefined, text: () => undefined });

const RESOURCES: Record<string, unknown>[] = [
  {
    resourceType: 'Patient', id: 'p1', meta: { profile: ['http://example.org/StructureDefinition/p'] },
    text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><p>a &amp; <b>b</b> &lt;c&gt; &#233;</p><br/></div>' },
    extension: [{ url: 'http://example.org/e', valueString: 'tab\tand "quotes" & <angles>\ntwo lines' }],
    active: true, name: [{ family: 'Chalmers', given: ['Peter', 'James'], _given: [null, { id: 'g2' }] }],
    birthDate: '1974-12-25', multipleBirthInteger: 2,
  },
  {
    resourceType: 'Bundle', type: 'collection',
    entry: [
      { fullUrl: 'urn:uuid:1', resource: { resourceType: 'Observation', contained: [{ resourceType: 'Patient', id: 'c' }], status: 'final', code: { text: 'é 😀' }, subject: { reference: '#c' }, valueQuantity: { value: 1.5, unit: 'mg' } } },
      { fullUrl: 'urn:uuid:2', resource: { resourceType: 'Basic', code: { coding: [{ system: 'http://example.org', code: "it's" }] } } },
    ],
  },
];

/** Ways of writing the same XML: each keeps the document well-formed and inside the scanner's subset. */
interface Style {
  indent: number;
  lineEnd: '\n' | '\r\n' | '\r';
  declaration: '' | '<?xml version="1.0" encoding="UTF-8"?>' | "<?xml version='1.0'?>\n";
  bom: boolean;
  /** Single quotes around values without an apostrophe. */
  singleQuotes: boolean;
  /** A line break (and spaces) between a tag's name and its first attribute. */
  breakAfterName: boolean;
  /** Comments after some closing tags. */
  comments: boolean;
  /** Letters of values written as character references. */
  references: boolean;
  /** Line breaks in values written as they are (read as spaces), not as references. */
  literalBreaks: boolean;
}

const style: fc.Arbitrary<Style> = fc.record({
  indent: fc.constantFrom(0, 2),
  lineEnd: fc.constantFrom('\n' as const, '\r\n' as const, '\r' as const),
  declaration: fc.constantFrom('' as const, '<?xml version="1.0" encoding="UTF-8"?>' as const, "<?xml version='1.0'?>\n" as const),
  bom: fc.boolean(),
  singleQuotes: fc.boolean(),
  breakAfterName: fc.boolean(),
  comments: fc.boolean(),
  references: fc.boolean(),
  literalBreaks: fc.boolean(),
});

function written(xml: string, s: Style): string {
  let out = xml;
  if (s.references) {
    // letters outside the references the composer wrote
    const letters = (v: string) => v.split(/(&[#a-z0-9]+;)/).map((part) => (part.startsWith('&') ? part : part.replace(/a/g, '&#97;').replace(/e/g, '&#x65;'))).join('');
    out = out.replace(/value="([^"]*)"/g, (_, v: string) => `value="${letters(v)}"`);
  }
  if (s.literalBreaks) out = out.replace(/&#10;/g, '\n');
  if (s.singleQuotes) out = out.replace(/="([^"']*)"/g, "='$1'");
  if (s.breakAfterName) out = out.replace(/<([A-Za-z]+) /g, `<$1\n   `);
  if (s.comments) out = out.replace(/<\/(name|entry|code)>/g, '</$1><!-- a comment - with a dash -->');
  out = s.declaration + out;
  out = out.replace(/\n/g, s.lineEnd);
  return (s.bom ? '\ufeff' : '') + out;
}

describe('engine: the fast XML scanner reads as saxes does', function () {
  this.timeout(60_000);
  let plans: PlanRegistry;
  const both = (xml: string): [string, string] => [snapshot(parseLocatedXml(xml, plans)), snapshot(parseLocatedXml(xml, plans, { fullParser: true }))];

  before(async () => {
    plans = new PlanRegistry(await coreSource());
  });

  it('reads FHIR XML written in any of the usual ways itself, with the value, issues and positions saxes gives', () => {
    fc.assert(fc.property(fc.constantFrom(...RESOURCES), style, (resource, s) => {
      const xml = written(composeXml(resource, plans, s.indent), s);
      expect(scannerTakes(xml), 'the scanner reads it').to.equal(true);
      const [fast, full] = both(xml);
      expect(fast).to.equal(full);
    }), { numRuns: 60, seed: FUZZ_SEED });
  });

  it('gives what saxes gives for hostile and broken XML (which it mostly leaves to saxes)', () => {
    fc.assert(fc.property(hostileXmlResource(FUZZ_RUNS), xmlDamage(FUZZ_RUNS), fc.boolean(), (r, d, pretty) => {
      const xml = damaged(composeXml(r, plans, pretty ? 2 : 0), d);
      const [fast, full] = both(xml);
      expect(fast).to.equal(full);
    }), { numRuns: FUZZ_RUNS, seed: FUZZ_SEED });
  });

  it('leaves to saxes what it does not read, and issues only saxes can locate', () => {
    const F = 'xmlns="http://hl7.org/fhir"';
    const cases = [
      `<!DOCTYPE Patient [<!ENTITY e "x">]><Patient ${F}/>`,
      `<Patient ${F}><name><family value="a &e; b"/></name></Patient>`,
      `<Patient ${F}><name><family value="a & b"/></name></Patient>`,
      `<Patient ${F}><![CDATA[x]]></Patient>`,
      `<?xml-stylesheet href="x"?><Patient ${F}/>`,
      `<?xml version="1.0" encoding="ISO-8859-1"?><Patient ${F}/>`,
      `<Patient ${F}><!-- a -- b --></Patient>`,
      `<Patient ${F}><active value="true"></Patient>`,
      `<Patient ${F}><active value="true" value="false"/></Patient>`,
      `<Patient ${F}><active value="true"/></Patient><Patient ${F}/>`,
      `<Patient ${F}><naïve value="x"/></Patient>`,
      `<Patient ${F}><active value="\u0001"/></Patient>`,
      `<Patient ${F}><active value="&#0;"/></Patient>`,
      `<Patient ${F}>]]></Patient>`,
      `<Patient ${F}/>trailing`,
      '',
      `<Patient ${F}><active value='true"/></Patient>`,
    ];
    for (const xml of cases) {
      expect(scannerTakes(xml), xml).to.equal(false);
      const [fast, full] = both(xml);
      expect(fast, xml).to.equal(full);
    }
    // well-formed, but with an issue saxes locates (text where FHIR has none, an unbound prefix)
    for (const xml of [`<Patient ${F}>text</Patient>`, `<p:Patient ${F}/>`, `<Patient ${F}><p:x/></Patient>`]) {
      expect(scannerTakes(xml), xml).to.equal(true);
      const [fast, full] = both(xml);
      expect(fast, xml).to.equal(full);
      expect(JSON.parse(full).issues, xml).to.have.length.greaterThan(0);
    }
  });
});
