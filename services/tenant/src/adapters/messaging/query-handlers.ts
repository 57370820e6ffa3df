import type { NatsConnection } from '@nats-io/transport-node';
import type { Catalog } from '#contracts/catalog.js';
import type { FacilityConfig } from '#contracts/types.js';
import { QueryError, serveQuery, type QueryServer } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import type { FacilityService } from '../../application/facility-service.js';
import { NotFoundError } from '#shared-kernel/domain/errors.js';
import type { Facility } from '../../domain/facility.js';
import type { ServiceInfo } from '../http/service-info.js';

export interface TenantQueryOptions {
  readonly facilities: FacilityService;
  readonly info: ServiceInfo;
  readonly logger: Logger;
  readonly catalog?: Catalog;
}

export function facilityConfigOf(facility: Facility): FacilityConfig {
  return {
    id: facility.id,
    facilityId: facility.facilityId,
    facilityName: facility.facilityName ?? '',
    timeZone: facility.timeZone,
    scheduledReports: {
      daily: [...facility.scheduledReports.daily], weekly: [...facility.scheduledReports.weekly], monthly: [...facility.scheduledReports.monthly],
    },
    isDeleted: facility.isDeleted,
    ehrConnections: facility.ehrConnections.map((connection) => ({ name: connection.name, clientId: connection.clientId, tokenUrl: connection.tokenUrl })),
    createdAt: facility.createDate.toISOString(),
    modifiedAt: facility.modifyDate?.toISOString() ?? null,
  };
}

/**
 * The tenant service's side of the queries GetFacilitiesList, GetFacilityConfig and GetServiceInfo
 * (core NATS request-reply, queue group per query so instances share the load). An unknown or
 * soft-deleted facility is answered with the typed error NOT_FOUND, never left to time out.
 */
export function serveTenantQueries(nc: NatsConnection, options: TenantQueryOptions): QueryServer[] {
  const common = { logger: options.logger, ...(options.catalog ? { catalog: options.catalog } : {}) };
  return [
    serveQuery(nc, 'GetFacilitiesList', async (request) => {
      const facilities = await options.facilities.list(request.search, request.includeDeleted ?? false);
      return { facilities: facilities.map((facility) => ({ facilityId: facility.facilityId, facilityName: facility.facilityName ?? '' })) };
    }, common),
    serveQuery(nc, 'GetFacilityConfig', async (request) => {
      let facility: Facility;
      try {
        facility = await options.facilities.get(request.facilityId);
      } catch (error) {
        if (error instanceof NotFoundError) throw new QueryError('NOT_FOUND', `Facility ${JSON.stringify(request.facilityId)} not found`);
        throw error;
      }
      if (facility.isDeleted && !request.includeDeleted) {
        throw new QueryError('NOT_FOUND', `Facility ${JSON.stringify(request.facilityId)} is soft-deleted`);
      }
      return { facility: facilityConfigOf(facility) };
    }, common),
    serveQuery(nc, 'GetServiceInfo', () => ({ ...options.info }), common),
  ];
}
