/**
 * A Quantity's UCUM unit, as HL7's checkQuantity checks it: a code with the system
 * http://unitsofmeasure.org must be a UCUM unit (checked on the service's UCUM library, locally and
 * cached, whether or not the element has a binding: `mgg` is no unit), and a unit with an
 * annotation (`{beats}/min`) is a best-practice issue (TYPE_SPECIFIC_CHECKS_DT_QTY_NO_ANNOTATIONS).
 * The unknown-unit issue is worded as the terminology words it, so a binding that checks the same
 * code reports the same issue once.
 */
import type { NodeContext } from '../context/node-context.js';
import { checkUcumUnit } from '../../terminology/builtin/ucum.js';
import { formatTerminologyMessage } from '../../terminology/terminology-messages.js';

const UCUM = 'http://unitsofmeasure.org';

export function checkQuantityUnit(ctx: NodeContext, quantity: Record<string, unknown>): void {
  const { code, system } = quantity;
  if (system !== UCUM || typeof code !== 'string' || code === '') return;
  const verdict = checkUcumUnit(code);
  const run = ctx.run;
  if (!verdict.valid) {
    const text = `${formatTerminologyMessage('Unknown_Code_in', code, UCUM)} (${verdict.reason})`;
    const key = 'error\u0000' + ctx.path + '\u0000' + text;
    if (run.seen.has(key)) return;
    run.seen.add(key);
    run.errorCount++;
    if (!run.silent) run.pushIssue('error', { code: 'code-invalid', text, messageId: 'Unknown_Code_in' }, ctx.path, ctx.at);
    return;
  }
  const open = code.indexOf('{');
  const close = code.indexOf('}', open);
  const level = run.options.bestPractice;
  if (open >= 0 && close > open && level !== 'ignore') {
    ctx.report(level === 'hint' ? 'information' : level, 'TYPE_SPECIFIC_CHECKS_DT_QTY_NO_ANNOTATIONS', [code.slice(open, close + 1)], ctx.path, ctx.at);
  }
}
