import type { Facility } from '../facility.js';
import type { Page, PageRequest, Sort, FacilitySortField } from '../paging.js';

export interface FacilitySearch {
  readonly facilityId?: string;
  /** Case-insensitive substring. */
  readonly facilityName?: string;
  readonly timeZone?: string;
  readonly includeDeleted: boolean;
}

export interface FacilityRepository {
  findById(id: string): Promise<Facility | null>;
  /** Includes soft-deleted facilities; callers decide what a deleted one means. */
  findByFacilityId(facilityId: string): Promise<Facility | null>;
  /** Several at once (the scheduler's batch); missing ids are simply absent. */
  findByFacilityIds(facilityIds: readonly string[]): Promise<Facility[]>;
  search(criteria: FacilitySearch, sort: Sort<FacilitySortField>, page: PageRequest): Promise<Page<Facility>>;
  /** Every facility (ordered by facilityId) whose name or id contains `search`, case-insensitive. */
  list(search: string | undefined, includeDeleted: boolean): Promise<Facility[]>;
  /** Throws ConflictError when the FacilityId exists (enforced by a unique index). */
  insert(facility: Facility): Promise<void>;
  update(facility: Facility): Promise<void>;
  remove(id: string): Promise<void>;
}
