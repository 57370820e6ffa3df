/** The engine's JSON parser: positions, recoverable problems, fatal errors, limits. */
import { expect } from 'chai';
import { parseLocatedJson, type ObjectLocation, type ArrayLocation } from '#validation/domain/engine/json/located-json.js';

describe('engine: located JSON parser', () => {
  it('parses values and records the position of every property and item', () => {
    const r = parseLocatedJson('{\n  "a": [1, "x", true, null],\n  "b": {"c": -1.5e2}\n}');
    expect(r.issues).to.deep.equal([]);
    expect(r.value).to.deep.equal({ a: [1, 'x', true, null], b: { c: -150 } });
    const root = r.value as { a: unknown[]; b: Record<string, unknown> };
    const loc = r.locations.get(root) as ObjectLocation;
    expect(loc.props.a).to.deep.equal({ line: 2, col: 8 });
    expect((r.locations.get(root.a) as ArrayLocation).items[1]).to.deep.equal({ line: 2, col: 12 });
    expect((r.locations.get(root.b) as ObjectLocation).props.c).to.deep.equal({ line: 3, col: 14 });
  });

  it('keeps the source text of numbers a JS number would change (1.50, 2.0, 1e3)', () => {
    const r = parseLocatedJson('{"a":1.50,"b":2,"c":[2.0,3,1e3]}');
    const root = r.value as { c: unknown[] };
    expect((r.locations.get(root) as ObjectLocation).rawNumbers).to.deep.equal({ a: '1.50' });
    expect((r.locations.get(root.c) as ArrayLocation).rawNumbers).to.deep.equal({ 0: '2.0', 2: '1e3' });
  });

  it('decodes escapes, including unicode', () => {
    const r = parseLocatedJson('{"s":"a\\"b\\\\c\\u00e9\\n"}');
    expect((r.value as { s: string }).s).to.equal('a"b\\cé\n');
  });

  it('reports duplicates, comments, missing and trailing commas and keeps going', () => {
    const r = parseLocatedJson('{"a":1 "b":2, /* c */ "a":3, "l":[1,],}');
    // the first of two properties of one name is the one kept (as the HL7 validator reads it)
    expect(r.value).to.deep.equal({ a: 1, b: 2, l: [1] });
    expect(r.issues.find((i) => i.kind === 'duplicate-property')!.path).to.deep.equal([]);
    expect(r.issues.map((i) => i.kind).sort()).to.deep.equal(['comment', 'duplicate-property', 'missing-comma', 'trailing-comma', 'trailing-comma']);
    expect(r.issues.find((i) => i.kind === 'comment')!.path).to.deep.equal(['a']);
  });

  it('reads unquoted names and values (JSON5) and reports each, keeping true, false and null', () => {
    const r = parseLocatedJson('{a: 1, "b": abc, "c": [x.y, true, null], "d": false}');
    expect(r.value).to.deep.equal({ a: 1, b: 'abc', c: ['x.y', true, null], d: false });
    expect(r.issues.map((i) => [i.kind, i.path, i.args])).to.deep.equal([['unquoted-name', [], ['a']]]);
    // unquoted values are marked on their container, for the walker to judge
    expect(r.unquotedValues).to.equal(true);
    const root = r.value as { c: unknown[] };
    expect((r.locations.get(root) as { unquoted?: unknown }).unquoted).to.deep.equal({ b: true });
    expect((r.locations.get(root.c) as { unquoted?: unknown }).unquoted).to.deep.equal({ 0: true });
    expect(parseLocatedJson('{"a": "x"}').unquotedValues).to.equal(false);
  });

  it('reads a raw line break inside a string and \\\' as an apostrophe, counting lines on', () => {
    const r = parseLocatedJson('{"a":"x\ny", "b":"it\\\'s",\n"c":1}');
    expect(r.value).to.deep.equal({ a: 'x\ny', b: "it's", c: 1 });
    expect(r.issues).to.deep.equal([]);
    expect(r.locations.get(r.value as object)).to.deep.include({ line: 1 });
    expect((r.locations.get(r.value as object) as { props: Record<string, { line: number }> }).props.c?.line).to.equal(3);
  });

  it('turns syntax errors into one fatal issue with line and column', () => {
    for (const text of ['', '{"a":}', '{"a":1', '{"a":1}}', '[1,,2]', '{"a" 1}', '{"a":#}', '{"a":\'x\'}']) {
      const r = parseLocatedJson(text);
      expect(r.value, text).to.equal(undefined);
      const fatal = r.issues.filter((i) => i.fatal);
      expect(fatal, text).to.have.length(1);
      expect(fatal[0]?.line).to.be.at.least(1);
    }
  });

  it('refuses nesting beyond the depth limit without recursion', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    const r = parseLocatedJson(text, { maxDepth: 1000 });
    expect(r.value).to.equal(undefined);
    expect(r.issues[0]?.kind).to.equal('too-deep');
  });

  it('refuses input over the size limit', () => {
    const r = parseLocatedJson('{"a":"' + 'x'.repeat(100) + '"}', { maxLength: 50 });
    expect(r.issues[0]?.kind).to.equal('too-large');
  });
});
