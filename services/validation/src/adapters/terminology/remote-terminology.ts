import { bindingResult, effectiveElementKind, hasCode, requestCodings, type CodingVerdict } from '../../domain/terminology/binding-outcome.js';
import { codeSystemResult, type CodeSystemVerdict, type LocalTerminology } from '../../domain/terminology/local-terminology.js';
import { formatTerminologyMessage } from '../../domain/terminology/terminology-messages.js';
import type {
  CodingInput, TerminologyIssue, TerminologyPort, ValidateCodeRequest, ValidateCodeResult,
} from '../../domain/ports/terminology.js';
import type { ValidateCodeAnswer, ValidateCodeQuery, ValidateCodeRemote } from './fhir-validate-code-client.js';
import { TerminologyMetrics } from './terminology-metrics.js';
import { validateCodeCacheKey, type CachedValidateCode, type ValidateCodeCache, type ValidateCodeTuple } from './validate-code-cache.js';

/**
 * Terminology with a remote FHIR terminology server behind local terminology.
 *
 * What is still answered locally, without a network call (the README's terminology section says the same):
 * - a value set held locally whose expansion is complete: every include resolved from code
 *   systems held with content `complete`, from explicit concept lists (LOINC lists included), or
 *   from the built-in code systems (BCP-47 with its tag-part filters, BCP-13, UCUM, ISO 3166) —
 *   e.g. all R4 core required bindings, the NHSN encounter class/status value sets;
 * - within a value set that is not complete (say one include filters LOINC), each coding whose
 *   membership is nevertheless certain (listed explicitly, or from a fully held code system);
 * - a code-system check (no value set) for a code system held complete or built in.
 * Everything else — LOINC/SNOMED/RxNorm filters, whole large systems, value sets not held here —
 * goes to the server with one `$validate-code` per coding, through the validate-code cache
 * (answers already in its in-process near cache are returned synchronously).
 */
export interface RemoteTerminologyOptions {
  local: LocalTerminology;
  remote: ValidateCodeRemote;
  cache?: ValidateCodeCache;
  metrics?: TerminologyMetrics;
  /**
   * terminology.unavailable-severity: the severity of the issue a coding gets when the server could
   * not answer (down, timing out, circuit open). Default warning: the submission is reported as not
   * fully checked but stays valid; error fails it closed.
   */
  unavailableSeverity?: UnavailableSeverity;
}

export const UNAVAILABLE_SEVERITIES = ['warning', 'error'] as const;
export type UnavailableSeverity = (typeof UNAVAILABLE_SEVERITIES)[number];

type Sources = Set<'local' | 'cache' | 'remote'>;

/** One coding's way to a verdict: known already, or a question for the cache / server. */
type Step<V> = { verdict: V } | { query: ValidateCodeQuery; toVerdict: (answer: ValidateCodeAnswer) => V };

function answerOf(cached: CachedValidateCode): ValidateCodeAnswer {
  if (cached.notFound) return { kind: 'not-found', message: cached.message };
  return { kind: 'answer', result: cached.result, message: cached.message, display: cached.display };
}

function tupleOf(query: ValidateCodeQuery): ValidateCodeTuple {
  return {
    codeSystem: query.system && query.version ? `${query.system}|${query.version}` : query.system,
    code: query.code, display: query.display, valueSetUrl: query.valueSet,
  };
}

export class RemoteTerminology implements TerminologyPort {
  readonly metrics: TerminologyMetrics;
  private readonly local: LocalTerminology;
  private readonly remote: ValidateCodeRemote;
  private readonly cache?: ValidateCodeCache;
  /** Identical tuples asked concurrently (one bundle, many resources) share one server call. */
  private readonly inFlight = new Map<string, Promise<ValidateCodeAnswer>>();
  private readonly unavailableSeverity: UnavailableSeverity;

  constructor(options: RemoteTerminologyOptions) {
    this.unavailableSeverity = options.unavailableSeverity ?? 'warning';
    this.local = options.local;
    this.remote = options.remote;
    this.cache = options.cache;
    this.metrics = options.metrics ?? new TerminologyMetrics();
  }

