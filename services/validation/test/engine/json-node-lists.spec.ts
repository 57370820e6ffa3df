/** JsonNode's helpers for the resource-type rules: lists as the JSON writes them, and locations HL7 names from a neighbour. */
import { expect } from 'chai';
import { JsonNode, type NodeSource } from '#validation/domain/engine/json/json-node.js';
import { parseLocatedJson } from '#validation/domain/engine/json/located-json.js';

function rootOf(text: string, path: string): JsonNode {
  const parsed = parseLocatedJson(text);
  const loc = (v: unknown) => (v !== null && typeof v === 'object' ? parsed.locations.get(v) : undefined);
  const source: NodeSource = {
    pos: loc,
    propPos: (parent, key) => { const l = loc(parent); return l && 'props' in l ? l.props[key] : undefined; },
    itemPos: (arr, i) => { const l = loc(arr); return l && 'items' in l ? l.items[i] : undefined; },
    report: () => undefined,
  };
  return JsonNode.at(source, parsed.value, path, undefined);
}

describe('engine: JsonNode lists and borrowed locations', () => {
  it('listed() gives a list\'s items only when the JSON writes a list; listedObjects() keeps the objects', () => {
    const node = rootOf('{"a": [{"x": 1}, "s", {"y": 2}], "b": {"x": 1}, "c": null}', 'Basic');
    expect(node.child('a')?.isList).to.equal(true);
    expect(node.child('b')?.isList).to.equal(false);
    expect(node.listed('a').map((n) => n.path)).to.deep.equal(['Basic.a[0]', 'Basic.a[1]', 'Basic.a[2]']);
    expect(node.listedObjects('a').map((n) => n.path)).to.deep.equal(['Basic.a[0]', 'Basic.a[2]']);
    // a single object where a list belongs is not read as one (children() would read it)
    expect(node.listed('b')).to.deep.equal([]);
    expect(node.children('b').map((n) => n.path)).to.deep.equal(['Basic.b']);
    expect(node.listed('c')).to.deep.equal([]);
    expect(node.listed('absent')).to.deep.equal([]);
  });

  it('locationUnder() names a node from another element, keeping its own steps and position', () => {
    const text = '{\n "item": [{"answer": [{"item": [{"linkId": "n"}]}]}]\n}';
    const item = rootOf(text, 'QuestionnaireResponse').listedObjects('item')[0];
    const answer = item?.listedObjects('answer')[0];
    const nested = answer?.listedObjects('item')[0];
    expect(nested?.path).to.equal('QuestionnaireResponse.item[0].answer[0].item[0]');
    // HL7 names an item inside an answer after the item that holds the answer
    expect(answer && item && nested?.locationUnder(answer, item.path)).to.equal('QuestionnaireResponse.item[0].item[0]');
    expect(nested?.at).to.deep.include({ line: 2, col: 33 });
  });
});
