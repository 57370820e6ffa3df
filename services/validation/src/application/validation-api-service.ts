/**
 * $validate, $validate-and-categorize and $categorize: the engine's OperationOutcome, optionally
 * categorized with the latest rules (or rules given in the request), summarized, with the verdict.
 */
import { matchingCost } from '../domain/categorization/bounded-categorization.js';
import type { Categorized } from '../domain/categorization/categorizer.js';
import { CategoryValidationError, UNCATEGORIZED, type Category } from '../domain/categorization/category.js';
import { inProcessCategorization, type CategorizationRunner, type CategorizationTask } from '../domain/ports/categorization-runner.js';
import type { MatchableIssue } from '../domain/categorization/matcher.js';
import { summarizeByCategory, summarizeByMessage, type CategoryCount, type MessageCount } from '../domain/categorization/summary.js';
import { assessValidity, type ValidityVerdict } from '../domain/categorization/validity.js';
import { deadlineIssueOf } from '../domain/engine/outcome/deadline.js';
import { requestClockMs, type RequestDeadline, type ResourceValidator, type ValidateOptions, type ValidationOutcome } from '../domain/ports/resource-validator.js';
import { formatMessage } from '../domain/engine/messages.js';
import { toSeverity } from '../domain/results/issue-severity.js';
import { toIssueTypeCode } from '../domain/results/issue-type.js';
import { issuesFromOperationOutcome, type ValidationIssue } from '../domain/results/validation-issue.js';
import type { CategoryService } from './category-service.js';
import { InvalidInputError, NotFoundError } from '#shared-kernel/domain/errors.js';
import type { ValidationScope } from '../domain/flow/validation-scope.js';
import type { ValidationConfigurationLookup } from '../domain/ports/validation-configuration-lookup.js';
import { readValidateRequest, unreadableInput, type ValidateRequest } from './validate-request.js';
import { ValidationDeadlineError } from './errors.js';

export type CategorizedIssue = Categorized<ValidationIssue>;

export interface CompositeValidation {
  readonly outcome: ValidationOutcome;
  readonly issues: readonly CategorizedIssue[];
  readonly summary: { readonly byCategory: readonly CategoryCount[]; readonly byMessage: readonly MessageCount[] };
  readonly validity: ValidityVerdict;
}

export type ValidateAnswer =
  | { readonly kind: 'outcome'; readonly outcome: ValidationOutcome }
  | { readonly kind: 'issues'; readonly issues: readonly CategorizedIssue[] }
  | { readonly kind: 'message-summary'; readonly summary: readonly MessageCount[] }
  | { readonly kind: 'category-summary'; readonly summary: readonly CategoryCount[] };

/** One result given to $categorize: the issue fields plus whatever else the caller sent (ids, facility, ...). */
export type CategorizeInput = MatchableIssue & Record<string, unknown>;

/** What the routes pass on from a request: its query parameters, the caller's Authorization header, and when it arrived. */
export interface ValidateCall extends TimedCall {
  readonly query?: Record<string, unknown>;
  readonly authorization?: string;
}

export interface TimedCall {
  /** When the request arrived (requestClockMs), before its body was read: its budget counts from here. */
  readonly receivedAtMs?: number;
}

/**
 * What a request's budget keeps back for the work on this thread after the validation or matching
 * in a worker (stored rules matched here: up to MAX_MAIN_THREAD_MATCHING_COST, ~50-150 ms; encoding
 * the answer): a tenth of the budget, at most this.
 */
const MAX_ANSWER_RESERVE_MS = 250;

/**
 * Regex engine steps (matchingCost) the stored rules may take on the main thread for one $validate's
 * issues: ~50-150 ms at worst (10-30 ns a step for dear patterns); the bundled categories, mostly
 * literal leaves decided without the engine, stay far below it over ordinary outcomes. Dearer
 * categorizations run in a worker under the deadline.
 */
export const MAX_MAIN_THREAD_MATCHING_COST = 5_000_000;

