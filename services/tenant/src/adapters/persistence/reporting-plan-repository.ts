import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { Page, PageRequest, PlanSortField, Sort } from '../../domain/paging.js';
import type { PlanFilter, ReportingPlanRepository } from '../../domain/ports/reporting-plan-repository.js';
import type { FacilityReportingPlan } from '../../domain/reporting-plan.js';
import { translateConstraints } from './constraint-errors.js';
import { ReportingPlanEntity, type ReportingPlanRow } from './entities.js';

type PlanRow = ReportingPlanRow;

const SORT_COLUMNS: Record<PlanSortField, keyof PlanRow> = {
  Id: 'id', FacilityId: 'facilityId', MeasureMappingId: 'measureMappingId', ReportingMonth: 'reportingMonth',
  ReportingYear: 'reportingYear', IsReporting: 'isReporting', CreateDate: 'createDate', ModifyDate: 'modifyDate',
};

function toPlan(row: PlanRow): FacilityReportingPlan {
  return {
    id: row.id, facilityId: row.facilityId, measureMappingId: row.measureMappingId, reportingMonth: row.reportingMonth,
    reportingYear: row.reportingYear, isReporting: row.isReporting, createDate: row.createDate, modifyDate: row.modifyDate ?? null,
  };
}

const DUPLICATE = (plan: FacilityReportingPlan) =>
  `a plan for facility ${JSON.stringify(plan.facilityId)}, measure mapping ${JSON.stringify(plan.measureMappingId)} and ${plan.reportingYear}-${String(plan.reportingMonth).padStart(2, '0')} already exists`;

export class MikroReportingPlanRepository implements ReportingPlanRepository {
  constructor(private readonly em: EntityManager) {}

  async findById(id: string): Promise<FacilityReportingPlan | null> {
    const row = await this.em.findOne(ReportingPlanEntity, { id }, { disableIdentityMap: true });
    return row ? toPlan(row) : null;
  }

  async search(sort: Sort<PlanSortField>, page: PageRequest): Promise<Page<FacilityReportingPlan>> {
    const direction = sort.order === 'Ascending' ? 'asc' : 'desc';
    const [rows, totalCount] = await this.em.findAndCount(ReportingPlanEntity, {}, {
      orderBy: { [SORT_COLUMNS[sort.by]]: direction, ...(sort.by === 'Id' ? {} : { id: 'asc' }) },
      limit: page.pageSize,
      offset: (page.pageNumber - 1) * page.pageSize,
      disableIdentityMap: true,
    });
    return { records: rows.map(toPlan), totalCount };
  }

  async findByFacility(facilityId: string, filter: PlanFilter): Promise<FacilityReportingPlan[]> {
    const where: FilterQuery<PlanRow> = { facilityId };
    if (filter.month !== undefined) where.reportingMonth = filter.month;
    if (filter.year !== undefined) where.reportingYear = filter.year;
    if (filter.isReporting !== undefined) where.isReporting = filter.isReporting;
    const rows = await this.em.find(ReportingPlanEntity, where, {
      orderBy: { reportingYear: 'asc', reportingMonth: 'asc', measureMappingId: 'asc' }, disableIdentityMap: true,
    });
    return rows.map(toPlan);
  }

  async findForMonths(facilityIds: readonly string[], months: ReadonlyArray<{ year: number; month: number }>): Promise<FacilityReportingPlan[]> {
    if (facilityIds.length === 0 || months.length === 0) return [];
    const rows = await this.em.find(ReportingPlanEntity, {
      facilityId: { $in: [...facilityIds] },
      $or: months.map(({ year, month }) => ({ reportingYear: year, reportingMonth: month })),
    }, { disableIdentityMap: true });
    return rows.map(toPlan);
  }

  async insert(plan: FacilityReportingPlan): Promise<void> {
    await translateConstraints(() => this.em.insert(ReportingPlanEntity, { ...plan }), {
      unique: DUPLICATE(plan), foreignKey: `facilityId: no facility ${JSON.stringify(plan.facilityId)}`,
    });
  }

  async update(plan: FacilityReportingPlan): Promise<void> {
    const { id, ...changes } = plan;
    await translateConstraints(() => this.em.nativeUpdate(ReportingPlanEntity, { id }, changes), {
      unique: DUPLICATE(plan), foreignKey: `facilityId: no facility ${JSON.stringify(plan.facilityId)}`,
    });
  }

  async remove(id: string): Promise<void> {
    await this.em.nativeDelete(ReportingPlanEntity, { id });
  }

  removeAll(): Promise<number> {
    return this.em.nativeDelete(ReportingPlanEntity, {});
  }

  removeByFacility(facilityId: string): Promise<number> {
    return this.em.nativeDelete(ReportingPlanEntity, { facilityId });
  }
}
