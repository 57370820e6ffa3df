/** The settings a task's resources are validated with (validation-worker.ts, submission-task.ts). */
import type { ValidationSettings } from '../../domain/engine/validator-options.js';
import type { TaskControls } from './validation-worker.js';

/** The scope's settings (a facility's validation configuration), with the call's own over them. */
export function taskSettings(task: Pick<TaskControls, 'scope' | 'settings'>): ValidationSettings | undefined {
  if (!task.settings) return task.scope?.settings;
  return task.scope?.settings ? { ...task.scope.settings, ...task.settings } : task.settings;
}
