/**
 * What the rules on one QuestionnaireResponse share: where to report (the resource's node
 * context), the Questionnaire and how it was found, whether the response is completed, and the
 * helpers the answer rules need (unit conversion, the source text of numbers).
 */
import type { UnitConverter } from '../../checks/ucum.js';
import type { NodeContext } from '../../context/node-context.js';
import type { JsonNode } from '../../json/json-node.js';
import type { MessageId } from '../../messages.js';
import type { IssueSeverity } from '../../outcome/issue.js';
import { objects, QuestionnaireIndex, type Obj } from './questionnaire-model.js';

export class ResponseScope {
  /** The Questionnaire's items by linkId. */
  readonly index: QuestionnaireIndex;
  /** The QuestionnaireResponse, where the walk stands. */
  readonly node: JsonNode;

  constructor(
    /** The walk at the QuestionnaireResponse. */
    readonly ctx: NodeContext,
    readonly response: Obj,
    readonly questionnaire: Obj,
    /** The response's `contained`, when the Questionnaire was found there (its `#` value sets are siblings). */
    readonly containedIn: Obj | undefined,
    readonly units: UnitConverter,
  ) {
    this.index = new QuestionnaireIndex(questionnaire);
    this.node = ctx.nodeOf(response);
  }

  /** HL7: any status but completed and amended downgrades a missing required answer to a warning. */
  get notCompleted(): boolean {
    return this.response.status !== 'completed' && this.response.status !== 'amended';
  }

  /**
   * Reports at `path`, placed where `at` stands: HL7 names many of the response's issues after the
   * level or item that holds the value (see response-items.ts), so the name and the node differ.
   */
  report(severity: IssueSeverity, id: MessageId, args: readonly unknown[], path: string, at: JsonNode | undefined): void {
    this.ctx.report(severity, id, args, path, at?.at);
  }

  error(id: MessageId, args: readonly unknown[], path: string, at: JsonNode | undefined): void {
    this.report('error', id, args, path, at);
  }

  /** The number as written in the source (`-5.12340`), when the input was JSON text. */
  rawNumber(owner: Obj, key: string): string | undefined {
    const locations = this.ctx.run.locations;
    const location = locations?.get(owner);
    return location && 'props' in location ? location.rawNumbers?.[key] : undefined;
  }

  /** A ValueSet an item names as `#id`: contained beside the Questionnaire (in the response), or in it. */
  containedValueSet(ref: string): Obj | undefined {
    if (!ref.startsWith('#')) return undefined;
    for (const holder of [this.containedIn, this.questionnaire]) {
      const vs = objects(holder?.contained).find((c) => c.resourceType === 'ValueSet' && c.id === ref.slice(1));
      if (vs) return vs;
    }
    return undefined;
  }
}
