/** One page of a search; the HTTP adapter turns it into the paged model (records + metadata). */
export interface PageRequest {
  readonly pageSize: number;
  /** One-based. */
  readonly pageNumber: number;
}

export interface Page<T> {
  readonly records: readonly T[];
  readonly totalCount: number;
}

export type SortOrder = 'Ascending' | 'Descending';

export interface Sort<Field extends string> {
  readonly by: Field;
  readonly order: SortOrder;
}

/** Columns a facility search may be sorted by (a whitelist; anything else is refused with 400). */
export const FACILITY_SORT_FIELDS = ['Id', 'FacilityId', 'FacilityName', 'TimeZone', 'CreateDate', 'ModifyDate'] as const;
export type FacilitySortField = (typeof FACILITY_SORT_FIELDS)[number];

/** The specification's list for reporting plans. */
export const PLAN_SORT_FIELDS = ['Id', 'FacilityId', 'MeasureMappingId', 'ReportingMonth', 'ReportingYear', 'IsReporting', 'CreateDate', 'ModifyDate'] as const;
export type PlanSortField = (typeof PLAN_SORT_FIELDS)[number];