export class ValidationApiService {
  constructor(
    private readonly validator: ResourceValidator,
    private readonly categories: CategoryService,
    /** Absent: a request naming a facility or a configuration is refused (no configurations here). */
    private readonly configurations?: ValidationConfigurationLookup,
    /** Where $categorize matches (the engine host: a worker, under a deadline); default this thread (tests, tools). */
    private readonly categorization: CategorizationRunner = inProcessCategorization,
    /**
     * A synchronous request's budget (validation.resource-timeout-ms), counted from its arrival:
     * reading the body, waiting for a worker, validating, categorizing and answering all fit in it.
     * Absent: only the workers' per-resource deadline applies (tests, tools).
     */
    private readonly requestBudgetMs?: number,
  ) {}

  async validate(body: unknown, flags: { categorize: boolean; summarize: boolean }, call: ValidateCall = {}): Promise<ValidateAnswer> {
    const deadline = this.deadlineOf(call);
    const outcome = await this.completedValidation(body, call, deadline);
    if (!flags.categorize) {
      return flags.summarize ? { kind: 'message-summary', summary: summarizeByMessage(issuesFromOperationOutcome(outcome)) } : { kind: 'outcome', outcome };
    }
    const issues = await this.categorizeWithStoredRules(issuesFromOperationOutcome(outcome), deadline);
    return flags.summarize ? { kind: 'category-summary', summary: summarizeByCategory(issues) } : { kind: 'issues', issues };
  }

  async validateAndCategorize(body: unknown, call: ValidateCall = {}): Promise<CompositeValidation> {
    const deadline = this.deadlineOf(call);
    const outcome = await this.completedValidation(body, call, deadline);
    const issues = await this.categorizeWithStoredRules(issuesFromOperationOutcome(outcome), deadline);
    return {
      outcome,
      issues,
      summary: { byCategory: summarizeByCategory(issues), byMessage: summarizeByMessage(issues) },
      validity: assessValidity(issues),
    };
  }

  /**
   * The engine's issues categorized with the stored rules: on this thread when the regex engine's
   * steps over these issues (matchingCost: program size × characters, each rule seeing at most
   * MAX_MATCHED_CHARACTERS of a field; literal checks, far cheaper, not counted) are within
   * MAX_MAIN_THREAD_MATCHING_COST, as for ordinary outcomes; else in a worker,
   * under the deadline (422 past it), since the messages quote what the caller submitted.
   */
  private async categorizeWithStoredRules(issues: ValidationIssue[], deadline: RequestDeadline | undefined): Promise<CategorizedIssue[]> {
    const categorizer = await this.categories.currentCategorizer();
    const engineSteps = matchingCost(categorizer.given, issues, { stopAbove: MAX_MAIN_THREAD_MATCHING_COST, literalChecks: false });
    if (engineSteps <= MAX_MAIN_THREAD_MATCHING_COST) return categorizer.categorize(issues);
    const categories = await this.categories.exportAll();
    if (deadline && requestClockMs() >= deadline.atMs) throw new ValidationDeadlineError(categorizationTimeout(deadline.budgetMs));
    const answer = await this.categorization.categorize({ issues: issues.map(matchable), categories, rules: 'stored' }, deadline);
    if (answer.kind === 'deadline') throw new ValidationDeadlineError(categorizationTimeout(answer.budgetMs));
    // stored rules are never refused (one that does not compile is skipped), nor priced
    if (answer.kind !== 'categorized') throw new Error(`categorization with the stored rules answered ${answer.kind}`);
    return issues.map((issue, i) => {
      const matched = answer.matches[i]!.map((index) => answer.categories[index]!);
      return { ...issue, categories: matched.length > 0 ? matched : [UNCATEGORIZED] };
    });
  }

