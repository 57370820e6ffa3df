/**
 * The system and code of a Coding that stands on its own (not inside a CodeableConcept: meta.tag,
 * meta.security, an extension's valueCoding, Encounter.class) and of a Quantity, as HL7's
 * checkCoding → checkCodedElement → checkCode check them on the structural walk:
 *
 * - a Coding with a code and no system: a warning (TERMINOLOGY_TX_SYSTEM_NO_CODE);
 * - with both, unless the element's binding checks the code (a value set, strength other than
 *   example: rules/bindings.ts): the system must be an absolute URI (http:, https:, urn:) and not a
 *   value set's URL; then the code is checked against its code system by the terminology (unknown
 *   code, wrong display), when the terminology knows the system;
 * - a system the terminology does not know: build.fhir.org and HTML page URLs are errors, as is an
 *   unknown system in HL7's space (hl7.org/fhir, except its sid/ and test/ URLs), a URL that extends
 *   SNOMED CT's, LOINC's, UCUM's or RxNorm's, and the https: form of a known http: system; any other
 *   unknown system is information (the code cannot be validated).
 *
 * A Quantity's UCUM unit is checked by quantity-units.ts.
 */
import { UCUM } from '../../terminology/builtin/builtin-code-systems.js';
import type { ValidateCodeResult } from '../../ports/terminology.js';
import type { NodeContext } from '../context/node-context.js';
import { formatTerminologyMessage } from '../../terminology/terminology-messages.js';
import { displayLanguage, pushTerminologyIssues, UNKNOWN_SYSTEM_IDS } from './bindings.js';

/** Systems whose `https:` form is a known mistake, whether or not the terminology holds the http: one. */
const NO_HTTPS = new Set(['https://loinc.org', 'https://unitsofmeasure.org', 'https://snomed.info/sct', 'https://www.nlm.nih.gov/research/umls/rxnorm']);
/** Systems a longer URL must not merely extend (`http://snomed.info/sct/900000000000207008` names an edition, not the system). */
const NOT_TO_EXTEND = ['http://snomed.info/sct', 'http://loinc.org', 'http://unitsofmeasure.org', 'http://www.nlm.nih.gov/research/umls/rxnorm'];
const UNDETERMINED = '{unable to determine intended url}';

/** A Coding (`kind` Coding, not inside a CodeableConcept) or a Quantity value `v` at ctx (structural walk). */
export function checkCodedValue(ctx: NodeContext, kind: 'Coding' | 'Quantity', v: Record<string, unknown>): void {
  const system = typeof v.system === 'string' && v.system !== '' ? v.system : undefined;
  const code = typeof v.code === 'string' && v.code !== '' ? v.code : undefined;
  if (kind === 'Coding' && code !== undefined && system === undefined) ctx.report('warning', 'TERMINOLOGY_TX_SYSTEM_NO_CODE', [], ctx.path, ctx.at);
  if (system === undefined || code === undefined) return;
  const binding = ctx.element.binding;
  if (binding?.valueSet !== undefined && binding.strength !== 'example') return;
  if (!(system.startsWith('http:') || system.startsWith('https:') || system.startsWith('urn:'))) {
    ctx.report('error', 'Terminology_TX_System_Relative', [], ctx.path, ctx.at);
    return;
  }
  if (ctx.services.source.valueSet(system) !== undefined) {
    ctx.report('error', 'Terminology_TX_System_ValueSet2', [system], ctx.path, ctx.at);
    return;
  }
  if (kind === 'Quantity' && system === UCUM) return;
  const run = ctx.run;
  const display = kind === 'Coding' && typeof v.display === 'string' ? v.display : undefined;
  const version = typeof v.version === 'string' ? v.version : undefined;
  let answer: ValidateCodeResult | Promise<ValidateCodeResult>;
  try {
    answer = ctx.services.terminology.validateCode({
      coding: { system, code, ...(display === undefined ? {} : { display }), ...(version === undefined ? {} : { version }) },
      elementKind: kind, authorization: run.authorization, displayLanguage: displayLanguage(ctx),
    });
  } catch {
    return; // a terminology that fails says nothing about the system's form: the rules below need its answer
  }
  const conclude = (r: ValidateCodeResult): void => {
    // the terminology does not know the system: HL7's rules for such systems apply instead of its answer
    if (r.issues.some((i) => UNKNOWN_SYSTEM_IDS.has(i.messageId))) unknownSystem(ctx, system);
    else pushTerminologyIssues(ctx, r.issues);
  };
  if (answer instanceof Promise) run.pending.push(answer.then(conclude, () => undefined));
  else conclude(answer);
}

