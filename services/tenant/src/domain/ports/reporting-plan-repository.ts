import type { Page, PageRequest, Sort, PlanSortField } from '../paging.js';
import type { FacilityReportingPlan } from '../reporting-plan.js';

export interface PlanFilter {
  readonly month?: number;
  readonly year?: number;
  readonly isReporting?: boolean;
}

export interface ReportingPlanRepository {
  findById(id: string): Promise<FacilityReportingPlan | null>;
  search(sort: Sort<PlanSortField>, page: PageRequest): Promise<Page<FacilityReportingPlan>>;
  findByFacility(facilityId: string, filter: PlanFilter): Promise<FacilityReportingPlan[]>;
  /** The plans of several facilities for the given months (the scheduler's batch). */
  findForMonths(facilityIds: readonly string[], months: ReadonlyArray<{ year: number; month: number }>): Promise<FacilityReportingPlan[]>;
  /** Throws ConflictError when the facility already has a plan for that mapping and month. */
  insert(plan: FacilityReportingPlan): Promise<void>;
  update(plan: FacilityReportingPlan): Promise<void>;
  remove(id: string): Promise<void>;
  removeAll(): Promise<number>;
  removeByFacility(facilityId: string): Promise<number>;
}
