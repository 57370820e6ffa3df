import { ConflictError, NotFoundError } from '#shared-kernel/domain/errors.js';
import type { ValidationScope } from '../domain/flow/validation-scope.js';
import type { ValidationConfigurationStore } from '../domain/ports/validation-configuration-store.js';

/** The refusal to delete a configuration facilities are assigned (409, with their ids as `facilities`). */
export const CONFIGURATION_IN_USE = { code: 'validation-configuration-in-use', title: 'Validation configuration in use' } as const;

/**
 * Per-facility validation configurations (which IG packages, with versions, and which RESOURCE
 * artifacts a facility's submissions are validated against) and their assignment to facilities.
 * Refusals are the shared vocabulary's errors: an invalid definition a ValidationScopeError (400
 * naming the field), an unknown name or facility NotFoundError, an existing name ConflictError, and a
 * configuration still assigned ConflictError with the reason CONFIGURATION_IN_USE and the facilities.
 */
export class ValidationConfigurationService {
  constructor(private readonly store: ValidationConfigurationStore) {}

  page(offset: number, limit: number): Promise<{ records: ValidationScope[]; totalCount: number }> {
    return this.store.pageConfigurations(offset, limit);
  }

  async create(input: unknown): Promise<ValidationScope> {
    const { scope, created } = await this.store.createConfiguration(input);
    if (!created) throw new ConflictError(`Validation configuration ${scope.name} exists already; PUT replaces it`);
    return scope;
  }

  async get(name: string): Promise<ValidationScope> {
    const scope = await this.store.getConfiguration(name);
    if (!scope) throw new NotFoundError(`Validation configuration ${name} does not exist`);
    return scope;
  }

  /** `input` names the configuration it replaces (the caller checks it against the path). */
  async replace(name: string, input: unknown): Promise<ValidationScope> {
    const scope = await this.store.replaceConfiguration(input);
    if (!scope) throw new NotFoundError(`Validation configuration ${name} does not exist; POST creates it`);
    return scope;
  }

  /** Refused while facilities are assigned it, so that none is silently moved back to all artifacts. */
  async delete(name: string): Promise<void> {
    const answer = await this.store.deleteUnassignedConfiguration(name);
    if (answer.outcome === 'absent') throw new NotFoundError(`Validation configuration ${name} does not exist`);
    if (answer.outcome === 'assigned') {
      throw new ConflictError(`Validation configuration ${name} is assigned to facilities ${answer.facilities.join(', ')}; unassign them first`, {
        reason: CONFIGURATION_IN_USE, facts: { facilities: answer.facilities },
      });
    }
  }

  async ofFacility(facilityId: string): Promise<ValidationScope> {
    const scope = await this.store.configurationOf(facilityId);
    if (!scope) throw new NotFoundError(`Facility ${facilityId} has no validation configuration (it validates against all artifacts)`);
    return scope;
  }

  async assign(facilityId: string, name: string): Promise<ValidationScope> {
    const scope = await this.store.getConfiguration(name);
    // assign() checks again in its own statement: a configuration deleted in between is refused there.
    if (!scope || !(await this.store.assign(facilityId, name))) throw new NotFoundError(`Validation configuration ${name} does not exist`);
    return scope;
  }

  async unassign(facilityId: string): Promise<void> {
    await this.store.assign(facilityId, undefined);
  }
}
