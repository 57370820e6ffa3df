/**
 * Where $categorize's matching runs. Rules and results both come from the caller, so the matching
 * must not run on the thread that serves HTTP, acks messages and runs the workers' watchdog: the
 * engine host runs it in a validation worker under the per-resource deadline (a worker past it is
 * terminated and replaced, as for a validation). Without a worker pool (tests, tools) it runs in
 * the caller's thread (inProcessCategorization).
 */
import type { RequestDeadline } from './resource-validator.js';
import { categorizeBounded, type CategorizationAnswer, type CategorizationTask } from '../categorization/bounded-categorization.js';

export type { CategorizationAnswer, CategorizationTask } from '../categorization/bounded-categorization.js';

/** What a runner answers: the categorization's own answer, or that it passed its deadline (then it was stopped). */
export type CategorizationRun = CategorizationAnswer | { readonly kind: 'deadline'; readonly budgetMs: number };

export interface CategorizationRunner {
  /**
   * Throws ValidatorBusyError when there is no room for it now (as a validation would). With a
   * `deadline` (an HTTP request's), it is stopped there too, queued or running: `deadline` with its budget.
   */
  categorize(task: CategorizationTask, deadline?: RequestDeadline): Promise<CategorizationRun>;
}

/** In this thread, without a deadline: for tests and tools only. */
export const inProcessCategorization: CategorizationRunner = {
  categorize: async (task) => categorizeBounded(task),
};
