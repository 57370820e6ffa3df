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

const EXT_WORKGROUP = 'http://hl7.org/fhir/StructureDefinition/structuredefinition-wg';

/** The resource at ctx (ctx.node) as far as what may be published goes. */
export function checkPublication(ctx: NodeContext): void {
  const options = ctx.run.options;
  if (!options.noExperimentalContent && !options.forPublication) return;
  const resource = ctx.node;
  const url = resource.str('url');
  if (url === undefined) return;
  const experimental = resource.child('experimental');
  if (options.noExperimentalContent && experimental?.value === true) experimental.error('NO_EXPERIMENTAL_CONTENT', []);
  if (options.forPublication && (url.startsWith('http://hl7.org/fhir/') || url.startsWith('http://terminology.hl7.org/')) && !url.includes('http://hl7.org/fhir/sid')) {
    // (a single extension not written as a list is not read: the walk reported its shape)
    const extensions = resource.child('extension');
    const groups = extensions?.isList ? extensions.items().filter((e) => e.str('url') === EXT_WORKGROUP) : [];
    if (groups.length === 0) ctx.error('VALIDATION_HL7_WG_NEEDED', [EXT_WORKGROUP]);
    else if (groups.length > 1) ctx.error('VALIDATION_HL7_PUBLISHER_MULTIPLE_WGS', []);
  }
}
