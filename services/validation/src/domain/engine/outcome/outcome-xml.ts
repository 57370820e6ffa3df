/**
 * The engine's OperationOutcome as FHIR XML (for `Accept: application/fhir+xml`). The outcome has
 * a fixed shape (issue.ts), so it is written directly, in the element order of R4's
 * OperationOutcome: issue → extension, severity, code, details.text, diagnostics, location,
 * expression. Needs no definitions (the HTTP layer answers without the engine's plans).
 */
import { escapeXml } from '../xml/compose-xml.js';
import { FHIR_NS } from '../xml/located-xml.js';
import type { Issue, IssueExtension, ValidationOutcome } from './issue.js';

export function operationOutcomeXml(outcome: ValidationOutcome): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n', `<OperationOutcome xmlns="${FHIR_NS}">\n`];
  for (const issue of outcome.issue) writeIssue(out, issue);
  out.push('</OperationOutcome>\n');
  return out.join('');
}

const value = (name: string, v: string) => `<${name} value="${escapeXml(v)}"/>`;

function writeIssue(out: string[], issue: Issue): void {
  out.push('  <issue>\n');
  for (const e of issue.extension ?? []) out.push(`    <extension url="${escapeXml(e.url)}">${extensionValue(e)}</extension>\n`);
  out.push(`    ${value('severity', issue.severity)}\n`, `    ${value('code', issue.code)}\n`);
  out.push(`    <details>${value('text', issue.details.text)}</details>\n`);
  if (issue.diagnostics !== undefined) out.push(`    ${value('diagnostics', issue.diagnostics)}\n`);
  for (const l of issue.location ?? []) out.push(`    ${value('location', l)}\n`);
  for (const x of issue.expression ?? []) out.push(`    ${value('expression', x)}\n`);
  out.push('  </issue>\n');
}

function extensionValue(e: IssueExtension): string {
  if (e.valueInteger !== undefined) return value('valueInteger', String(e.valueInteger));
  if (e.valueCode !== undefined) return value('valueCode', e.valueCode);
  if (e.valueString !== undefined) return value('valueString', e.valueString);
  return '';
}
