/** The settings a task's resources are validated with (validation-worker.ts, submission-task.ts). */
import type { ValidationSettings } from '../../domain/engine/validator-options.js';
import type { TaskControls } from './task-controls.js';

/**
 * The scope's settings (a facility's validation configuration), with the call's own over them; a
 * maxValidationMessages above the worker's cap (`maxIssues`) is brought down to it.
 */
export function taskSettings(task: Pick<TaskControls, 'scope' | 'settings'>, maxIssues?: number): ValidationSettings | undefined {
  const settings = !task.settings ? task.scope?.settings : task.scope?.settings ? { ...task.scope.settings, ...task.settings } : task.settings;
  const asked = settings?.maxValidationMessages;
  if (maxIssues === undefined || asked === undefined || asked <= maxIssues) return settings;
  return { ...settings, maxValidationMessages: maxIssues };
}
