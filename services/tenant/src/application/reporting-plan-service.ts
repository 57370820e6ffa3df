import type { Actor } from '../domain/audit.js';
import { NotFoundError, InvalidInputError } from '#shared-kernel/domain/errors.js';
import type { Page, PageRequest, PlanSortField, Sort } from '../domain/paging.js';
import type { PlanFilter } from '../domain/ports/reporting-plan-repository.js';
import type { TenantTransaction } from '../domain/ports/tenant-store.js';
import type { FacilityReportingPlan, ReportingPlanInput } from '../domain/reporting-plan.js';
import { validateReportingPlanInput } from '../domain/reporting-plan.js';
import { audit, type TenantContext } from './context.js';

const RESOURCE = 'FacilityReportingPlan';

/** Use cases of facility reporting plans (which measures a facility reports in which month). */
export class ReportingPlanService {
  constructor(private readonly context: TenantContext) {}

  search(sort: Sort<PlanSortField>, page: PageRequest): Promise<Page<FacilityReportingPlan>> {
    return this.context.store.read((tx) => tx.plans.search(sort, page));
  }

  byFacility(facilityId: string, filter: PlanFilter): Promise<FacilityReportingPlan[]> {
    return this.context.store.read((tx) => tx.plans.findByFacility(facilityId, filter));
  }

  get(id: string): Promise<FacilityReportingPlan> {
    return this.context.store.read((tx) => this.require(tx, id));
  }

  create(input: ReportingPlanInput, actor: Actor): Promise<FacilityReportingPlan> {
    const values = validateReportingPlanInput(input);
    return this.context.store.write(async (tx) => {
      await this.assertReferences(tx, values);
      const plan: FacilityReportingPlan = { id: this.context.newId(), ...values, createDate: this.context.clock.now(), modifyDate: null };
      await tx.plans.insert(plan);
      await audit(this.context, tx, actor, {
        action: 'Create', resource: RESOURCE, resourceId: plan.id, facilityId: plan.facilityId, before: null, after: plan,
        notes: `Reporting plan ${plan.id} created for '${plan.facilityId}' (${plan.reportingYear}-${String(plan.reportingMonth).padStart(2, '0')})`,
      });
      return plan;
    });
  }

  update(id: string, input: ReportingPlanInput, actor: Actor): Promise<FacilityReportingPlan> {
    const values = validateReportingPlanInput(input);
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, id);
      await this.assertReferences(tx, values);
      const after: FacilityReportingPlan = { ...before, ...values, modifyDate: this.context.clock.now() };
      await tx.plans.update(after);
      await audit(this.context, tx, actor, {
        action: 'Update', resource: RESOURCE, resourceId: id, facilityId: after.facilityId, before, after,
        notes: `Reporting plan ${id} updated for '${after.facilityId}'`,
      });
      return after;
    });
  }

  remove(id: string, actor: Actor): Promise<void> {
    return this.context.store.write(async (tx) => {
      const before = await this.require(tx, id);
      await tx.plans.remove(id);
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: id, facilityId: before.facilityId, before, after: null,
        notes: `Reporting plan ${id} deleted for '${before.facilityId}'`,
      });
    });
  }

  removeAll(actor: Actor): Promise<number> {
    return this.context.store.write(async (tx) => {
      const count = await tx.plans.removeAll();
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: '*', facilityId: null, before: null, after: null,
        notes: `All reporting plans deleted (${count})`,
      });
      return count;
    });
  }

  removeByFacility(facilityId: string, actor: Actor): Promise<number> {
    return this.context.store.write(async (tx) => {
      const count = await tx.plans.removeByFacility(facilityId);
      await audit(this.context, tx, actor, {
        action: 'Delete', resource: RESOURCE, resourceId: '*', facilityId, before: null, after: null,
        notes: `All reporting plans of '${facilityId}' deleted (${count})`,
      });
      return count;
    });
  }

  /** The facility must exist; with MeasureConfig__CheckIfMeasureExists the mapping must too. */
  private async assertReferences(tx: TenantTransaction, values: ReportingPlanInput): Promise<void> {
    if (!(await tx.facilities.findByFacilityId(values.facilityId))) {
      throw InvalidInputError.of('facilityId', `facilityId: no facility ${JSON.stringify(values.facilityId)}`);
    }
    if (this.context.settings.checkIfMeasureExists && !(await tx.mappings.findById(values.measureMappingId))) {
      throw InvalidInputError.of('measureMappingId', `measureMappingId: measure mapping ${JSON.stringify(values.measureMappingId)} not found`);
    }
  }

  private async require(tx: TenantTransaction, id: string): Promise<FacilityReportingPlan> {
    const plan = await tx.plans.findById(id);
    if (!plan) throw NotFoundError.named(RESOURCE, id);
    return plan;
  }
}
