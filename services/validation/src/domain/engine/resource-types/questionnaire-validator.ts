/**
 * The HL7 validator's QuestionnaireValidator: a QuestionnaireResponse against its Questionnaire
 * (resource-types/questionnaire/response-items.ts and the answer modules beside it), and the
 * rules on a Questionnaire itself (questionnaire/questionnaire-rules.ts).
 *
 * The Questionnaire of a response: `#id` among the response's own contained resources (as HL7
 * loads it: one of another type is an error), else by canonical (`url` or `url|version`) among
 * the loaded resources. None named: information; not found: a warning (information for
 * example.org urls), and a canonical that names another kind of resource is an error besides. A response authored outside the Questionnaire's effectivePeriod
 * is warned about.
 */
import { ucumConverter } from '../checks/ucum.js';
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isObject } from '../json/json-value.js';
import { instantOf, type Obj } from './questionnaire/questionnaire-model.js';
import { checkQuestionnaire } from './questionnaire/questionnaire-rules.js';
import { ResponseItemsWalker } from './questionnaire/response-items.js';
import { ResponseScope } from './questionnaire/response-scope.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class QuestionnaireValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['Questionnaire', 'QuestionnaireResponse'];

  validate(ctx: NodeContext, resource: Record<string, unknown>): void {
    if (resource.resourceType === 'Questionnaire') checkQuestionnaire(ctx, resource);
    else this.validateResponse(ctx, ctx.nodeOf(resource), resource);
  }

  private validateResponse(ctx: NodeContext, qr: JsonNode, response: Obj): void {
    const url = qr.str('questionnaire');
    if (url === undefined || url === '') {
      qr.information('QR_QUESTIONNAIRE_NONE', []);
      return;
    }
    const found = this.findQuestionnaire(ctx, qr, url);
    if (!found) {
      this.reportNotFound(ctx, qr, url);
      return;
    }
    checkAuthored(qr, found.questionnaire);
    const scope = new ResponseScope(ctx, response, found.questionnaire, found.container, ucumConverter);
    new ResponseItemsWalker(scope).walk();
  }

  private findQuestionnaire(ctx: NodeContext, qr: JsonNode, url: string): { questionnaire: Obj; container?: Obj } | undefined {
    if (url.startsWith('#')) {
      const q = qr.listedObjects('contained').find((c) => c.str('id') === url.slice(1))?.object;
      if (q === undefined) return undefined;
      if (q.resourceType === 'Questionnaire') return { questionnaire: q, container: qr.object };
      qr.error('QR_CONTAINED_NOT_QUESTIONNAIRE', [url.slice(1), 'Questionnaire', String(q.resourceType)]);
      return undefined;
    }
    const q = ctx.services.resolve('Questionnaire', url) ?? fetchedNow(ctx, url);
    return isObject(q) && q.resourceType === 'Questionnaire' ? { questionnaire: q } : undefined;
  }

  private reportNotFound(ctx: NodeContext, qr: JsonNode, url: string): void {
    const named = qr.child('questionnaire');
    const source = ctx.services.source;
    const other = url.startsWith('#') ? undefined : source.valueSet(url) ?? source.codeSystem(url) ?? source.structureDefinition(url);
    if (other) named?.error('CANONICAL_WRONG_TYPE', [url, other.resourceType, 'Questionnaire']);
    const exampleUrl = url.startsWith('http://example.org') || url.startsWith('https://example.org');
    // named at the response (as HL7 names it), placed at the url
    ctx.report(exampleUrl ? 'information' : 'warning', 'QR_QUESTIONNAIRE_NOT_FOUND', [url], qr.path, named?.at);
  }
}

/**
 * What the fetcher knows of a Questionnaire the definitions do not (HL7's fetcher: the CLI's
 * supporting files, e.g. one named `Questionnaire/id`), when it answers at once; an answer that
 * would come later (a server) cannot drive the response's synchronous walk and is not waited for.
 */
function fetchedNow(ctx: NodeContext, url: string): unknown {
  try {
    const answer = ctx.run.options.fetcher?.fetch(url);
    if (!(answer instanceof Promise)) return answer;
    answer.catch(() => undefined); // not waited for: its failure is nobody's concern
    return undefined;
  } catch {
    return undefined;
  }
}

/** A response authored before the Questionnaire's effectivePeriod starts or after it ends: a warning. */
function checkAuthored(qr: JsonNode, q: Obj): void {
  const period = q.effectivePeriod;
  const authored = qr.child('authored');
  const text = authored?.string;
  if (!isObject(period) || authored === undefined || text === undefined) return;
  const instant = instantOf(text);
  if (instant === undefined) return;
  const end = typeof period.end === 'string' ? instantOf(period.end) : undefined;
  if (end !== undefined && instant > end) authored.warning('QR_AUTHORED_AFTER_END', [text, period.end]);
  const start = typeof period.start === 'string' ? instantOf(period.start) : undefined;
  if (start !== undefined && instant < start) authored.warning('QR_AUTHORED_BEFORE_START', [text, period.start]);
}
