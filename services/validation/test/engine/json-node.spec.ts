/** The engine's typed node: locations and positions made from the same step down, children, reporting. */
import { expect } from 'chai';
import { JsonNode, type NodeSource } from '#validation/domain/engine/json/json-node.js';
import { parseLocatedJson, type ArrayLocation, type ObjectLocation, type Position } from '#validation/domain/engine/json/located-json.js';
import type { IssueSeverity } from '#validation/domain/engine/outcome/issue.js';

interface Reported { severity: IssueSeverity; id: string; args: readonly unknown[]; path: string; at: Position | undefined }

/** The positions of parsed text, and the issues reported, as the validation run keeps them. */
function sourceOf(text: string): { root: unknown; source: NodeSource; reported: Reported[]; lookups: () => number } {
  const parsed = parseLocatedJson(text);
  const reported: Reported[] = [];
  let lookups = 0;
  const loc = (v: object): ObjectLocation | ArrayLocation | undefined => { lookups++; return parsed.locations.get(v); };
  const source: NodeSource = {
    pos: (v) => (v !== null && typeof v === 'object' ? loc(v) : undefined),
    propPos: (parent, key) => { const l = loc(parent); return l && 'props' in l ? l.props[key] : undefined; },
    itemPos: (arr, i) => { const l = loc(arr); return l && 'items' in l ? l.items[i] : undefined; },
    report: (severity, id, args, path, at) => { reported.push({ severity, id, args, path, at }); },
  };
  return { root: parsed.value, source, reported, lookups: () => lookups };
}

/** An object's position is its parser location (which also lists its properties): compare where it starts. */
const lineCol = (p: Position | undefined) => (p ? { line: p.line, col: p.col } : undefined);

const TEXT = [
  '{',
  '  "resourceType": "Measure",',
  '  "group": [',
  '    {"code": {"text": "a"}},',
  '    {"stratifier": [{"criteria": {"expression": "X.y"}}, 7]}',
  '  ],',
  '  "name": "m",',
  '  "single": {"k": true}',
  '}',
].join('\n');