  validateCode(request: ValidateCodeRequest): ValidateCodeResult | Promise<ValidateCodeResult> {
    const malformedValueSet = request.valueSet !== undefined && (typeof request.valueSet !== 'string' || request.valueSet === '');
    if (malformedValueSet || this.local.answersCompletely(request)) {
      this.metrics.answeredLocally();
      return this.local.validateCode(request);
    }
    const sources: Sources = new Set();
    if (request.valueSet) {
      const valueSet = request.valueSet;
      const resolved = this.local.resolveValueSet(valueSet);
      const steps = this.valueSetSteps(request, valueSet, resolved !== undefined, sources);
      const finish = (verdicts: CodingVerdict[]) => {
        const result = bindingResult(request, resolved?.label ?? valueSet, verdicts, sourceOf(sources));
        result.issues = withoutDuplicates(result.issues);
        return result;
      };
      const known = this.fromNearCache(steps, sources);
      return known ? finish(known) : this.answerAll(steps, sources).then(finish);
    }
    const steps = this.codeSystemSteps(request, sources);
    const known = this.fromNearCache(steps, sources);
    return known ? codeSystemResult(known, sourceOf(sources)) : this.answerAll(steps, sources).then((verdicts) => codeSystemResult(verdicts, sourceOf(sources)));
  }

  isMemberOf(coding: CodingInput, valueSet: string): boolean | undefined {
    return this.local.isMemberOf(coding, valueSet);
  }

  /** Per coding: a verdict local terminology can give, or the $validate-code question to ask. */
  private valueSetSteps(request: ValidateCodeRequest, valueSet: string, held: boolean, sources: Sources): Array<Step<CodingVerdict>> {
    const kind = effectiveElementKind(request);
    const codes = held ? this.local.resolveValueSet(valueSet)?.codes : undefined;
    return requestCodings(request).filter(hasCode).map((coding): Step<CodingVerdict> => {
      if (codes) {
        const local = this.local.verdictInValueSet(codes, coding, kind === 'code', request.displayLanguage);
        if (local.membership !== 'unknown' || (!coding.system && kind !== 'code')) {
          sources.add('local');
          return { verdict: local };
        }
      } else if (!coding.system && kind !== 'code') {
        sources.add('local');
        return { verdict: { coding, membership: 'unknown', issues: this.local.checkCoding(coding, request.displayLanguage, 'binding').issues } };
      }
      return {
        query: { valueSet, system: coding.system, version: coding.version, code: coding.code, display: coding.display, authorization: request.authorization },
        toVerdict: (answer) => membershipVerdict(coding, answer, valueSet, this.unavailableSeverity),
      };
    });
  }

  private codeSystemSteps(request: ValidateCodeRequest, sources: Sources): Array<Step<Pick<CodeSystemVerdict, 'status' | 'issues' | 'display'>>> {
    return requestCodings(request).filter(hasCode).map((coding) => {
      if (!coding.system || this.local.answersCompletely({ coding })) {
        sources.add('local');
        return { verdict: this.local.checkCoding(coding, request.displayLanguage) };
      }
      return {
        query: { system: coding.system, version: coding.version, code: coding.code, display: coding.display, authorization: request.authorization },
        toVerdict: (answer: ValidateCodeAnswer) => codeSystemVerdict(coding, answer, this.unavailableSeverity),
      };
    });
  }

  /** Every step answered without waiting (local, or the near cache), else undefined. */
  private fromNearCache<V>(steps: Array<Step<V>>, sources: Sources): V[] | undefined {
    if (steps.some((step) => 'query' in step) && !this.cache?.hasNearCache) return undefined;
    const verdicts: V[] = [];
    for (const step of steps) {
      if ('verdict' in step) {
        verdicts.push(step.verdict);
        continue;
      }
      const cached = this.cache?.peek(tupleOf(step.query));
      if (!cached) return undefined;
      this.metrics.cacheHit();
      verdicts.push(step.toVerdict(answerOf(cached)));
    }
    if (verdicts.length !== steps.length) return undefined;
    if (steps.some((step) => 'query' in step)) sources.add('cache');
    return verdicts;
  }

  private answerAll<V>(steps: Array<Step<V>>, sources: Sources): Promise<V[]> {
    return Promise.all(steps.map(async (step) => ('verdict' in step ? step.verdict : step.toVerdict(await this.ask(step.query, sources)))));
  }

