/**
 * ResourceValidator on the engine's Validator in the test's own thread: lets API tests plug a
 * validator built from chosen definitions into the routes without a worker pool. The service always
 * validates in workers (adapters/engine); both answer the same OperationOutcome.
 */
import type { Validator } from '#validation/domain/engine/validator.js';
import { engineInput, type ResourceInput, type ResourceValidator, type ValidateOptions, type ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { taskSettings } from '#validation/adapters/worker-pool/task-settings.js';

export class InProcessResourceValidator implements ResourceValidator {
  /** `current` is read per call, so a rebuilt validator (artifacts changed) is used from the next request on. */
  constructor(private readonly current: () => Validator) {}

  async validate(resource: ResourceInput, options: ValidateOptions = {}): Promise<ValidationOutcome> {
    // the scope's settings with the call's over them, as a worker applies them (the scope's packages are not applied here)
    const settings = taskSettings(options);
    const input = engineInput(resource);
    return this.current().validateAsync(input.value, {
      ...(input.format ? { format: input.format } : {}),
      ...(options.profiles ? { profiles: options.profiles } : {}),
      ...(options.authorization ? { authorization: options.authorization } : {}),
      ...(settings ? { settings } : {}),
    });
  }
}
