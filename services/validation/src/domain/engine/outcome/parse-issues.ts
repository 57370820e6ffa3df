/** Problems the JSON and XML readers found, reported as issues (located at the reader's line and column). */
import type { ValidationRun } from '../context/validation-run.js';
import type { JsonParseIssue } from '../json/located-json.js';
import type { XmlParseIssue } from '../xml/located-xml.js';

/** The XML reader words and locates its issues as the HL7 validator does. */
export function reportXmlParseIssue(run: ValidationRun, pi: XmlParseIssue): void {
  run.report(pi.severity, pi.messageId, pi.args, pi.expression, { line: pi.line, col: pi.col });
}

export function reportParseIssue(run: ValidationRun, pi: JsonParseIssue, rootType: string): void {
  const path = pi.path.length === 0 ? rootType : rootType + pi.path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
  const at = { line: pi.line, col: pi.col };
  switch (pi.kind) {
    case 'comment': return run.report('error', 'JSON_COMMENTS_NOT_ALLOWED', [], path, at);
    case 'missing-comma': return run.report('error', 'JSON_COMMA_MISSING', [], path, at);
    // the HL7 validator accepts a missing comma between array items silently; we warn
    case 'missing-comma-in-array': return run.report('warning', 'JSON_COMMA_MISSING', [], path, at);
    case 'trailing-comma': return run.report('error', pi.message.includes('Array') ? 'JSON_COMMA_EXTRA_ARRAY' : 'JSON_COMMA_EXTRA_OBJECT', [], path, at);
    case 'duplicate-property': return run.report('error', 'DUPLICATE_JSON_PROPERTY', [pi.args?.[0] ?? ''], path, at);
    // unquoted names (JSON5): read, and reported as the HL7 validator does (values: by the walker)
    case 'unquoted-name': return run.report('error', 'JSON_PROPERTY_NO_QUOTES', [pi.args?.[0] ?? ''], path, at);
    case 'too-deep': return run.report('fatal', 'JSON_TOO_DEEP', [pi.message], '', at);
    case 'too-large': return run.report('fatal', 'JSON_TOO_LARGE', [pi.message], '', at);
    default: return run.report('fatal', 'JSON_PARSE_ERROR', [`Error parsing JSON source: ${pi.message} (line ${pi.line}, column ${pi.col})`], '', at);
  }
}
