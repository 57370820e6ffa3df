/**
 * What every kind of task (validation-worker.ts, submission-task.ts, categorize-task.ts) carries, in its
 * own module so the task kinds and the worker that runs them all import it without importing each other.
 */
import type { ValidationSettings } from '../../domain/engine/validator-options.js';
import type { ValidationScope } from '../../domain/flow/validation-scope.js';

/** What every task carries besides its resources: how to validate them, and the pool's deadline controls. */
export interface TaskControls {
  profiles?: string[];
  /** Passed on to remote terminology. */
  authorization?: string;
  /** The facility's validation scope; absent = every artifact. Its settings apply to every resource of the task. */
  scope?: ValidationScope;
  /** Settings of this call, over the scope's (a $validate request's own). */
  settings?: ValidationSettings;
  /** Where the worker publishes the position (in the task) of what it is validating (TaskProgress); set by the pool. */
  progress?: SharedArrayBuffer;
  /** The submission's worker-time budget (SharedBudget), shared with its other tasks; set by the pool. */
  budget?: SharedArrayBuffer;
  /**
   * The budget stops resources from this position on (default 0). The ones before it were validated
   * once already, in a worker that was then terminated for another resource: their outcomes are due.
   */
  budgetFrom?: number;
}
