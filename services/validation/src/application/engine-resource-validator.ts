/**
 * ResourceValidator on the engine's Validator (one process, no worker pool): the simplest way to
 * plug the engine into the validation API. The composition root may replace it with the worker
 * pool; both answer the same OperationOutcome.
 */
import type { Validator } from '../domain/engine/validator.js';
import type { OperationOutcome, ResourceValidator, ValidateOptions } from '../domain/ports/resource-validator.js';

export class EngineResourceValidator implements ResourceValidator {
  /** `current` is read per call, so a rebuilt validator (artifacts changed) is used from the next request on. */
  constructor(private readonly current: () => Validator) {}

  async validate(resource: Record<string, unknown>, options: ValidateOptions = {}): Promise<OperationOutcome> {
    const outcome = await this.current().validateAsync(resource, {
      ...(options.profiles ? { profiles: options.profiles } : {}),
      ...(options.authorization ? { authorization: options.authorization } : {}),
    });
    return outcome as unknown as OperationOutcome;
  }
}
