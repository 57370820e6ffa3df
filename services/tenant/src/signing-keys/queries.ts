import type { NatsConnection } from '@nats-io/transport-node';
import type { Catalog } from '../../../../contracts/catalog.js';
import { QueryError, serveQuery, type QueryServer } from '../../../../adapters/messaging/request-reply.js';
import type { Logger } from '../../../../adapters/observability/logger.js';
import { SigningKeyError } from './model.js';
import type { SigningKeyService } from './signing-key-service.js';

/**
 * SignClientAssertion over NATS request-reply, for the services that call EHRs. Refusals are typed
 * error replies: NOT_FOUND (no active facility), CONFLICT (no key, or the key is not active),
 * BAD_REQUEST, UNAVAILABLE (no master key configured). Never a timeout for a known refusal.
 */
export function serveSigningKeyQueries(nc: NatsConnection, service: SigningKeyService, options: { logger: Logger; catalog?: Catalog }): QueryServer[] {
  return [
    serveQuery(nc, 'SignClientAssertion', async (request) => {
      try {
        const signed = await service.clientAssertion(request.facilityId, { clientId: request.clientId, tokenUrl: request.tokenUrl });
        return {
          clientAssertion: signed.assertion, clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          kid: signed.kid, alg: signed.alg, jti: signed.jti, expiresAt: signed.expiresAt.toISOString(),
        };
      } catch (error) {
        if (error instanceof SigningKeyError) throw new QueryError(queryErrorCode(error), error.message);
        throw error;
      }
    }, { logger: options.logger, ...(options.catalog ? { catalog: options.catalog } : {}) }),
  ];
}

function queryErrorCode(error: SigningKeyError) {
  switch (error.kind) {
    case 'not-found':
    case 'facility-not-found':
      return 'NOT_FOUND' as const;
    case 'invalid':
      return 'BAD_REQUEST' as const;
    case 'master-key-missing':
      return 'UNAVAILABLE' as const;
    default:
      return 'CONFLICT' as const;
  }
}
