/**
 * At most `max` validating requests of one caller at a time (its token's subject; every
 * unauthenticated request is one caller, `anonymous`): the next one is answered 429 Problem Details
 * with Retry-After, before it waits for a worker. The pool's lanes keep $validate from stopping the
 * flow; this keeps one caller from taking the whole $validate lane from the others.
 */
import type { RequestHandler } from 'express';
import { HttpProblem } from '#adapters/http/index.js';

/** What a caller over its limit is told to wait before trying again. */
export const CALLER_RETRY_AFTER_SECONDS = 2;

export function perCallerLimit(max: number): RequestHandler {
  const inFlight = new Map<string, number>();
  return (_req, res, next) => {
    const caller = res.locals.principal?.subject ?? 'anonymous';
    const count = inFlight.get(caller) ?? 0;
    if (count >= max) {
      next(new HttpProblem(429, 'too-many-requests', 'Too many requests',
        `At most ${max} validations of one caller run at a time; try again when one has finished`, undefined, { 'Retry-After': String(CALLER_RETRY_AFTER_SECONDS) }));
      return;
    }
    inFlight.set(caller, count + 1);
    let released = false;
    // 'close' comes for every response, answered or abandoned by the client
    res.once('close', () => {
      if (released) return;
      released = true;
      const left = (inFlight.get(caller) ?? 1) - 1;
      if (left === 0) inFlight.delete(caller);
      else inFlight.set(caller, left);
    });
    next();
  };
}
