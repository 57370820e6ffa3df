/**
 * The HL7 validator's CodeSystemValidator, for what needs no terminology server: the content
 * mode and the elements that go with it (a supplement says what it supplements and states no
 * caseSensitive; other code systems state content, caseSensitive and, with a hierarchy,
 * hierarchyMeaning), the stated count against the concepts, no concepts when content is
 * not-present, the "all codes" value set, a supplement's codes against its loaded base, unique
 * codes, designations that differ from the display, and the property definitions and values
 * (terminology/code-system-properties.ts).
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { isObject } from '../json/json-value.js';
import type { MessageId } from '../messages.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { checkConceptProperties, checkPropertyDefinitions } from './terminology/code-system-properties.js';
import { codeSet, countConcepts, hasCode, objects, str } from './terminology/code-system-model.js';

export class CodeSystemValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['CodeSystem'];

  validate(ctx: NodeContext, cs: Record<string, unknown>): void {
    const node = ctx.nodeOf(cs);
    const count = countConcepts(cs);
    checkMetadata(ctx, node, count);
    checkAllCodesValueSet(ctx, node, count);
    checkSupplement(ctx, node);
    const contained = ctx.host.resource !== ctx.host.root;
    if (contained) {
      // a contained CodeSystem is expected only in a Questionnaire, or a supplement's CodeSystem
      const rootType = ctx.host.root.resourceType;
      if (rootType !== 'Questionnaire' && rootType !== 'CodeSystem') node.information('CODESYSTEM_NOT_CONTAINED', []);
    }
    const defs = checkPropertyDefinitions(node);
    const codes = new Set<string>();
    checkConcepts(node, node, { codes, display: false, definition: false });
    checkConceptProperties(node, defs, codes);
  }
}

function checkMetadata(ctx: NodeContext, cs: JsonNode, count: number): void {
  const url = cs.str('url');
  const content = cs.str('content');
  const supp = cs.str('supplements');
  const concepts = cs.objects('concept');
  if (supp !== undefined && supp !== '') {
    // reported at content whether it is there or not
    if (content !== 'supplement') ctx.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL_WRONG', [], `${cs.path}.content`, cs.child('content')?.at);
    cs.child('caseSensitive')?.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL', ['caseSensitive']);
  } else {
    const hl7 = url !== undefined && (url.includes('hl7.org') || url.includes('fhir.org'));
    if (content === undefined || content === '') {
      if (hl7) cs.error('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHALL', ['content']);
      else cs.warning('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['content']);
    } else if (content === 'supplement') {
      cs.child('content')?.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL_MISSING', []);
    }
    if (cs.child('caseSensitive') === undefined) {
      if (hl7) cs.warning('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHOULD', ['caseSensitive']);
      else cs.information('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['caseSensitive']);
    }
    if (cs.child('hierarchyMeaning') === undefined && concepts.some((c) => c.objects('concept').length > 0)) {
      if (hl7) cs.warning('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHOULD', ['hierarchyMeaning']);
      else cs.information('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['hierarchyMeaning']);
    }
  }
  if (count === 0 && content === 'complete') cs.warning('CODESYSTEM_CS_COMPLETE_AND_EMPTY', []);
  const countNode = cs.child('count');
  const stated = countNode?.value;
  if (countNode !== undefined && typeof stated === 'number' && Number.isInteger(stated) && stated > -1 && content !== undefined) {
    switch (content) {
      case 'complete':
        if (count !== stated) countNode.error('CODESYSTEM_CS_COUNT_COMPLETE_WRONG', [count, stated]);
        break;
      case 'example':
      case 'fragment':
        if (count >= stated) countNode.warning('CODESYSTEM_CS_COUNT_FRAGMENT_WRONG', [count, stated]);
        break;
      case 'not-present':
        if (concepts.length > 0 && stated <= 0) cs.child('concept')?.information('CODESYSTEM_CS_COUNT_NOTPRESENT_ZERO', [stated]);
        break;
      case 'supplement': {
        const base = supp ? ctx.services.source.codeSystem(supp) : undefined;
        if (base) {
          const baseCount = typeof base.count === 'number' ? base.count : 0;
          if (count !== baseCount) countNode.error('CODESYSTEM_CS_COUNT_SUPPLEMENT_WRONG', [baseCount, stated]);
        }
        break;
      }
      default:
        break;
    }
  }
  if (content === 'not-present') concepts[0]?.error('CODESYSTEM_CS_COUNT_NO_CONTENT_ALLOWED', []);
}

/**
 * CodeSystem.valueSet, the "all codes" value set: one include of this system, nothing more.
 * (Reported at the CodeSystem's location, as HL7 does, with the position of its valueSet.)
 */
