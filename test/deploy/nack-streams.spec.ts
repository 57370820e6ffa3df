import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { buildCatalog, catalog } from '#contracts/catalog.js';
import { toStreamConfig } from '#adapters/messaging/provisioning.js';
import { goDuration, renderNackStreams, renderNackStreamsYaml } from '#scripts/deploy/nack-streams.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const committed = readFileSync(path.join(root, 'deploy/nats/streams.yaml'), 'utf8');

/** Go duration text back to milliseconds (the forms goDuration writes). */
function parseGoDuration(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
  const match = /^(\d+)(h|m|s|ms)$/.exec(text);
  if (!match) throw new Error(`unexpected duration ${text}`);
  return Number(match[1]) * units[match[2]!]!;
}

describe('deploy: NACK streams from the catalog', () => {
  it('the committed deploy/nats/streams.yaml equals the rendering (run `npx tsx scripts/render-manifests.ts` after a catalog change)', () => {
    expect(committed).to.equal(renderNackStreamsYaml(catalog));
  });

  it('declares every catalog stream and the dead-letter stream with the configuration start-up provisioning applies', () => {
    const streams = parseAllDocuments(committed).map((d) => d.toJS()).filter(Boolean) as ReturnType<typeof renderNackStreams>;
    const definitions = [...catalog.streams, catalog.deadLetterStream];
    expect(streams.map((s) => s.spec.name)).to.deep.equal(definitions.map((d) => d.name));
    for (const definition of definitions) {
      const wanted = toStreamConfig(definition);
      const spec = streams.find((s) => s.spec.name === definition.name)!.spec;
      expect(spec.subjects).to.deep.equal(wanted.subjects);
      expect(spec.retention).to.equal(wanted.retention);
      expect(spec.storage).to.equal(wanted.storage);
      expect(spec.discard).to.equal(wanted.discard);
      expect(parseGoDuration(spec.maxAge) * 1e6).to.equal(wanted.max_age);
      expect(parseGoDuration(spec.duplicateWindow) * 1e6).to.equal(wanted.duplicate_window);
      expect(spec.maxBytes).to.equal(wanted.max_bytes);
      expect(spec.maxMsgSize).to.equal(wanted.max_msg_size);
      expect(spec.replicas).to.equal(wanted.num_replicas);
    }
  });

  it('follows the catalog: another subject root or stream suffix changes the rendering', () => {
    const other = renderNackStreams(buildCatalog({ subjectRoot: 'test', streamSuffix: '_X' }));
    expect(other.map((s) => s.spec.name)).to.include('DEAD_LETTER_X');
    expect(other.find((s) => s.spec.name === 'COMPLIANCE_X')!.spec.subjects).to.deep.equal(['test.compliance.event.>']);
    expect(other.find((s) => s.spec.name === 'DEAD_LETTER_X')!.metadata.name).to.equal('dead-letter-x');
  });

  it('writes Go durations with the largest exact unit and rejects fractions', () => {
    expect(goDuration(14 * 24 * 3_600_000)).to.equal('336h');
    expect(goDuration(120_000)).to.equal('2m');
    expect(goDuration(90_000)).to.equal('90s');
    expect(goDuration(1_500)).to.equal('1500ms');
    expect(goDuration(0)).to.equal('0s');
    expect(() => goDuration(1.5)).to.throw('whole');
  });
});
