/**
 * An Attachment's own consistency, as the HL7 validator's checkAttachment: data that passes the
 * base64Binary check but does not decode, a stated size that differs from the data's, a stated
 * size without data that is not a whole number, and an attachment with nothing in it. A url is
 * never fetched (the HL7 validator only does that with network access), and no hash is compared
 * (the HL7 validator does not either).
 */
import { base64CountFits, base64DecodeProblem } from '../checks/primitives.js';
import type { NodeContext } from '../context/node-context.js';

/** Bytes that base64 text (whitespace removed, strictly valid) decodes to. */
function decodedLength(compact: string): number {
  const pad = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return (compact.length / 4) * 3 - pad;
}

export function checkAttachment(ctx: NodeContext, att: Record<string, unknown>): void {
  const data = att.data;
  const size = att.size;
  const sizeText = typeof size === 'number' || typeof size === 'string' ? String(size) : undefined;
  if (typeof data === 'string') {
    // linear: each whitespace run is removed in one step
    const compact = data.replace(/\s+/g, '');
    // data the base64Binary check rejected is reported there only
    if (!base64CountFits(compact)) return;
    const problem = base64DecodeProblem(compact);
    if (problem !== undefined) {
      ctx.error('TYPE_SPECIFIC_CHECKS_DT_ATT_DATA_INVALID', [problem]);
    } else if (sizeText !== undefined) {
      const actual = decodedLength(compact);
      if (String(actual) !== sizeText) ctx.error('TYPE_SPECIFIC_CHECKS_DT_ATT_SIZE_CORRECT', [sizeText, actual]);
    }
  } else if (sizeText !== undefined) {
    // linear: anchored, one optional sign and one digit run
    if (!/^-?\d+$/.test(sizeText)) ctx.error('TYPE_SPECIFIC_CHECKS_DT_ATT_SIZE_INVALID', [sizeText]);
    else if (sizeText.startsWith('-')) ctx.error('TYPE_SPECIFIC_CHECKS_DT_ATT_SIZE_INVALID', [sizeText]);
  }
  if (data === undefined && att._data === undefined && att.url === undefined && att.contentType === undefined && att.language === undefined) {
    ctx.warning('TYPE_SPECIFIC_CHECKS_DT_ATT_NO_CONTENT', []);
  }
}
