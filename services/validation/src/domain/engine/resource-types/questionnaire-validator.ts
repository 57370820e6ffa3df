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
import { isArray, isObject } from '../json/json-value.js';
import { instantOf, type Obj } from './questionnaire/questionnaire-model.js';
import { checkQuestionnaire } from './questionnaire/questionnaire-rules.js';
import { ResponseItemsWalker } from './questionnaire/response-items.js';
import { ResponseScope } from './questionnaire/response-scope.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class QuestionnaireValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['Questionnaire', 'QuestionnaireResponse'];

  validate(ctx: NodeContext, resource: Record<string, unknown>): void {
    if (resource.resourceType === 'Questionnaire') checkQuestionnaire(ctx, resource);
    else this.validateResponse(ctx, resource);
  }

  private validateResponse(ctx: NodeContext, qr: Obj): void {
    const url = qr.questionnaire;
    if (typeof url !== 'string' || url === '') {
      ctx.information('QR_QUESTIONNAIRE_NONE', [], ctx.path, ctx.at);
      return;
    }
    const found = this.findQuestionnaire(ctx, qr, url);
    if (!found) {
      this.reportNotFound(ctx, qr, url);
      return;
    }
    checkAuthored(ctx, qr, found.questionnaire);
    const scope = new ResponseScope(ctx, qr, found.questionnaire, found.container, ucumConverter);
    new ResponseItemsWalker(scope).walk();
  }

  private findQuestionnaire(ctx: NodeContext, qr: Obj, url: string): { questionnaire: Obj; container?: Obj } | undefined {
    if (url.startsWith('#')) {
      const contained = isArray(qr.contained) ? qr.contained : [];
      const q = contained.find((c) => isObject(c) && c.id === url.slice(1));
      if (!isObject(q)) return undefined;
      if (q.resourceType === 'Questionnaire') return { questionnaire: q, container: qr };
      ctx.error('QR_CONTAINED_NOT_QUESTIONNAIRE', [url.slice(1), 'Questionnaire', String(q.resourceType)], ctx.path, ctx.at);
      return undefined;
    }
    const q = ctx.services.resolve('Questionnaire', url) ?? fetchedNow(ctx, url);
    return isObject(q) && q.resourceType === 'Questionnaire' ? { questionnaire: q } : undefined;
  }

  private reportNotFound(ctx: NodeContext, qr: Obj, url: string): void {
    const at = ctx.propPos(qr, 'questionnaire');
    const source = ctx.services.source;
    const other = url.startsWith('#') ? undefined : source.valueSet(url) ?? source.codeSystem(url) ?? source.structureDefinition(url);
    if (other) ctx.error('CANONICAL_WRONG_TYPE', [url, other.resourceType, 'Questionnaire'], `${ctx.path}.questionnaire`, at);
    const exampleUrl = url.startsWith('http://example.org') || url.startsWith('https://example.org');
    ctx.report(exampleUrl ? 'information' : 'warning', 'QR_QUESTIONNAIRE_NOT_FOUND', [url], ctx.path, at);
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
function checkAuthored(ctx: NodeContext, qr: Obj, q: Obj): void {
  const period = q.effectivePeriod;
  if (!isObject(period) || typeof qr.authored !== 'string') return;
  const authored = instantOf(qr.authored);
  if (authored === undefined) return;
  const path = `${ctx.path}.authored`;
  const at = ctx.propPos(qr, 'authored');
  const end = typeof period.end === 'string' ? instantOf(period.end) : undefined;
  if (end !== undefined && authored > end) ctx.warning('QR_AUTHORED_AFTER_END', [qr.authored, period.end], path, at);
  const start = typeof period.start === 'string' ? instantOf(period.start) : undefined;
  if (start !== undefined && authored < start) ctx.warning('QR_AUTHORED_BEFORE_START', [qr.authored, period.start], path, at);
}