/** HL7's checkCode for a system its terminology does not support. */
function unknownSystem(ctx: NodeContext, system: string): void {
  const source = ctx.services.source;
  if (system.startsWith('http://build.fhir.org') || system.startsWith('https://build.fhir.org')) {
    ctx.report('error', 'TERMINOLOGY_TX_SYSTEM_WRONG_BUILD', [system, suggestedForBuild(ctx, system)], ctx.path, ctx.at);
  } else if (isHl7Space(system)) {
    if (system.startsWith('http://hl7.org/fhir/sid/') || system.startsWith('http://hl7.org/fhir/test')) return;
    if (system.endsWith('.html')) ctx.report('error', 'TERMINOLOGY_TX_SYSTEM_WRONG_HTML', [system, suggestedForPage(ctx, system)], ctx.path, ctx.at);
    else pushTerminologyIssues(ctx, [{ severity: 'error', code: 'code-invalid', messageId: 'Terminology_TX_System_Unknown', text: formatTerminologyMessage('Terminology_TX_System_Unknown', system) }]);
  } else if (NOT_TO_EXTEND.some((s) => system !== s && system.startsWith(s))) {
    ctx.report('error', 'Terminology_TX_System_Invalid', [system], ctx.path, ctx.at);
  } else if (system.startsWith('https:') && system.length > 7 && (NO_HTTPS.has(system) || source.codeSystem('http:' + system.slice(6)) !== undefined)) {
    ctx.report('error', 'TERMINOLOGY_TX_SYSTEM_HTTPS', [system], ctx.path, ctx.at);
  } else if (!(ctx.run.options.allowExampleUrls && (system.startsWith('http://example.org') || system.startsWith('https://example.org')))) {
    pushTerminologyIssues(ctx, [{ severity: 'information', code: 'not-found', messageId: 'Terminology_TX_System_NotKnown', text: formatTerminologyMessage('Terminology_TX_System_NotKnown', system) }]);
  }
}

function isHl7Space(system: string): boolean {
  return system.startsWith('http://hl7.org/fhir') || system.startsWith('https://hl7.org/fhir') || system.startsWith('http://www.hl7.org/fhir') || system.startsWith('https://www.hl7.org/fhir');
}

/** The code system a page URL (`…/codesystem-x.html`, `…/valueset-x.html`) was meant to name, when one is held. */
function suggestedForPage(ctx: NodeContext, system: string): string {
  for (const marker of ['/codesystem-', '/valueset-']) {
    const at = system.indexOf(marker);
    if (at < 0) continue;
    // HL7 skips 8 characters after '/valueset-' (a slip it makes; the suggestion is then rarely found)
    const url = 'http://hl7.org/fhir/' + system.slice(at + (marker === '/codesystem-' ? 12 : 8)).replace('.html', '');
    return ctx.services.source.codeSystem(url) !== undefined ? url : UNDETERMINED;
  }
  return UNDETERMINED;
}

/** The code system a build.fhir.org URL was meant to name, when one is held. */
function suggestedForBuild(ctx: NodeContext, system: string): string {
  if (system.includes('/codesystem-') || system.includes('/valueset-')) return suggestedForPage(ctx, system);
  const http = system.replace('https://', 'http://');
  if (http.length < 22) return UNDETERMINED;
  const url = 'http://hl7.org/fhir/' + http.slice(22).replace('.html', '');
  return ctx.services.source.codeSystem(url) !== undefined ? url : UNDETERMINED;
}
