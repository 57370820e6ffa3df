/**
 * Domain failures. Adapters translate them: ValidationError → 400, NotFoundError → 404,
 * ConflictError → 409. Messages name the field (or parameter) at fault.
 */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export class ValidationError extends Error {
  override readonly name = 'ValidationError';

  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => p.message).join('; '));
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';

  constructor(readonly resource: string, readonly key: string) {
    super(`${resource} ${JSON.stringify(key)} was not found`);
  }
}

/** A write that contradicts existing state, e.g. a second facility with the same FacilityId. */
export class ConflictError extends Error {
  override readonly name = 'ConflictError';

  constructor(message: string, readonly field?: string) {
    super(message);
  }
}

/** Collects problems so that one response lists every bad field at once. */
export class ProblemCollector {
  private readonly problems: FieldProblem[] = [];

  add(field: string, message: string): void {
    this.problems.push({ field, message });
  }

  get isEmpty(): boolean {
    return this.problems.length === 0;
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new ValidationError(this.problems);
  }
}
