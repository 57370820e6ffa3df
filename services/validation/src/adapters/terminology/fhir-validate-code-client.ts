import type { Logger } from '#adapters/observability/logger.js';
import { createHttpClient, type AuthorizationSource, type HttpClient } from '#adapters/outbound-http/index.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { isArray, isObject } from '../../domain/engine/json/json-value.js';

/**
 * `$validate-code` against a FHIR terminology server (the ValidateValueSetCode and
 * ValidateCodeSystemCode commands): `POST [base]/ValueSet/$validate-code` or
 * `POST [base]/CodeSystem/$validate-code` with a FHIR Parameters body, reading `result`, `message`
 * and `display` from the Parameters it returns. Never throws: a server that cannot answer (down,
 * slow, 5xx after retries, circuit open) gives `unavailable`, so validation carries on.
 *
 * Whose credentials go with a call depends on the server: the platform terminology service gets the
 * caller's Authorization (`forwardCallerAuthorization`, header propagation between platform services);
 * an external server gets only this service's own `credentials`, never the caller's token.
 */
export interface ValidateCodeQuery {
  /** Value set canonical (`url` or `url|version`); absent for a code-system check. */
  valueSet?: string;
  system?: string;
  version?: string;
  code: string;
  display?: string;
  /** Authorization header of the incoming request; sent only to the platform terminology service. */
  authorization?: string;
}

export type ValidateCodeAnswer =
  | { kind: 'answer'; result: boolean; message?: string; display?: string }
  /** The server does not know the value set or code system (404, or 400/422 with an OperationOutcome). */
  | { kind: 'not-found'; message?: string }
  | { kind: 'unavailable'; reason: string };

export interface ValidateCodeRemote {
  readonly baseUrl: string;
  validateCode(query: ValidateCodeQuery): Promise<ValidateCodeAnswer>;
}

export interface FhirValidateCodeClientOptions {
  baseUrl: string;
  logger: Logger;
  /** Per attempt; default 5,000 ms. */
  timeoutMs?: number;
  /** Extra attempts on network errors, timeouts, 429 and 5xx; default 2. */
  retries?: number;
  /** First backoff delay, doubled per attempt (with jitter); default 200 ms. */
  retryBaseDelayMs?: number;
  circuitBreaker?: CircuitBreakerOptions;
  /** Send the caller's Authorization (the platform terminology service only); default false. */
  forwardCallerAuthorization?: boolean;
  /** This service's own credentials for the server (an external one); default none. */
  credentials?: AuthorizationSource;
  /** For tests; default the platform's outbound HTTP client. */
  http?: HttpClient;
}

interface FhirParameter {
  name: string;
  valueBoolean?: boolean;
  valueString?: string;
  valueUri?: string;
  valueCode?: string;
}

const FHIR_JSON = 'application/fhir+json';

export class FhirValidateCodeClient implements ValidateCodeRemote {
  readonly baseUrl: string;
  private readonly http: HttpClient;
  private readonly breaker: CircuitBreaker;
  private readonly logger: Logger;
  private readonly forwardCallerAuthorization: boolean;

  constructor(options: FhirValidateCodeClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.logger = options.logger;
    this.forwardCallerAuthorization = options.forwardCallerAuthorization ?? false;
    this.breaker = new CircuitBreaker(options.circuitBreaker);
    this.http = options.http ?? createHttpClient({
      baseUrl: this.baseUrl,
      timeoutMs: options.timeoutMs ?? 5_000,
      retries: options.retries ?? 2,
      retryBaseDelayMs: options.retryBaseDelayMs ?? 200,
      maxRetryDelayMs: 2_000,
      // $validate-code is a read in POST clothing: repeating it is harmless.
      retryNonIdempotent: true,
      propagateCallerAuthorization: this.forwardCallerAuthorization,
      credentials: options.credentials,
      logger: options.logger,
    });
  }

  get circuitState() {
    return this.breaker.state;
  }