  /**
   * The engine's outcome, unless the validation passed its deadline: then there is no validation
   * result to answer with (only the fact that it did not finish), which the caller gets as an error.
   */
  private async completedValidation(body: unknown, call: ValidateCall, deadline: RequestDeadline | undefined): Promise<ValidationOutcome> {
    const request = readValidateRequest(body, call.query ?? {});
    const scope = await this.scopeOf(request);
    // a budget spent before the validation starts (a slow upload, a long wait here): answered at once
    if (deadline && requestClockMs() >= deadline.atMs) throw new ValidationDeadlineError(formatMessage('VALIDATION_TIMEOUT', [Math.round(deadline.budgetMs)]));
    const options: ValidateOptions = {
      ...(request.profiles.length ? { profiles: request.profiles } : {}),
      ...(call.authorization ? { authorization: call.authorization } : {}),
      ...(scope ? { scope } : {}),
      ...(Object.keys(request.settings).length ? { settings: request.settings } : {}),
      ...(deadline ? { deadline } : {}),
    };
    const outcome = await this.validator.validate(request.resource, options);
    const unreadable = unreadableInput(request.resource, outcome);
    if (unreadable) throw unreadable;
    const passed = deadlineIssueOf(outcome);
    if (passed) throw new ValidationDeadlineError(passed.text);
    return outcome;
  }

  /**
   * When the work in workers must be done for the answer to leave within the request's budget: its
   * arrival plus the budget, less the reserve for what follows on this thread.
   */
  private deadlineOf(call: TimedCall): RequestDeadline | undefined {
    if (this.requestBudgetMs === undefined || call.receivedAtMs === undefined) return undefined;
    const reserveMs = Math.min(MAX_ANSWER_RESERVE_MS, this.requestBudgetMs / 10);
    return { atMs: call.receivedAtMs + this.requestBudgetMs - reserveMs, budgetMs: this.requestBudgetMs };
  }

  /**
   * The validation configuration a request names: a facility's (none assigned: all artifacts, as the
   * flow validates that facility's submissions) or one by name (unknown: 404, as a resource the
   * request names that does not exist).
   */
  private async scopeOf(request: ValidateRequest): Promise<ValidationScope | undefined> {
    if (request.facilityId === undefined && request.configuration === undefined) return undefined;
    if (!this.configurations) throw new InvalidInputError('This service has no validation configurations', [{ field: request.facilityId === undefined ? 'configuration' : 'facility', message: 'not supported here' }]);
    if (request.facilityId !== undefined) return this.configurations.scopeOf(request.facilityId);
    const scope = await this.configurations.getConfiguration(request.configuration!);
    if (!scope) throw new NotFoundError(`Validation configuration ${request.configuration} does not exist`);
    return scope;
  }

  /**
   * Body: an array of results (categorized with the stored latest rules), or `{results, categories}`
   * to categorize with the given category snapshots instead (nothing is stored). The matching runs
   * where the runner puts it (a worker, under the validation deadline: 422 past it); rules sent with
   * the request are priced first and refused (400) when they would cost more than MAX_TRIAL_COST.
   */
  async categorize(body: unknown, summarize: boolean, call: TimedCall = {}): Promise<
    { kind: 'results'; results: (CategorizeInput & { categories: readonly Category[] })[] } | { kind: 'category-summary'; summary: CategoryCount[] }> {
    let rawResults: unknown;
    let given: unknown;
    if (Array.isArray(body)) {
      rawResults = body;
    } else if (typeof body === 'object' && body !== null && 'results' in body) {
      ({ results: rawResults, categories: given } = body as { results: unknown; categories?: unknown });
    } else {
      throw new InvalidInputError('Body must be an array of results, or {results, categories}', [{ field: '(root)', message: 'must be an array or {results, categories}' }]);
    }
    const inputs = parseResults(rawResults);
    const task: CategorizationTask = given === undefined
      ? { issues: inputs.map(matchable), categories: await this.categories.exportAll(), rules: 'stored' }
      : { issues: inputs.map(matchable), categories: given, rules: 'caller' };
    const deadline = this.deadlineOf(call);
    if (deadline && requestClockMs() >= deadline.atMs) throw new ValidationDeadlineError(categorizationTimeout(deadline.budgetMs));
    const answer = await this.categorization.categorize(task, deadline);
    switch (answer.kind) {
      case 'invalid': throw new CategoryValidationError(answer.problems, answer.message);
      case 'too-costly':
        throw new InvalidInputError(`The categories' rules would cost up to ${answer.cost} matching steps over these results (rule size × characters matched); `
          + `at most ${answer.limit} are allowed: send fewer or shorter results, or fewer or simpler rules`, [{ field: 'categories', message: `cost ${answer.cost} over the limit of ${answer.limit}` }]);
      case 'deadline': throw new ValidationDeadlineError(categorizationTimeout(answer.budgetMs));
      default: {
        const results = inputs.map((input, i) => {
          const matched = answer.matches[i]!.map((index) => answer.categories[index]!);
          return { ...input, categories: matched.length > 0 ? matched : [UNCATEGORIZED] };
        });
        return summarize ? { kind: 'category-summary', summary: summarizeByCategory(results) } : { kind: 'results', results };
      }
    }
  }
}

