import type { EhrConnection } from '../../../domain/ehr-connection.js';

/**
 * The association port. The facility configuration holds the kid (column `facility.key_id`, owned
 * by the facility module); the registry only reads it and changes nothing but that column.
 * Facility ids are the business `facilityId` used in URLs and messages.
 */
export interface FacilityKeyReferences {
  /** Active (not soft-deleted) facilities whose configuration references `kid`, sorted. */
  facilitiesUsingKey(kid: string): Promise<string[]>;
  /** The kid of an active facility (null when it has none); undefined when there is no active facility. */
  keyOfFacility(facilityId: string): Promise<{ kid: string | null } | undefined>;
  /** What signing an assertion for an active facility needs from its configuration: its kid and its EHR connections. */
  signingProfileOf(facilityId: string): Promise<{ kid: string | null; ehrConnections: EhrConnection[] } | undefined>;
  /** Points the facility at `kid` (null removes the reference); false when there is no active facility. */
  assign(facilityId: string, kid: string | null, at: Date): Promise<boolean>;
}
