/**
 * The HL7 validator's ConceptMapValidator, for what needs no terminology server: each group
 * names its source and target code systems; when one is loaded with all its content, the
 * element (source) codes and target codes must be codes of it (an error for a complete code
 * system, a warning otherwise) and their displays one of the concept's. Code systems only a
 * terminology server holds (SNOMED CT, LOINC), and codes checked against the source/target value
 * sets, are left to a terminology server.
 */
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import type { MessageId } from '../messages.js';
import type { ResourceTypeValidator } from './resource-type-validator.js';
import { allConcepts, objects, str, versioned, type Obj } from './terminology/code-system-model.js';

const SERVER_SIDE_ONLY = new Set(['http://snomed.info/sct', 'http://loinc.org']);

interface Side {
  /** The code system, when loaded and usable for checking codes. */
  cs: Obj | undefined;
  label: string;
}

export class ConceptMapValidator implements ResourceTypeValidator {
  readonly resourceTypes = ['ConceptMap'];

  validate(ctx: NodeContext, cm: Record<string, unknown>): void {
    const hasSourceScope = cm.sourceUri !== undefined || cm.sourceCanonical !== undefined;
    const hasTargetScope = cm.targetUri !== undefined || cm.targetCanonical !== undefined;
    for (const group of ctx.nodeOf(cm).objects('group')) {
      const source = readSide(ctx, group, 'source', hasSourceScope);
      const target = readSide(ctx, group, 'target', hasTargetScope);
      for (const el of group.objects('element')) {
        checkCode(el, source, SOURCE_CODE_MESSAGES);
        for (const t of el.objects('target')) checkCode(t, target, TARGET_CODE_MESSAGES);
      }
    }
  }
}

/** The group's source (target) code system; what is wrong with it is reported at the group's position (the HL7 validator's). */
function readSide(ctx: NodeContext, group: JsonNode, name: 'source' | 'target', hasScope: boolean): Side {
  const side = group.child(name);
  const url = side?.string;
  if (side === undefined || url === undefined) {
    group.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_MISSING' : 'CONCEPTMAP_GROUP_TARGET_MISSING', []);
    return { cs: undefined, label: '' };
  }
  let system = url;
  let version = group.str(`${name}Version`);
  if (version === undefined && url.includes('|')) {
    system = url.slice(0, url.indexOf('|'));
    version = url.slice(url.indexOf('|') + 1);
  }
  const cs = ctx.services.source.codeSystem(versioned(system, version));
  if (!cs) {
    if (!hasScope) ctx.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_UNKNOWN' : 'CONCEPTMAP_GROUP_TARGET_UNKNOWN', [url], side.path, group.at);
    return { cs: undefined, label: '' };
  }
  if (typeof cs.url === 'string' && SERVER_SIDE_ONLY.has(cs.url)) return { cs: undefined, label: '' };
  const content = str(cs.content);
  if (content === 'not-present' || content === 'example' || content === 'fragment') {
    ctx.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_INCOMPLETE' : 'CONCEPTMAP_GROUP_TARGET_INCOMPLETE', [url, content], side.path, group.at);
    return { cs: undefined, label: '' };
  }
  const label = typeof cs.version === 'string' ? `${String(cs.url)}|${cs.version}` : String(cs.url);
  return { cs, label };
}

/** What a source (target) code is reported with: a code not in its system, a display not one of the concept's. */
interface CodeMessages {
  readonly invalid: MessageId;
  readonly badDisplay: MessageId;
}
const SOURCE_CODE_MESSAGES: CodeMessages = { invalid: 'CONCEPTMAP_GROUP_SOURCE_CODE_INVALID', badDisplay: 'CONCEPTMAP_GROUP_SOURCE_DISPLAY_INVALID' };
const TARGET_CODE_MESSAGES: CodeMessages = { invalid: 'CONCEPTMAP_GROUP_TARGET_CODE_INVALID', badDisplay: 'CONCEPTMAP_GROUP_TARGET_DISPLAY_INVALID' };

/** The code of a group's element (or of its target), with its display, against the side's code system. */
function checkCode(holder: JsonNode, side: Side, messages: CodeMessages): void {
  const { invalid, badDisplay } = messages;
  const codeNode = holder.child('code');
  const code = codeNode?.string;
  const cs = side.cs;
  if (codeNode === undefined || code === undefined || !cs) return;
  let concept: Obj | undefined;
  for (const c of allConcepts(cs)) {
    if (c.code === code) {
      concept = c;
      break;
    }
  }
  if (!concept) {
    codeNode.report(cs.content === 'complete' ? 'error' : 'warning', invalid, [code, side.label]);
    return;
  }
  const display = holder.str('display');
  if (display === undefined) return;
  const displays = [str(concept.display), ...objects(concept.designation).map((d) => str(d.value))].filter((d): d is string => d !== undefined);
  if (displays.length > 0 && !displays.some((d) => d.toLowerCase() === display.toLowerCase())) {
    codeNode.warning(badDisplay, [display, displays.map((d) => `'${d}'`).join(', '), `${side.label}#${code}`]);
  }
}
