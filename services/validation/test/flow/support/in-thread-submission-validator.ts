/**
 * The flow's validator for its unit tests: the production submission task (worker-pool/
 * submission-task.ts: read the bytes, validate each entry on its own, rebase and write its issues
 * once, join them) and the main thread's wrap of its answer (joinedOutcomeJson, as the engine host
 * does), run on this thread around a stand-in for the engine's per-resource validation. So the
 * unit tests drive the path the service takes, only without a worker thread.
 */
import { validateSubmissionTask, type EntryValidator } from '#validation/adapters/worker-pool/submission-task.js';
import type { ScopedResourceValidator, SubmissionValidation } from '#validation/domain/ports/resource-validator.js';
import { joinedOutcomeJson } from '#validation/domain/flow/index.js';

export function inThreadSubmissionValidator(engine: EntryValidator): ScopedResourceValidator {
  return {
    async validateSubmission(bytes: Uint8Array, options = {}): Promise<SubmissionValidation> {
      // Shared with the task as the engine host shares it with a worker.
      const shared = new SharedArrayBuffer(bytes.byteLength);
      new Uint8Array(shared).set(bytes);
      const result = await validateSubmissionTask(engine, { bytes: shared, scope: options.scope });
      if (result.kind === 'unreadable') return { kind: 'unreadable', message: result.message };
      return { kind: 'validated', resourceCount: result.entryCount, outcomeJson: joinedOutcomeJson(result.issues) };
    },
  };
}

/** An entry as a stand-in engine reads it (the submission task hands each entry's parsed resource). */
export function recordOf(resource: unknown): Record<string, unknown> {
  return typeof resource === 'object' && resource !== null ? { ...resource } : {};
}