  async validateCode(query: ValidateCodeQuery): Promise<ValidateCodeAnswer> {
    if (!this.breaker.tryAcquire()) return { kind: 'unavailable', reason: 'circuit open after repeated failures' };
    const path = query.valueSet ? 'ValueSet/$validate-code' : 'CodeSystem/$validate-code';
    const headers: Record<string, string> = { 'content-type': FHIR_JSON, accept: FHIR_JSON };
    // Worker threads have no request context: the caller's header travels in the query.
    if (this.forwardCallerAuthorization && query.authorization) headers.authorization = query.authorization;
    let answer: ValidateCodeAnswer;
    try {
      const response = await this.http.post<unknown>(path, parametersFor(query), { headers });
      answer = interpret(response.status, response.body);
    } catch (error) {
      answer = { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
    }
    if (answer.kind === 'unavailable') {
      this.breaker.recordFailure();
      this.logger.warn({ terminologyServer: this.baseUrl, reason: answer.reason, circuit: this.breaker.state }, 'terminology server could not answer $validate-code');
    } else {
      this.breaker.recordSuccess();
    }
    return answer;
  }
}

export function parametersFor(query: ValidateCodeQuery): { resourceType: 'Parameters'; parameter: FhirParameter[] } {
  const parameter: FhirParameter[] = [];
  if (query.valueSet) {
    const [url, version] = splitCanonical(query.valueSet);
    parameter.push({ name: 'url', valueUri: url });
    if (version) parameter.push({ name: 'valueSetVersion', valueString: version });
    parameter.push({ name: 'code', valueCode: query.code });
    if (query.system) parameter.push({ name: 'system', valueUri: query.system });
    if (query.version) parameter.push({ name: 'systemVersion', valueString: query.version });
  } else {
    parameter.push({ name: 'url', valueUri: query.system ?? '' });
    parameter.push({ name: 'code', valueCode: query.code });
    if (query.version) parameter.push({ name: 'version', valueString: query.version });
  }
  if (query.display !== undefined) parameter.push({ name: 'display', valueString: query.display });
  return { resourceType: 'Parameters', parameter };
}

function splitCanonical(canonical: string): [string, string | undefined] {
  const bar = canonical.indexOf('|');
  return bar < 0 ? [canonical, undefined] : [canonical.slice(0, bar), canonical.slice(bar + 1) || undefined];
}

function interpret(status: number, body: unknown): ValidateCodeAnswer {
  const resource = typeof body === 'string' ? safeParse(body) : body;
  if (status >= 200 && status < 300) {
    const parameters = isObject(resource) && resource.resourceType === 'Parameters' && isArray(resource.parameter) ? resource.parameter.filter(isObject) : [];
    const parameter = (name: string) => parameters.find((p) => p.name === name);
    const result = parameter('result')?.valueBoolean;
    if (typeof result !== 'boolean') return { kind: 'unavailable', reason: `the answer (HTTP ${status}) has no boolean 'result' parameter` };
    const text = (name: string) => {
      const value = parameter(name)?.valueString;
      return typeof value === 'string' ? value : undefined;
    };
    return { kind: 'answer', result, message: text('message'), display: text('display') };
  }
  if (status === 404 || status === 400 || status === 422) return { kind: 'not-found', message: outcomeText(resource) };
  return { kind: 'unavailable', reason: `HTTP ${status}${outcomeText(resource) ? `: ${outcomeText(resource)}` : ''}` };
}

function outcomeText(resource: unknown): string | undefined {
  if (!isObject(resource) || resource.resourceType !== 'OperationOutcome') return undefined;
  const issues = isArray(resource.issue) ? resource.issue.filter(isObject) : [];
  const texts = issues.map((issue) => (isObject(issue.details) ? issue.details.text : undefined) ?? issue.diagnostics).filter((t): t is string => typeof t === 'string');
  return texts.length > 0 ? texts.join('; ') : undefined;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
