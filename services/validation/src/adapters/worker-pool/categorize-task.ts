/**
 * $categorize's matching as a worker task (worker side): the results' matchable fields and the
 * category snapshots go in, the matches come out (domain/categorization/bounded-categorization.ts).
 * The task publishes its progress like a one-resource batch, so the pool's watchdog stops it at the
 * per-resource deadline (the worker is terminated and replaced; the caller gets `deadline`).
 */
import { categorizeBounded, type CategorizationAnswer, type CategorizationTask } from '../../domain/categorization/bounded-categorization.js';
import type { TaskControls } from './task-controls.js';
import { TaskProgress } from './task-progress.js';
import type { WorkerMetricsReport } from './worker-metrics.js';

export interface CategorizeTask extends TaskControls {
  readonly categorize: CategorizationTask;
}

export type CategorizeTaskResult = CategorizationAnswer & { metrics?: WorkerMetricsReport };

export function isCategorizeTask(task: object): task is CategorizeTask {
  return 'categorize' in task;
}

export function runCategorizeTask(task: CategorizeTask): CategorizeTaskResult {
  const progress = task.progress ? new TaskProgress(task.progress) : undefined;
  progress?.begin(0);
  const answer = categorizeBounded(task.categorize);
  progress?.finish();
  return { ...answer };
}
