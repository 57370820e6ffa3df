/**
 * Builds the AsyncAPI 3.0 document of the catalog. contracts/asyncapi.json is its committed
 * output (JSON rather than YAML: no YAML parser is a declared dependency, and the test must be
 * able to read it). Regenerate after changing the catalog:
 *
 *     npx tsx contracts/generate-asyncapi.ts
 *
 * contracts/test/asyncapi.spec.ts fails when the committed file is out of date.
 */
import { catalog as defaultCatalog, type Catalog, type MessageContract, type SchemaRef } from './catalog.js';

const SCHEMA_FORMAT = 'application/schema+json;version=draft-07';

function messageObject(name: string, description: string, ref: SchemaRef, withHeaders: boolean) {
  return {
    name,
    title: ref.schema.title,
    summary: description,
    contentType: 'application/json',
    ...(withHeaders ? { traits: [{ $ref: '#/components/messageTraits/jetStreamHeaders' }] } : {}),
    payload: { schemaFormat: SCHEMA_FORMAT, schema: { $ref: `./schemas/${ref.file}` } },
  };
}

function channelDescription(m: MessageContract): string {
  const where = m.stream ? `JetStream stream ${m.stream}` : 'core NATS request-reply (not stored)';
  return `${m.description} ${m.kind}, contract version ${m.version}, ${where}.` + (m.aliasOf ? ` Alias of ${m.aliasOf}.` : '');
}

export function buildAsyncApi(catalog: Catalog = defaultCatalog): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};

  for (const m of catalog.messages) {
    const isRpc = m.transport === 'request-reply';
    messages[m.name] = messageObject(m.name, m.description, m.payload, !isRpc);
    channels[m.name] = {
      address: m.subject,
      title: m.name,
      description: channelDescription(m),
      messages: { [m.name]: { $ref: `#/components/messages/${m.name}` } },
    };
    const channelRef = { $ref: `#/channels/${m.name}` };
    const messageRef = { $ref: `#/channels/${m.name}/messages/${m.name}` };
    if (isRpc && m.reply) {
      const replyName = `${m.name}Reply`;
      messages[replyName] = messageObject(replyName, `Reply to ${m.name}: the result or {error:{code,message}}.`, m.reply, false);
      // NATS replies go to a per-request inbox, so the reply channel has no fixed address.
      channels[replyName] = {
        address: null,
        title: replyName,
        description: `Reply to ${m.name}, sent to the requester's inbox (the NATS reply subject).`,
        messages: { [replyName]: { $ref: `#/components/messages/${replyName}` } },
      };
      const reply = { channel: { $ref: `#/channels/${replyName}` }, messages: [{ $ref: `#/channels/${replyName}/messages/${replyName}` }] };
      operations[`request${m.name}`] = { action: 'send', title: `Request ${m.name}`, channel: channelRef, messages: [messageRef], reply };
      operations[`serve${m.name}`] = {
        action: 'receive', title: `Serve ${m.name}`, channel: channelRef, messages: [messageRef], reply,
        description: `Responders subscribe in queue group "${m.name}" so instances share the load.`,
      };
    } else {
      operations[`send${m.name}`] = { action: 'send', title: `Publish ${m.name}`, channel: channelRef, messages: [messageRef] };
      operations[`receive${m.name}`] = {
        action: 'receive', title: `Consume ${m.name}`, channel: channelRef, messages: [messageRef],
        description: 'Durable pull consumer; invalid messages and messages that fail maxDeliver times go to the DEAD_LETTER stream.',
      };
    }
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'NHSN Link validation and tenant platform messages',
      version: '1.0.0',
      description: 'Every event, command and query exchanged over NATS. Generated from contracts/catalog.ts, which also documents the subject naming scheme `<root>.<domain>.<event|command|rpc>.<name>.v<major>`. Dead letters go to `' + catalog.deadLetterPrefix + '.<original subject>` in stream ' + catalog.deadLetterStream.name + '.',
    },
    defaultContentType: 'application/json',
    servers: { nats: { host: 'nats:4222', protocol: 'nats', description: 'NATS with JetStream (nats-server 2.9).' } },
    channels,
    operations,
    components: {
      messages,
      messageTraits: {
        jetStreamHeaders: {
          headers: {
            type: 'object',
            properties: {
              'Nats-Msg-Id': { type: 'string', description: 'De-duplication id; JetStream drops a repeat within the stream duplicate window (2 min).' },
              traceparent: { type: 'string', description: 'W3C trace context of the producing operation.' },
            },
          },
        },
      },
    },
  };
}