function categorizationTimeout(budgetMs: number): string {
  return `Categorization did not finish within ${Math.round(budgetMs)} ms`;
}

/** The fields a rule may read, and only these: what crosses to the worker. */
function matchable(input: MatchableIssue): MatchableIssue {
  const { severity, code, message, expression, messageId } = input;
  return {
    ...(severity === undefined ? {} : { severity }), ...(code === undefined ? {} : { code }), ...(message === undefined ? {} : { message }),
    ...(expression === undefined ? {} : { expression }), ...(typeof messageId === 'string' ? { messageId } : {}),
  };
}

/**
 * Results as the original system's JSON shaped them (`severity: "ERROR"`, `code: "CODEINVALID"`) or as
 * FHIR codes; normalized to FHIR codes so rules written for either match. Other fields pass through.
 */
function parseResults(value: unknown): CategorizeInput[] {
  if (!Array.isArray(value)) throw new InvalidInputError('results must be an array', [{ field: 'results', message: 'must be an array' }]);
  return value.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new InvalidInputError(`Result at index ${index} must be an object`, [{ field: `[${index}]`, message: 'must be an object' }]);
    }
    // what the caller sent is answered back with the categories: it must be writable as JSON again
    if (nestedDeeperThan(item, MAX_RESULT_DEPTH)) {
      throw new InvalidInputError(`Result at index ${index} is nested more than ${MAX_RESULT_DEPTH} levels deep`, [{ field: `[${index}]`, message: `nested more than ${MAX_RESULT_DEPTH} levels deep` }]);
    }
    const raw = item as Record<string, unknown>;
    for (const field of ['message', 'expression', 'severity', 'code', 'messageId'] as const) {
      if (raw[field] !== undefined && raw[field] !== null && typeof raw[field] !== 'string') {
        throw new InvalidInputError(`Result at index ${index}: ${field} must be a string`, [{ field: `[${index}].${field}`, message: 'must be a string' }]);
      }
    }
    const severity = toSeverity(raw.severity) ?? (typeof raw.severity === 'string' ? raw.severity : undefined);
    const code = toIssueTypeCode(raw.code) ?? (typeof raw.code === 'string' ? raw.code : undefined);
    const { categories: _ignored, ...rest } = raw;
    return {
      ...rest,
      ...(severity === undefined ? {} : { severity }),
      ...(code === undefined ? {} : { code }),
      ...(typeof raw.message === 'string' ? { message: raw.message } : {}),
      ...(typeof raw.expression === 'string' ? { expression: raw.expression } : {}),
    };
  });
}

/** A result is a flat record of texts and ids; far deeper ones are refused (they could not be written back as JSON). */
const MAX_RESULT_DEPTH = 32;

/** Whether arrays and objects in `value` nest deeper than `max` (iterative: the depth is the caller's). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
