/**
 * The HL7 validator's ConceptMapValidator, for what needs no terminology server: each group
 * names its source and target code systems; when one is loaded with all its content, the
 * element (source) codes and target codes must be codes of it (an error for a complete code
 * system, a warning otherwise) and their displays one of the concept's. Code systems only a
 * terminology server holds (SNOMED CT, LOINC), and codes checked against the source/target value
 * sets, are left to a terminology server.
 */
import type { NodeContext } from '../context/node-context.js';
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
    objects(cm.group).forEach((group, gi) => {
      const path = `${ctx.path}.group[${gi}]`;
      const source = readSide(ctx, group, 'source', hasSourceScope, path);
      const target = readSide(ctx, group, 'target', hasTargetScope, path);
      objects(group.element).forEach((el, ei) => {
        const epath = `${path}.element[${ei}]`;
        checkCode(ctx, el, source, `${epath}.code`, SOURCE_CODE_MESSAGES);
        objects(el.target).forEach((t, ti) => {
          checkCode(ctx, t, target, `${epath}.target[${ti}].code`, TARGET_CODE_MESSAGES);
        });
      });
    });
  }
}

function readSide(ctx: NodeContext, group: Obj, name: 'source' | 'target', hasScope: boolean, path: string): Side {
  const url = str(group[name]);
  const at = ctx.pos(group);
  if (url === undefined) {
    ctx.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_MISSING' : 'CONCEPTMAP_GROUP_TARGET_MISSING', [], path, at);
    return { cs: undefined, label: '' };
  }
  let system = url;
  let version = str(group[`${name}Version`]);
  if (version === undefined && url.includes('|')) {
    system = url.slice(0, url.indexOf('|'));
    version = url.slice(url.indexOf('|') + 1);
  }
  const cs = ctx.services.source.codeSystem(versioned(system, version));
  const spath = `${path}.${name}`;
  if (!cs) {
    if (!hasScope) ctx.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_UNKNOWN' : 'CONCEPTMAP_GROUP_TARGET_UNKNOWN', [url], spath, at);
    return { cs: undefined, label: '' };
  }
  if (typeof cs.url === 'string' && SERVER_SIDE_ONLY.has(cs.url)) return { cs: undefined, label: '' };
  const content = str(cs.content);
  if (content === 'not-present' || content === 'example' || content === 'fragment') {
    ctx.warning(name === 'source' ? 'CONCEPTMAP_GROUP_SOURCE_INCOMPLETE' : 'CONCEPTMAP_GROUP_TARGET_INCOMPLETE', [url, content], spath, at);
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

function checkCode(ctx: NodeContext, holder: Obj, side: Side, path: string, messages: CodeMessages): void {
  const { invalid, badDisplay } = messages;
  const code = str(holder.code);
  const cs = side.cs;
  if (code === undefined || !cs) return;
  const at = ctx.propPos(holder, 'code');
  let concept: Obj | undefined;
  for (const c of allConcepts(cs)) {
    if (c.code === code) {
      concept = c;
      break;
    }
  }
  if (!concept) {
    ctx.report(cs.content === 'complete' ? 'error' : 'warning', invalid, [code, side.label], path, at);
    return;
  }
  const display = str(holder.display);
  if (display === undefined) return;
  const displays = [str(concept.display), ...objects(concept.designation).map((d) => str(d.value))].filter((d): d is string => d !== undefined);
  if (displays.length > 0 && !displays.some((d) => d.toLowerCase() === display.toLowerCase())) {
    ctx.warning(badDisplay, [display, displays.map((d) => `'${d}'`).join(', '), `${side.label}#${code}`], path, at);
  }
}
