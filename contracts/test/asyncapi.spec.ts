import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { buildAsyncApi } from '../asyncapi.js';
import { catalog } from '../catalog.js';

type Doc = {
  asyncapi: string;
  channels: Record<string, { address: string | null; messages: Record<string, unknown> }>;
  operations: Record<string, { action: string; channel: { $ref: string }; reply?: unknown }>;
  components: { messages: Record<string, { payload: { schema: { $ref: string } } }> };
};

const committed = JSON.parse(readFileSync(fileURLToPath(new URL('../asyncapi.json', import.meta.url)), 'utf8')) as Doc;

describe('contracts: AsyncAPI document', () => {
  it('is AsyncAPI 3.0 and up to date with the catalog (regenerate: npx tsx contracts/generate-asyncapi.ts)', () => {
    expect(committed.asyncapi).to.equal('3.0.0');
    expect(committed).to.deep.equal(JSON.parse(JSON.stringify(buildAsyncApi())));
  });

  it('has a channel with the exact subject, a message referencing the schema file, and send/receive operations for every catalog entry', () => {
    for (const m of catalog.messages) {
      expect(committed.channels[m.name]?.address, m.name).to.equal(m.subject);
      expect(committed.components.messages[m.name]?.payload.schema.$ref, m.name).to.equal(`./schemas/${m.payload.file}`);
      const ops = Object.values(committed.operations).filter((o) => o.channel.$ref === `#/channels/${m.name}`);
      expect(ops.map((o) => o.action).sort(), m.name).to.deep.equal(['receive', 'send']);
      if (m.reply) {
        expect(ops.every((o) => o.reply !== undefined), `${m.name} reply`).to.equal(true);
        expect(committed.components.messages[`${m.name}Reply`]?.payload.schema.$ref).to.equal(`./schemas/${m.reply.file}`);
      }
    }
  });

  it('every $ref inside the document resolves', () => {
    const text = JSON.stringify(committed);
    for (const [, ref] of text.matchAll(/"\$ref":"(#[^"]+)"/g)) {
      let node: unknown = committed;
      for (const part of ref!.slice(2).split('/')) node = (node as Record<string, unknown>)?.[part];
      expect(node, ref).to.not.equal(undefined);
    }
  });
});
