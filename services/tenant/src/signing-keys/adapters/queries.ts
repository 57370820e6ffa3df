import type { NatsConnection } from '@nats-io/transport-node';
import type { Catalog } from '#contracts/catalog.js';
import { serveQuery, type QueryServer } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import type { SigningKeyService } from '../application/signing-key-service.js';

/**
 * SignClientAssertion over NATS request-reply, for the services that call EHRs. The client id and
 * audience are the facility's configured ones; the request only picks a configured connection.
 * Refusals are typed error replies: NOT_FOUND (no active facility), CONFLICT (no key, no EHR
 * connection, or the key is not active), FORBIDDEN (a token URL or client id the facility has not
 * configured), BAD_REQUEST, UNAVAILABLE (no master key, or not the one the key was sealed with).
 * The service's SigningKeyError is the shared failure vocabulary, which serveQuery answers as these
 * codes. Never a timeout for a known refusal. Only the tenant service's NATS user may subscribe to the
 * subject (deploy/nats-accounts), so no other client can answer in its place.
 */
export function serveSigningKeyQueries(nc: NatsConnection, service: SigningKeyService, options: { logger: Logger; catalog?: Catalog }): QueryServer[] {
  return [
    serveQuery(nc, 'SignClientAssertion', async (request) => {
      const signed = await service.clientAssertion(request.facilityId, {
        ...(request.connection !== undefined ? { connection: request.connection } : {}),
        ...(request.clientId !== undefined ? { clientId: request.clientId } : {}),
        ...(request.tokenUrl !== undefined ? { tokenUrl: request.tokenUrl } : {}),
      });
      return {
        clientAssertion: signed.assertion, clientAssertionType: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        kid: signed.kid, alg: signed.alg, jti: signed.jti, expiresAt: signed.expiresAt.toISOString(),
        connection: signed.connection.name, clientId: signed.connection.clientId, tokenUrl: signed.connection.tokenUrl,
      };
    }, { logger: options.logger, ...(options.catalog ? { catalog: options.catalog } : {}) }),
  ];
}
