/**
 * The one failure vocabulary of every service's domain and application code. Code says what went
 * wrong in these terms; each transport maps them once: HTTP to Problem Details in
 * `adapters/http/domain-problems.ts`, the consumer runner treats an UnavailableError as an outage.
 *
 * | error              | meaning                                                              | HTTP |
 * |--------------------|----------------------------------------------------------------------|------|
 * | InvalidInputError  | the input is wrong; `problems` names each field at fault             | 400  |
 * | ForbiddenError     | the caller may not do this, whatever the input                       | 403  |
 * | NotFoundError      | the thing named does not exist                                       | 404  |
 * | ConflictError      | the request contradicts the current state (a duplicate, a reference) | 409  |
 * | UnprocessableError | well-formed, but it cannot be processed; a retry fails the same way  | 422  |
 * | UnavailableError   | a dependency or capacity is missing now; a retry may succeed         | 503  |
 *
 * A message is shown to the client (Problem Details `detail`): it names what is wrong in the
 * caller's terms and never carries internals (the cause goes in `cause`, for the log). A `reason`
 * names a particular refusal with a stable code clients may switch on (`signing-key-in-use`) and a
 * short title; without one the kind's own code and title are used.
 *
 * Pure: no I/O, no framework; every service's domain may import it.
 */

/** One input field at fault: `facility.timeZone`, `[3].matcher.children[0].regex`, `pageSize`. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

export type FailureKind = 'invalid-input' | 'forbidden' | 'not-found' | 'conflict' | 'unprocessable' | 'unavailable';

/** A particular refusal within a kind: a stable kebab-case code and a short human title. */
export interface FailureReason {
  readonly code: string;
  readonly title: string;
}

export interface DomainErrorOptions extends ErrorOptions {
  readonly problems?: readonly FieldProblem[];
  readonly reason?: FailureReason;
  /** Facts about the refusal the client may act on, sent along with it (e.g. the facilities that use a key). */
  readonly facts?: Readonly<Record<string, unknown>>;
  /** UnavailableError: when a retry may succeed. */
  readonly retryAfterSeconds?: number;
}

/** The base of the vocabulary. Prefer the subclasses; extend this only for a family whose members differ in kind. */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  readonly problems: readonly FieldProblem[];
  readonly reason: FailureReason | undefined;
  readonly facts: Readonly<Record<string, unknown>> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(readonly failure: FailureKind, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.problems = options.problems ?? [];
    this.reason = options.reason;
    this.facts = options.facts;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

type KindOptions = Omit<DomainErrorOptions, 'problems' | 'retryAfterSeconds'>;

export class InvalidInputError extends DomainError {
  override readonly name: string = 'InvalidInputError';

  constructor(message: string, problems: readonly FieldProblem[] = [], options: KindOptions = {}) {
    super('invalid-input', message, { ...options, problems });
  }

  /** One field at fault; the message is the problem's. */
  static of(field: string, message: string): InvalidInputError {
    return new InvalidInputError(message, [{ field, message }]);
  }

  /** Several fields at fault; the message lists them. */
  static listing(problems: readonly FieldProblem[]): InvalidInputError {
    return new InvalidInputError(problems.map((p) => p.message).join('; '), problems);
  }
}

export class ForbiddenError extends DomainError {
  override readonly name: string = 'ForbiddenError';
  constructor(message: string, options: KindOptions = {}) {
    super('forbidden', message, options);
  }
}

export class NotFoundError extends DomainError {
  override readonly name: string = 'NotFoundError';
  constructor(message: string, options: KindOptions = {}) {
    super('not-found', message, options);
  }

  /** `Facility "F1" was not found`. */
  static named(resource: string, key: string): NotFoundError {
    return new NotFoundError(`${resource} ${JSON.stringify(key)} was not found`);
  }
}

/** A write that contradicts existing state, e.g. a second facility with the same FacilityId. */
export class ConflictError extends DomainError {
  override readonly name: string = 'ConflictError';
  /** The field whose value conflicts, when one does (`facilityId` of a duplicate facility). */
  readonly field: string | undefined;

  constructor(message: string, options: KindOptions & { readonly field?: string } = {}) {
    const { field, ...rest } = options;
    super('conflict', message, rest);
    this.field = field;
  }
}

export class UnprocessableError extends DomainError {
  override readonly name: string = 'UnprocessableError';
  constructor(message: string, options: KindOptions = {}) {
    super('unprocessable', message, options);
  }
}

export interface UnavailableOptions extends KindOptions {
  /** What is missing: `report service`, `database`, `validation workers`. */
  readonly dependency?: string;
  readonly retryAfterSeconds?: number;
}

export class UnavailableError extends DomainError {
  override readonly name: string = 'UnavailableError';
  readonly dependency: string | undefined;

  constructor(message: string, options: UnavailableOptions = {}) {
    const { dependency, ...rest } = options;
    super('unavailable', message, rest);
    this.dependency = dependency;
  }
}

/** Collects problems so that one InvalidInputError lists every bad field at once. */
export class ProblemCollector {
  private readonly problems: FieldProblem[] = [];

  add(field: string, message: string): void {
    this.problems.push({ field, message });
  }

  get isEmpty(): boolean {
    return this.problems.length === 0;
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw InvalidInputError.listing(this.problems);
  }
}
