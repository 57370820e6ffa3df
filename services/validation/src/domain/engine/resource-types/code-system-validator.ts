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
import { isObject } from '../json/json-value.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { checkConceptProperties, checkPropertyDefinitions } from './terminology/code-system-properties.js';
import { codeSet, countConcepts, hasCode, objects, str, type Obj } from './terminology/code-system-model.js';

export class CodeSystemValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['CodeSystem'];

  validate(ctx: NodeContext, cs: Record<string, unknown>): void {
    const count = countConcepts(cs);
    checkMetadata(ctx, cs, count);
    checkAllCodesValueSet(ctx, cs, count);
    checkSupplement(ctx, cs);
    const contained = ctx.host.resource !== ctx.host.root;
    if (contained) {
      // a contained CodeSystem is expected only in a Questionnaire, or a supplement's CodeSystem
      const rootType = ctx.host.root.resourceType;
      if (rootType !== 'Questionnaire' && rootType !== 'CodeSystem') ctx.information('CODESYSTEM_NOT_CONTAINED', []);
    }
    const defs = checkPropertyDefinitions(ctx, cs);
    const codes = new Set<string>();
    checkConcepts(ctx, cs, objects(cs.concept), ctx.path, { codes, display: false, definition: false });
    checkConceptProperties(ctx, cs, defs, codes);
  }
}

