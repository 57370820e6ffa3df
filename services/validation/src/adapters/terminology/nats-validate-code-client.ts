import type { NatsConnection } from '@nats-io/transport-node';
import type { Catalog } from '#contracts/catalog.js';
import { isErrorReply, type ReplyOf, type ValidateCodeSystemCode, type ValidateValueSetCode } from '#contracts/types.js';
import { ContractViolationError, QueryFailedError } from '#adapters/messaging/errors.js';
import { requestQuery } from '#adapters/messaging/request-reply.js';
import type { Logger } from '#adapters/observability/logger.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import type { ValidateCodeAnswer, ValidateCodeQuery, ValidateCodeRemote } from './fhir-validate-code-client.js';

/**
 * The specification's terminology commands over NATS request-reply (`terminology.transport` nats):
 * ValidateValueSetCode for a value-set check, ValidateCodeSystemCode for a code-system check, sent to
 * the platform terminology service and checked against their contracts both ways (requestQuery).
 *
 * The same answers as the HTTP client, so RemoteTerminology and its cache cannot tell them apart:
 * an answer, `not-found` (the responder does not know the value set or code system: NOT_FOUND, or
 * BAD_REQUEST as a FHIR server's 400), or `unavailable` after the retries (no responder, timeout,
 * UNAVAILABLE / INTERNAL, an off-contract reply) — never an exception, validation carries on.
 *
 * No caller credentials go on NATS: the command carries only the code to check and a traceparent;
 * the connection authenticates as this service (nats.user / nats.password / nats.token).
 */
export interface NatsValidateCodeClientOptions {
  /** The connection (opened on first use by the caller's factory; several clients of a thread share it). */
  connection: () => Promise<NatsConnection>;
  /** The installation's catalog (nats.namespace decides the subjects). */
  catalog: Catalog;
  logger: Logger;
  /** Per attempt; default 5,000 ms. */
  timeoutMs?: number;
  /** Extra attempts after a timeout, no responder or UNAVAILABLE / INTERNAL; default 2. */
  retries?: number;
  /** First backoff delay, doubled per attempt (with jitter), at most 2 s; default 200 ms. */
  retryBaseDelayMs?: number;
  circuitBreaker?: CircuitBreakerOptions;
}

type Attempt = { done: ValidateCodeAnswer } | { retry: string };

export class NatsValidateCodeClient implements ValidateCodeRemote {
  /** For log lines: where the questions go. */
  readonly baseUrl: string;
  private readonly breaker: CircuitBreaker;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseDelayMs: number;

  constructor(private readonly options: NatsValidateCodeClientOptions) {
    this.baseUrl = `nats:${options.catalog.byName('ValidateValueSetCode').subject}`;
    this.breaker = new CircuitBreaker(options.circuitBreaker);
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.retries = Math.max(0, options.retries ?? 2);
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 200;
  }

  get circuitState() {
    return this.breaker.state;
  }

  async validateCode(query: ValidateCodeQuery): Promise<ValidateCodeAnswer> {
    if (!this.breaker.tryAcquire()) return { kind: 'unavailable', reason: 'circuit open after repeated failures' };
    let answer: ValidateCodeAnswer | undefined;
    let reason = '';
    for (let attempt = 0; attempt <= this.retries && answer === undefined; attempt++) {
      if (attempt > 0) await sleep(backoffMs(this.retryBaseDelayMs, attempt));
      const outcome = await this.attempt(query);
      if ('done' in outcome) answer = outcome.done;
      else reason = outcome.retry;
    }
    answer ??= { kind: 'unavailable', reason };
    if (answer.kind === 'unavailable') {
      this.breaker.recordFailure();
      this.options.logger.warn({ terminologyServer: this.baseUrl, reason: answer.reason, circuit: this.breaker.state }, 'terminology service could not answer over NATS');
    } else {
      this.breaker.recordSuccess();
    }
    return answer;
  }

  private async attempt(query: ValidateCodeQuery): Promise<Attempt> {
    let reply: ReplyOf<'ValidateValueSetCode'>;
    try {
      const nc = await this.options.connection();
      const common = { timeoutMs: this.timeoutMs, catalog: this.options.catalog };
      reply = query.valueSet
        ? await requestQuery(nc, 'ValidateValueSetCode', valueSetCommand(query, query.valueSet), common)
        : await requestQuery(nc, 'ValidateCodeSystemCode', codeSystemCommand(query), common);
    } catch (error) {
      // Our own command off its contract (a code-system check without a system): asking again cannot help.
      if (error instanceof ContractViolationError) return { done: { kind: 'unavailable', reason: error.message } };
      if (error instanceof QueryFailedError && error.reason === 'invalid-reply') return { done: { kind: 'unavailable', reason: error.message } };
      return { retry: error instanceof Error ? error.message : String(error) };
    }
    if (!isErrorReply(reply)) return { done: { kind: 'answer', result: reply.result, message: reply.message, display: reply.display } };
    switch (reply.error.code) {
      case 'NOT_FOUND':
      case 'BAD_REQUEST':
        return { done: { kind: 'not-found', message: reply.error.message } };
      case 'UNAVAILABLE':
      case 'INTERNAL':
        return { retry: `${reply.error.code}: ${reply.error.message}` };
      default:
        return { done: { kind: 'unavailable', reason: `${reply.error.code}: ${reply.error.message}` } };
    }
  }
}

/** `url|version` → the command's url and valueSetVersion (as the HTTP client's Parameters). */
export function valueSetCommand(query: ValidateCodeQuery, valueSet: string): ValidateValueSetCode {
  const bar = valueSet.indexOf('|');
  const url = bar < 0 ? valueSet : valueSet.slice(0, bar);
  const valueSetVersion = bar < 0 ? undefined : valueSet.slice(bar + 1) || undefined;
  return {
    url, code: query.code,
    ...(valueSetVersion ? { valueSetVersion } : {}),
    ...(query.system ? { system: query.system } : {}),
    ...(query.version ? { version: query.version } : {}),
    ...(query.display !== undefined ? { display: query.display } : {}),
  };
}

export function codeSystemCommand(query: ValidateCodeQuery): ValidateCodeSystemCode {
  return {
    url: query.system ?? '', code: query.code,
    ...(query.version ? { version: query.version } : {}),
    ...(query.display !== undefined ? { display: query.display } : {}),
  };
}

function backoffMs(baseMs: number, attempt: number): number {
  const delay = Math.min(2_000, baseMs * 2 ** (attempt - 1));
  return delay / 2 + Math.random() * (delay / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