describe('engine: JsonNode (value, location, position)', () => {
  it('gives each item of a list its index in the location and its own position', () => {
    const { root, source } = sourceOf(TEXT);
    const node = JsonNode.at(source, root, 'Measure', undefined);
    const groups = node.children('group');
    expect(groups.map((g) => g.path)).to.deep.equal(['Measure.group[0]', 'Measure.group[1]']);
    expect(groups.map((g) => lineCol(g.at))).to.deep.equal([{ line: 4, col: 5 }, { line: 5, col: 5 }]);
    const criteria = groups[1]?.children('stratifier')[0]?.child('criteria');
    expect(criteria?.path).to.equal('Measure.group[1].stratifier[0].criteria');
    expect(lineCol(criteria?.at)).to.deep.equal({ line: 5, col: 34 });
    expect(criteria?.str('expression')).to.equal('X.y');
  });

  it('finds a primitive\'s position through what holds it (property or list item)', () => {
    const { root, source } = sourceOf(TEXT);
    const node = JsonNode.at(source, root, 'Measure', undefined);
    expect(node.child('name')?.at).to.deep.equal({ line: 7, col: 11 });
    expect(node.child('name')?.string).to.equal('m');
    const seven = node.children('group')[1]?.children('stratifier')[1];
    expect(seven?.value).to.equal(7);
    expect(seven?.path).to.equal('Measure.group[1].stratifier[1]');
    expect(seven?.at).to.deep.equal({ line: 5, col: 58 });
  });

  it('reads a single value as the only item, without an index; objects() keeps only objects', () => {
    const { root, source } = sourceOf(TEXT);
    const node = JsonNode.at(source, root, 'Measure', undefined);
    expect(node.children('single').map((n) => n.path)).to.deep.equal(['Measure.single']);
    expect(node.children('absent')).to.deep.equal([]);
    expect(node.children('group')[1]?.objects('stratifier').map((n) => n.path)).to.deep.equal(['Measure.group[1].stratifier[0]']);
    expect(node.first('group')?.path).to.equal('Measure.group[0]');
    expect(node.has('name')).to.equal(true);
    expect(node.has('absent')).to.equal(false);
    expect(node.child('name')?.children('x')).to.deep.equal([]);
  });

  it('names a property by its FHIRPath name when asked (a choice type)', () => {
    const { source } = sourceOf('{}');
    const obs = JsonNode.at(source, { valueQuantity: { value: 1 } }, 'Observation', undefined);
    expect(obs.child('valueQuantity', 'value.ofType(Quantity)')?.path).to.equal('Observation.value.ofType(Quantity)');
  });

  it('reports at its own location and position, and looks positions up only when asked', () => {
    const { root, source, reported, lookups } = sourceOf(TEXT);
    const node = JsonNode.at(source, root, 'Measure', { line: 1, col: 1 });
    const expression = node.children('group')[1]?.children('stratifier')[0]?.child('criteria')?.child('expression');
    expect(lookups()).to.equal(0);
    expression?.error('MEASURE_CQL_NO_LIBRARY', []);
    node.warning('MEASURE_CQL_NO_LIBRARY', ['x']);
    expect(reported).to.deep.equal([
      { severity: 'error', id: 'MEASURE_CQL_NO_LIBRARY', args: [], path: 'Measure.group[1].stratifier[0].criteria.expression', at: { line: 5, col: 49 } },
      { severity: 'warning', id: 'MEASURE_CQL_NO_LIBRARY', args: ['x'], path: 'Measure', at: { line: 1, col: 1 } },
    ]);
    expect(lookups()).to.be.greaterThan(0);
  });

  it('has no position for values built in memory', () => {
    const { source } = sourceOf('{}');
    const node = JsonNode.at(source, { a: ['x'] }, 'Basic', undefined);
    expect(node.at).to.equal(undefined);
    expect(node.children('a')[0]?.at).to.equal(undefined);
  });

  it('makes the walk\'s items: a list item indexed or not, a single value as item 0, a value given only by its companion', () => {
    const { root, source } = sourceOf(TEXT);
    const node = JsonNode.at(source, root, 'Measure', undefined);
    const group = node.child('group');
    expect(group?.isList).to.equal(true);
    const second = group?.item(1, true);
    expect([second?.path, lineCol(second?.at)]).to.deep.equal(['Measure.group[1]', { line: 5, col: 5 }]);
    // XML's repeated non-repeating element: each item where the element is named, at its own position
    const unindexed = group?.item(1, false);
    expect([unindexed?.path, lineCol(unindexed?.at)]).to.deep.equal(['Measure.group', { line: 5, col: 5 }]);
    // a single value in a repeating element: item 0, indexed, at the property's position
    const name = node.child('name');
    expect(name?.isList).to.equal(false);
    expect([name?.item(0, true).path, name?.item(0, true).value, name?.item(0, true).at]).to.deep.equal(['Measure.name[0]', 'm', { line: 7, col: 11 }]);
    expect(name?.item(0, false)).to.equal(name);
    // past a single value (its companion list is longer): no value, found where the property is
    expect([name?.item(1, true).path, name?.item(1, true).value, name?.item(1, true).at]).to.deep.equal(['Measure.name[1]', undefined, { line: 7, col: 11 }]);
  });

  it('reports to another source when moved there (a silent run), keeping its location and position', () => {
    const loud = sourceOf(TEXT);
    // a silent run keeps the same positions and its own issues
    const silentIssues: Reported[] = [];
    const silent: NodeSource = { ...loud.source, report: (severity, id, args, path, at) => { silentIssues.push({ severity, id, args, path, at }); } };
    const node = JsonNode.at(loud.source, loud.root, 'Measure', undefined);
    const name = node.child('name');
    expect(name?.in(loud.source)).to.equal(name);
    name?.in(silent).error('MEASURE_CQL_NO_LIBRARY', []);
    expect(loud.reported).to.deep.equal([]);
    expect(silentIssues.map((r) => [r.path, r.at])).to.deep.equal([['Measure.name', { line: 7, col: 11 }]]);
  });

  it('reports an unplaced value by its location only', () => {
    const { root, source, reported, lookups } = sourceOf(TEXT);
    JsonNode.unplaced(source, root, 'value').error('MEASURE_CQL_NO_LIBRARY', []);
    expect(reported.map((r) => [r.path, r.at])).to.deep.equal([['value', undefined]]);
    expect(lookups()).to.equal(0);
  });
});