function checkAllCodesValueSet(ctx: NodeContext, cs: JsonNode, count: number): void {
  const vsUrl = cs.str('valueSet');
  if (vsUrl === undefined || vsUrl === '') return;
  const url = cs.str('url');
  const content = cs.str('content');
  const at = cs.child('valueSet')?.at;
  const report = (severity: 'error' | 'warning' | 'information', id: MessageId, args: readonly unknown[]) => {
    ctx.report(severity, id, args, cs.path, at);
  };
  const source = ctx.services.source;
  if (content === 'supplement') {
    const supplements = cs.str('supplements');
    const base = supplements ? source.codeSystem(supplements) : undefined;
    if (base) {
      if (typeof base.valueSet === 'string') {
        if (base.valueSet !== vsUrl) report('warning', 'CODESYSTEM_CS_NO_VS_SUPPLEMENT2', [base.valueSet]);
      } else {
        report('warning', 'CODESYSTEM_CS_NO_VS_SUPPLEMENT1', []);
      }
    } else {
      report('warning', 'CODESYSTEM_CS_NO_VS_NOTCOMPLETE', []);
    }
  } else if (content !== 'complete') {
    report('information', 'CODESYSTEM_CS_NO_VS_NOTCOMPLETE', []);
  }
  // the value set is a loaded definition, read as raw JSON
  const vs = source.valueSet(vsUrl);
  if (!vs) return;
  const compose = vs.compose;
  const includes = isObject(compose) ? objects(compose.include) : [];
  const inc = includes[0];
  if (includes.length !== 1 || !inc) {
    report('error', 'CODESYSTEM_CS_VS_INVALID', [url, vsUrl]);
    return;
  }
  if (inc.system !== url) {
    report('error', 'CODESYSTEM_CS_VS_WRONGSYSTEM', [url, vsUrl, inc.system]);
    return;
  }
  if (inc.valueSet !== undefined || inc.concept !== undefined || inc.filter !== undefined) report('error', 'CODESYSTEM_CS_VS_INCLUDEDETAILS', [url, vsUrl]);
  if (isObject(vs.expansion)) {
    const found = objects(vs.expansion.contains).length;
    if (found !== count) report('error', 'CODESYSTEM_CS_VS_EXP_MISMATCH', [url, vsUrl, count, found]);
  }
}

/** A supplement names its base; its concepts must be codes of the base when the base is loaded in full. */
function checkSupplement(ctx: NodeContext, cs: JsonNode): void {
  const content = cs.str('content');
  const supp = cs.str('supplements');
  if (content !== 'supplement' && supp === undefined) return;
  if (supp === undefined || supp === '') {
    cs.error('CODESYSTEM_CS_SUPP_NO_SUPP', []);
    return;
  }
  const base = ctx.services.source.codeSystem(supp);
  const concepts = cs.objects('concept');
  if (!base) {
    if (concepts.length > 0) cs.warning('CODESYSTEM_CS_SUPP_CANT_CHECK', [supp]);
    return;
  }
  const hm = cs.str('hierarchyMeaning');
  const baseHm = str(base.hierarchyMeaning);
  if (hm !== undefined && baseHm !== undefined && hm !== baseHm) cs.error('CODESYSTEM_CS_SUPP_HIERARCHY_MEANING', [hm, baseHm]);
  if (content === 'not-present') concepts[0]?.error('CODESYSTEM_CS_COUNT_NO_CONTENT_ALLOWED', []);
  if (base.content !== 'complete') return;
  const codes = codeSet(base);
  for (const c of concepts) {
    const code = c.str('code');
    if (code !== undefined && code !== '' && !hasCode(base, codes, code)) c.error('CODESYSTEM_CS_SUPP_INVALID_CODE', [supp, code]);
  }
}

/** What the walk over a code system's concepts has seen so far: the codes, and whether a missing display or definition was warned about. */
interface ConceptsSeen {
  readonly codes: Set<string>;
  display: boolean;
  definition: boolean;
}

/**
 * Concepts, nested ones included (the concepts of `parent`, the CodeSystem or a concept): a code
 * defined twice is an error; an HL7 code system's concepts have a display and a definition (warned
 * about once each); a designation with no use in the code system's language is not told apart
 * from the display.
 */
function checkConcepts(cs: JsonNode, parent: JsonNode, seen: ConceptsSeen): void {
  const { codes } = seen;
  const url = cs.str('url');
  const hl7 = url !== undefined && (url.startsWith('http://hl7.org/fhir') || url.startsWith('http://terminology.hl7.org'));
  for (const concept of parent.objects('concept')) {
    const code = concept.str('code');
    if (code !== undefined) {
      if (codes.has(code)) concept.error('CODESYSTEM_DUPLICATE_CODE', [code]);
      codes.add(code);
    }
    if (hl7 && !seen.display && concept.child('display') === undefined) {
      seen.display = true;
      concept.warning('CODESYSTEM_CONCEPT_NO_DISPLAY', [code]);
    }
    if (hl7 && !seen.definition && concept.child('definition') === undefined) {
      seen.definition = true;
      concept.warning('CODESYSTEM_CONCEPT_NO_DEFINITION', [code]);
    }
    for (const d of concept.objects('designation')) checkDesignation(cs, concept, d);
    checkConcepts(cs, concept, seen);
  }
}

function checkDesignation(cs: JsonNode, concept: JsonNode, d: JsonNode): void {
  if (d.child('use') !== undefined || d.child('additionalUse') !== undefined) return;
  const rlang = cs.str('language');
  const lang = d.str('language');
  const display = concept.str('display');
  const value = d.str('value');
  if (display === undefined || display === value) return;
  if (rlang === undefined && lang === undefined) d.warning('CODESYSTEM_DESIGNATION_DISP_CLASH_NO_LANG', [value, display]);
  else if (rlang !== undefined && (lang === undefined || lang === rlang)) d.warning('CODESYSTEM_DESIGNATION_DISP_CLASH_LANG', [value, display, rlang]);
}