  /** One tuple: the cache first, then the server (sharing a call already in flight); definite answers are cached. */
  private async ask(query: ValidateCodeQuery, sources: Sources): Promise<ValidateCodeAnswer> {
    const tuple = tupleOf(query);
    const cached = await this.cache?.get(tuple);
    if (cached) {
      this.metrics.cacheHit();
      sources.add('cache');
      return answerOf(cached);
    }
    this.metrics.cacheMiss();
    sources.add('remote');
    const key = validateCodeCacheKey(tuple);
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.callServer(query, tuple).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async callServer(query: ValidateCodeQuery, tuple: ValidateCodeTuple): Promise<ValidateCodeAnswer> {
    const answer = await this.remote.validateCode(query);
    this.metrics.remoteCall(answer.kind !== 'unavailable');
    if (answer.kind === 'answer' && this.cache) {
      await this.cache.set(tuple, { result: answer.result, message: answer.message, display: answer.display });
    } else if (answer.kind === 'not-found' && this.cache) {
      await this.cache.set(tuple, { result: false, message: answer.message, notFound: true });
    }
    return answer;
  }
}

function sourceOf(sources: Sources): ValidateCodeResult['source'] {
  if (sources.has('remote')) return 'remote';
  if (sources.has('cache')) return 'cache';
  return 'local';
}

function membershipVerdict(coding: CodingInput, answer: ValidateCodeAnswer, valueSet: string, unavailableSeverity: UnavailableSeverity): CodingVerdict {
  switch (answer.kind) {
    case 'answer': {
      const issues: TerminologyIssue[] = [];
      // With result=true the message carries the server's remarks (typically a wrong display).
      if (answer.message) issues.push(passThrough(answer.result ? 'warning' : 'information', answer.message, coding));
      return { coding, membership: answer.result ? 'member' : 'not-member', display: answer.display, issues };
    }
    case 'not-found':
      return {
        coding, membership: 'unknown',
        issues: [{ severity: 'warning', code: 'not-found', messageId: 'Terminology_TX_ValueSet_NotFound', text: formatTerminologyMessage('Terminology_TX_ValueSet_NotFound', valueSet) }],
      };
    case 'unavailable':
      return { coding, membership: 'unknown', issues: [unavailable(coding, unavailableSeverity)] };
  }
}

function codeSystemVerdict(coding: CodingInput, answer: ValidateCodeAnswer, unavailableSeverity: UnavailableSeverity): Pick<CodeSystemVerdict, 'status' | 'issues' | 'display'> {
  switch (answer.kind) {
    case 'answer': {
      if (answer.result) {
        return { status: 'valid', display: answer.display, issues: answer.message ? [passThrough('warning', answer.message, coding)] : [] };
      }
      const text = answer.message
        ? formatTerminologyMessage('Terminology_PassThrough_TX_Message', answer.message, coding.system, coding.code)
        : formatTerminologyMessage('Unknown_Code_in', coding.code, coding.system);
      return { status: 'invalid', issues: [{ severity: 'error', code: 'code-invalid', messageId: answer.message ? 'Terminology_PassThrough_TX_Message' : 'Unknown_Code_in', text }] };
    }
    case 'not-found':
      return {
        status: 'unknown',
        issues: [{ severity: 'warning', code: 'not-found', messageId: 'Terminology_TX_System_Unknown', text: formatTerminologyMessage('Terminology_TX_System_Unknown', coding.system) }],
      };
    case 'unavailable':
      return { status: 'unknown', issues: [unavailable(coding, unavailableSeverity)] };
  }
}

function passThrough(severity: TerminologyIssue['severity'], message: string, coding: CodingInput): TerminologyIssue {
  return {
    severity, code: severity === 'warning' ? 'invalid' : 'informational', messageId: 'Terminology_PassThrough_TX_Message',
    text: formatTerminologyMessage('Terminology_PassThrough_TX_Message', message, coding.system, coding.code),
  };
}

/**
 * The coding the server could not answer for (down, timing out, 5xx, circuit open): the submission
 * was not fully checked, and its outcome says so. The transport's reason stays out of the text: it
 * names the internal server (its URL, host and port), which a facility reading the outcome must not
 * see; the service's log has it (`terminology server could not answer`), with the circuit's state.
 */
function unavailable(coding: CodingInput, severity: UnavailableSeverity): TerminologyIssue {
  return {
    severity, code: 'exception', messageId: 'Terminology_TX_Error_Coding2',
    text: formatTerminologyMessage('Terminology_TX_Error_Coding2', '(terminology server unavailable)',
      `the terminology server could not be reached, so the code ${coding.system ?? ''}#${coding.code ?? ''} could not be validated; `
      + 'the submission is not fully checked (validate it again once the terminology server is back)'),
  };
}

function withoutDuplicates(issues: TerminologyIssue[]): TerminologyIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.severity}|${issue.messageId}|${issue.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
