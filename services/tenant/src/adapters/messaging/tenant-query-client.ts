import type { NatsConnection } from '@nats-io/transport-node';
import type { Catalog } from '#contracts/catalog.js';
import { isErrorReply, type ErrorReply, type FacilityConfig, type FacilitySummary, type ServiceInfo } from '#contracts/types.js';
import { requestQuery } from '#adapters/messaging/request-reply.js';

/** A query answered with a typed error other than NOT_FOUND (BAD_REQUEST, INTERNAL, ...). */
export class TenantQueryError extends Error {
  override readonly name = 'TenantQueryError';

  constructor(readonly query: string, readonly reply: ErrorReply) {
    super(`${query} failed: ${reply.error.code} ${reply.error.message}`);
  }
}

export interface TenantQueryClientOptions {
  readonly catalog?: Catalog;
  readonly timeoutMs?: number;
  /** Passed on with each request, e.g. `traceparent`. */
  readonly headers?: () => Record<string, string>;
}

/**
 * For other services: asks the tenant service over NATS. NOT_FOUND becomes `null`; other typed
 * errors throw TenantQueryError; no responder or a timeout throws QueryFailedError (adapters/messaging).
 */
export class TenantQueryClient {
  constructor(private readonly nc: NatsConnection, private readonly options: TenantQueryClientOptions = {}) {}

  async getFacilitiesList(request: { search?: string; includeDeleted?: boolean } = {}): Promise<FacilitySummary[]> {
    const reply = await requestQuery(this.nc, 'GetFacilitiesList', request, this.requestOptions());
    if (isErrorReply(reply)) throw new TenantQueryError('GetFacilitiesList', reply);
    return reply.facilities;
  }

  async getFacilityConfig(facilityId: string, options: { includeDeleted?: boolean } = {}): Promise<FacilityConfig | null> {
    const reply = await requestQuery(this.nc, 'GetFacilityConfig', { facilityId, ...options }, this.requestOptions());
    if (isErrorReply(reply)) {
      if (reply.error.code === 'NOT_FOUND') return null;
      throw new TenantQueryError('GetFacilityConfig', reply);
    }
    return reply.facility;
  }

  async getServiceInfo(): Promise<ServiceInfo> {
    const reply = await requestQuery(this.nc, 'GetServiceInfo', {}, this.requestOptions());
    if (isErrorReply(reply)) throw new TenantQueryError('GetServiceInfo', reply);
    return reply;
  }

  private requestOptions() {
    return {
      ...(this.options.catalog ? { catalog: this.options.catalog } : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(this.options.headers ? { headers: this.options.headers() } : {}),
    };
  }
}
