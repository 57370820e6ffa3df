/**
 * The production validation worker (validation-worker.ts, unchanged), with a Validator that can be
 * told by the resource itself to misbehave the way an engine bug would, in synchronous code that
 * nothing but terminating the thread can stop:
 * - a resource whose `id` is `hang`: an endless loop;
 * - a resource whose `id` is `busy-<ms>`: `<ms>` milliseconds of busy waiting, then a normal validation;
 * - a resource whose `id` is `wait-<ms>`: `<ms>` milliseconds of waiting (like a slow terminology
 *   server: the thread is idle), then a normal validation.
 * - a resource whose `id` is `hog`: allocates without end (a validation whose intermediate results
 *   grow without bound), until the worker passes its heap limit;
 * Every other resource is validated normally. Tests give this file as the pool's worker module.
 */
import { Validator } from '#validation/domain/engine/validator.js';

// validateSettled: what validateAsync and the submission task call
const validateSettled = Validator.prototype.validateSettled;
Validator.prototype.validateSettled = function misbehaving(this: Validator, input, options) {
  // JSON text (what $validate hands on) is looked at as the resource it holds
  const resource: unknown = typeof input === 'string' && input.startsWith('{') ? JSON.parse(input) : input;
  const id = typeof resource === 'object' && resource !== null ? (resource as { id?: unknown }).id : undefined;
  if (id === 'hang') {
    for (;;) { /* an engine that never returns */ }
  }
  if (id === 'hog') {
    const kept: { i: number }[][] = [];
    for (;;) kept.push(Array.from({ length: 10_000 }, (_, i) => ({ i })));
  }
  const busy = typeof id === 'string' ? /^busy-(\d+)$/.exec(id) : null;
  if (busy) {
    const until = performance.now() + Number(busy[1]);
    while (performance.now() < until) { /* synchronous work */ }
  }
  const wait = typeof id === 'string' ? /^wait-(\d+)$/.exec(id) : null;
  if (wait) return new Promise((resolve) => setTimeout(resolve, Number(wait[1]))).then(() => validateSettled.call(this, input, options));
  return validateSettled.call(this, input, options);
};

export { default } from '#validation/adapters/worker-pool/validation-worker.js';
