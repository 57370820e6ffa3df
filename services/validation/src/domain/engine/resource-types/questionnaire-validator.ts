/**
 * QuestionnaireResponse against its Questionnaire (contained, or loaded by canonical): the
 * answers are checked by checks/questionnaire-response.ts. Named, as in the HL7 validator,
 * after the Questionnaire whose rules it applies.
 */
import { checkQuestionnaireResponse } from '../checks/questionnaire-response.js';
import { ucumConverter } from '../checks/ucum.js';
import type { NodeContext } from '../context/node-context.js';
import type { ObjectLocation } from '../json/located-json.js';
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';

export class QuestionnaireValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['QuestionnaireResponse'];

  validate(ctx: NodeContext, qr: Record<string, unknown>): void {
    const url = qr.questionnaire;
    if (typeof url !== 'string') return;
    let questionnaire: unknown;
    if (url.startsWith('#')) {
      const contained = ctx.host.root.contained;
      questionnaire = Array.isArray(contained) ? contained.find((c) => isObject(c) && c.id === url.slice(1)) : undefined;
    } else {
      questionnaire = ctx.services.resolve('Questionnaire', url);
    }
    if (!isObject(questionnaire) || questionnaire.resourceType !== 'Questionnaire') {
      const source = ctx.services.source;
      const other = source.valueSet(url) ?? source.codeSystem(url) ?? source.structureDefinition(url);
      if (other) ctx.error('CANONICAL_WRONG_TYPE', [url, other.resourceType, 'Questionnaire'], `${ctx.path}.questionnaire`, ctx.propPos(qr, 'questionnaire'));
      else ctx.warning('QR_QUESTIONNAIRE_NOT_FOUND', [url], `${ctx.path}.questionnaire`, ctx.propPos(qr, 'questionnaire'));
      return;
    }
    const locations = ctx.run.locations;
    const rawOf = (answer: Record<string, unknown>, key: string) => (locations?.get(answer) as ObjectLocation | undefined)?.rawNumbers?.[key];
    for (const p of checkQuestionnaireResponse(qr, questionnaire, ctx.path, ucumConverter, rawOf)) ctx.report(p.severity, p.id, p.args, p.path, undefined);
  }
}
