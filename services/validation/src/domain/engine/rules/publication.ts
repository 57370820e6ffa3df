/**
 * Settings about what may be published (HL7's forPublication and noExperimentalContent), checked
 * on a canonical resource (one with a `url`) in the structural walk:
 * - `noExperimentalContent`: a resource marked `experimental: true` is an error;
 * - `forPublication`: a resource HL7 publishes (its url under hl7.org/fhir or terminology.hl7.org)
 *   names its owning work group with the structuredefinition-wg extension (HL7's
 *   checkPublisherConsistency; code systems under hl7.org/fhir/sid are exempt). Which work groups
 *   exist is HL7's list, not checked here.
 */
import type { NodeContext } from '../context/node-context.js';
import { isObject } from '../json/json-value.js';

const EXT_WORKGROUP = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-wg';

export function checkPublication(ctx: NodeContext, resource: Record<string, unknown>): void {
  const options = ctx.run.options;
  if (!options.noExperimentalContent && !options.forPublication) return;
  const url = resource.url;
  if (typeof url !== 'string') return;
  if (options.noExperimentalContent && resource.experimental === true) {
    ctx.error('NO_EXPERIMENTAL_CONTENT', [], `${ctx.path}.experimental`, ctx.propPos(resource, 'experimental'));
  }
  if (options.forPublication && (url.startsWith('http://hl7.org/fhir/') || url.startsWith('http://terminology.hl7.org/')) && !url.includes('http://hl7.org/fhir/sid')) {
    const extensions = Array.isArray(resource.extension) ? resource.extension : [];
    const groups = extensions.filter((e) => isObject(e) && e.url === EXT_WORKGROUP);
    if (groups.length === 0) ctx.error('VALIDATION_HL7_WG_NEEDED', [EXT_WORKGROUP]);
    else if (groups.length > 1) ctx.error('VALIDATION_HL7_PUBLISHER_MULTIPLE_WGS', []);
  }
}