function checkMetadata(ctx: NodeContext, cs: Obj, count: number): void {
  const url = str(cs.url);
  const content = str(cs.content);
  const supp = str(cs.supplements);
  const path = ctx.path;
  if (supp !== undefined && supp !== '') {
    if (content !== 'supplement') ctx.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL_WRONG', [], `${path}.content`, ctx.propPos(cs, 'content'));
    if (cs.caseSensitive !== undefined) ctx.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL', ['caseSensitive'], `${path}.caseSensitive`, ctx.propPos(cs, 'caseSensitive'));
  } else {
    const hl7 = url !== undefined && (url.includes('hl7.org') || url.includes('fhir.org'));
    if (content === undefined || content === '') {
      if (hl7) ctx.error('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHALL', ['content'], path, ctx.at);
      else ctx.warning('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['content'], path, ctx.at);
    } else if (content === 'supplement') {
      ctx.error('CODESYSTEM_CS_HL7_PRESENT_ELEMENT_SUPPL_MISSING', [], `${path}.content`, ctx.propPos(cs, 'content'));
    }
    if (cs.caseSensitive === undefined) {
      if (hl7) ctx.warning('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHOULD', ['caseSensitive'], path, ctx.at);
      else ctx.information('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['caseSensitive'], path, ctx.at);
    }
    if (cs.hierarchyMeaning === undefined && objects(cs.concept).some((c) => objects(c.concept).length > 0)) {
      if (hl7) ctx.warning('CODESYSTEM_CS_HL7_MISSING_ELEMENT_SHOULD', ['hierarchyMeaning'], path, ctx.at);
      else ctx.information('CODESYSTEM_CS_NONHL7_MISSING_ELEMENT', ['hierarchyMeaning'], path, ctx.at);
    }
  }
  if (count === 0 && content === 'complete') ctx.warning('CODESYSTEM_CS_COMPLETE_AND_EMPTY', [], path, ctx.at);
  const stated = cs.count;
  if (typeof stated === 'number' && Number.isInteger(stated) && stated > -1 && content !== undefined) {
    const cpath = `${path}.count`;
    const at = ctx.propPos(cs, 'count');
    switch (content) {
      case 'complete':
        if (count !== stated) ctx.error('CODESYSTEM_CS_COUNT_COMPLETE_WRONG', [count, stated], cpath, at);
        break;
      case 'example':
      case 'fragment':
        if (count >= stated) ctx.warning('CODESYSTEM_CS_COUNT_FRAGMENT_WRONG', [count, stated], cpath, at);
        break;
      case 'not-present':
        if (objects(cs.concept).length > 0 && stated <= 0) ctx.information('CODESYSTEM_CS_COUNT_NOTPRESENT_ZERO', [stated], `${path}.concept`, ctx.propPos(cs, 'concept'));
        break;
      case 'supplement': {
        const base = supp ? ctx.services.source.codeSystem(supp) : undefined;
        if (base) {
          const baseCount = typeof base.count === 'number' ? base.count : 0;
          if (count !== baseCount) ctx.error('CODESYSTEM_CS_COUNT_SUPPLEMENT_WRONG', [baseCount, stated], cpath, at);
        }
        break;
      }
      default:
        break;
    }
  }
  const first = objects(cs.concept)[0];
  if (content === 'not-present' && first) ctx.error('CODESYSTEM_CS_COUNT_NO_CONTENT_ALLOWED', [], `${path}.concept[0]`, ctx.pos(first));
}

/** CodeSystem.valueSet, the "all codes" value set: one include of this system, nothing more. */
function checkAllCodesValueSet(ctx: NodeContext, cs: Obj, count: number): void {
  const vsUrl = str(cs.valueSet);
  if (vsUrl === undefined || vsUrl === '') return;
  const url = str(cs.url);
  const content = str(cs.content);
  const path = ctx.path;
  const at = ctx.propPos(cs, 'valueSet');
  const source = ctx.services.source;
  if (content === 'supplement') {
    const supplements = str(cs.supplements);
    const base = supplements ? source.codeSystem(supplements) : undefined;
    if (base) {
      if (typeof base.valueSet === 'string') {
        if (base.valueSet !== vsUrl) ctx.warning('CODESYSTEM_CS_NO_VS_SUPPLEMENT2', [base.valueSet], path, at);
      } else {
        ctx.warning('CODESYSTEM_CS_NO_VS_SUPPLEMENT1', [], path, at);
      }
    } else {
      ctx.warning('CODESYSTEM_CS_NO_VS_NOTCOMPLETE', [], path, at);
    }
  } else if (content !== 'complete') {
    ctx.information('CODESYSTEM_CS_NO_VS_NOTCOMPLETE', [], path, at);
  }
  const vs = source.valueSet(vsUrl);
  if (!vs) return;
  const compose = vs.compose;
  const includes = isObject(compose) ? objects(compose.include) : [];
  const inc = includes[0];
  if (!isObject(compose) || includes.length !== 1 || !inc) {
    ctx.error('CODESYSTEM_CS_VS_INVALID', [url, vsUrl], path, at);
    return;
  }
  if (inc.system !== url) {
    ctx.error('CODESYSTEM_CS_VS_WRONGSYSTEM', [url, vsUrl, inc.system], path, at);
    return;
  }
  if (inc.valueSet !== undefined || inc.concept !== undefined || inc.filter !== undefined) ctx.error('CODESYSTEM_CS_VS_INCLUDEDETAILS', [url, vsUrl], path, at);
  if (isObject(vs.expansion)) {
    const found = objects(vs.expansion.contains).length;
    if (found !== count) ctx.error('CODESYSTEM_CS_VS_EXP_MISMATCH', [url, vsUrl, count, found], path, at);
  }
}

/** A supplement names its base; its concepts must be codes of the base when the base is loaded in full. */
function checkSupplement(ctx: NodeContext, cs: Obj): void {
  const content = str(cs.content);
  const supp = str(cs.supplements);
  if (content !== 'supplement' && supp === undefined) return;
  if (supp === undefined || supp === '') {
    ctx.error('CODESYSTEM_CS_SUPP_NO_SUPP', []);
    return;
  }
  const base = ctx.services.source.codeSystem(supp);
  const concepts = objects(cs.concept);
  if (!base) {
    if (concepts.length > 0) ctx.warning('CODESYSTEM_CS_SUPP_CANT_CHECK', [supp]);
    return;
  }
  const hm = str(cs.hierarchyMeaning);
  const baseHm = str(base.hierarchyMeaning);
  if (hm !== undefined && baseHm !== undefined && hm !== baseHm) ctx.error('CODESYSTEM_CS_SUPP_HIERARCHY_MEANING', [hm, baseHm]);
  const first = concepts[0];
  if (first && content === 'not-present') ctx.error('CODESYSTEM_CS_COUNT_NO_CONTENT_ALLOWED', [], `${ctx.path}.concept[0]`, ctx.pos(first));
  if (base.content !== 'complete') return;
  const codes = codeSet(base);
  concepts.forEach((c, i) => {
    if (typeof c.code === 'string' && c.code !== '' && !hasCode(base, codes, c.code)) {
      ctx.error('CODESYSTEM_CS_SUPP_INVALID_CODE', [supp, c.code], `${ctx.path}.concept[${i}]`, ctx.pos(c));
    }
  });
}

/** What the walk over a code system's concepts has seen so far: the codes, and whether a missing display or definition was warned about. */
interface ConceptsSeen {
  readonly codes: Set<string>;
  display: boolean;
  definition: boolean;
}

/**
 * Concepts, nested ones included: a code defined twice is an error; an HL7 code system's
 * concepts have a display and a definition (warned about once each); a designation with no use
 * in the code system's language is not told apart from the display.
 */
function checkConcepts(ctx: NodeContext, cs: Obj, concepts: Obj[], basePath: string, seen: ConceptsSeen): void {
  const { codes } = seen;
  const url = str(cs.url);
  const hl7 = url !== undefined && (url.startsWith('http://hl7.org/fhir') || url.startsWith('http://terminology.hl7.org'));
  concepts.forEach((concept, i) => {
    const path = `${basePath}.concept[${i}]`;
    const at = ctx.pos(concept);
    const code = str(concept.code);
    if (code !== undefined) {
      if (codes.has(code)) ctx.error('CODESYSTEM_DUPLICATE_CODE', [code], path, at);
      codes.add(code);
    }
    if (hl7 && !seen.display && concept.display === undefined) {
      seen.display = true;
      ctx.warning('CODESYSTEM_CONCEPT_NO_DISPLAY', [code], path, at);
    }
    if (hl7 && !seen.definition && concept.definition === undefined) {
      seen.definition = true;
      ctx.warning('CODESYSTEM_CONCEPT_NO_DEFINITION', [code], path, at);
    }
    objects(concept.designation).forEach((d, di) => checkDesignation(ctx, cs, concept, d, `${path}.designation[${di}]`));
    checkConcepts(ctx, cs, objects(concept.concept), path, seen);
  });
}

function checkDesignation(ctx: NodeContext, cs: Obj, concept: Obj, d: Obj, path: string): void {
  if (d.use !== undefined || d.additionalUse !== undefined) return;
  const rlang = str(cs.language);
  const lang = str(d.language);
  const display = str(concept.display);
  const value = str(d.value);
  if (display === undefined || display === value) return;
  if (rlang === undefined && lang === undefined) ctx.warning('CODESYSTEM_DESIGNATION_DISP_CLASH_NO_LANG', [value, display], path, ctx.pos(d));
  else if (rlang !== undefined && (lang === undefined || lang === rlang)) ctx.warning('CODESYSTEM_DESIGNATION_DISP_CLASH_LANG', [value, display, rlang], path, ctx.pos(d));
}
