// The terminology port contract (support/terminology-contract.ts) for the remote terminology over the
// machine's NATS (terminology.contract.spec.ts runs it for the other implementations).
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { catalogForNamespace } from '#contracts/catalog.js';
import { QueryError, serveQuery, type QueryServer } from '#adapters/messaging/request-reply.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { closeNatsTerminologyConnections, createTerminology } from '#validation/adapters/terminology/index.js';
import type { ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { serverResources } from './support/remote-fixtures.js';
import { terminologyContract } from './support/terminology-contract.js';
import { InMemoryConformanceSource } from './support/terminology-sources.js';

terminologyContract('remote (the terminology commands over NATS, nothing held locally)', () => {
  // A stand-in for the platform terminology service on the machine's NATS, in a namespace of this
  // run, answering from the same resources as the HTTP test server.
  const NATS_SERVERS = (process.env.NATS_SERVERS ?? 'nats://127.0.0.1:4222').split(',');
  const namespace = `txc-${process.pid}-${Date.now().toString(36)}`.slice(0, 31);
  const catalog = catalogForNamespace(namespace);
  const held = new LocalTerminology(new InMemoryConformanceSource(serverResources));
  const answer = (result: ValidateCodeResult) => ({
    result: result.valid === true,
    ...(result.issues.length > 0 ? { message: result.issues.map((i) => i.text).join('; ') } : {}),
    ...(result.display ? { display: result.display } : {}),
  });
  let responder: NatsConnection | undefined;
  const servers: QueryServer[] = [];
  return {
    async open() {
      const nc = responder = await connect({ servers: NATS_SERVERS, name: 'terminology-contract-stand-in' });
      servers.push(serveQuery(nc, 'ValidateValueSetCode', (request) => {
        if (!held.resolveValueSet(request.url)) throw new QueryError('NOT_FOUND', `Value set ${request.url} is not known here`);
        return answer(held.validateCode({
          valueSet: request.url, strength: 'required', coding: { system: request.system, code: request.code, display: request.display },
          elementKind: request.system ? 'Coding' : 'code',
        }));
      }, { logger: silentLogger(), catalog }));
      servers.push(serveQuery(nc, 'ValidateCodeSystemCode', (request) => {
        if (!held.codeSystem(request.url)) throw new QueryError('NOT_FOUND', `Code system ${request.url} is not known here`);
        return answer(held.validateCode({ coding: { system: request.url, code: request.code, display: request.display } }));
      }, { logger: silentLogger(), catalog }));
      await nc.flush();
      return createTerminology({
        source: new InMemoryConformanceSource([]), logger: silentLogger(), nearCache: false,
        settings: { transport: 'nats', timeoutMs: 2_000, retries: 0, nats: { servers: NATS_SERVERS, namespace } },
      }).terminology;
    },
    async close() {
      for (const server of servers) await server.stop();
      await responder?.drain();
      await closeNatsTerminologyConnections();
    },
    source: 'remote',
  };
});
