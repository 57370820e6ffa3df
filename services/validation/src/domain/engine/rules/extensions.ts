/**
 * An extension found in the structural walk, as the HL7 validator's checkExtension: resolved by
 * url (a versioned url, a cross-version url, unknown, a sub-extension of a complex extension),
 * then modifier or not, allowed on this element (extension-context.ts), a value or
 * sub-extensions as its definition says, and finally walked against its definition as a profile.
 */
import { ABSOLUTE_URL } from '../checks/urls.js';
import type { NodeContext } from '../context/node-context.js';
import type { JsonNode } from '../json/json-node.js';
import { PRIMITIVE_TYPES, type StructurePlan } from '../plan/structure-plan.js';
import { crossVersionExtension } from './cross-version-extensions.js';
import { checkExtensionContext, type ExtensionHost } from './extension-context.js';

/**
 * The extension `ext` at ctx (an item of `extension` or `modifierExtension`, ctx.plan the
 * structure it sits in) on `host`, the element holding it.
 */
export function resolveExtension(ctx: NodeContext, ext: Record<string, unknown>, host: ExtensionHost): void {
  const { node } = ctx;
  const modifier = ctx.element.name === 'modifierExtension';
  const url = node.str('url');
  if (url === undefined || url === '') {
    node.error('EXTENSION_NO_URL', []);
    return;
  }
  // as HL7's checkChildByDefinition: outside a complex extension the url must be absolute, and
  // the extension is not checked further
  if (!ABSOLUTE_URL.test(url) && !isExtension(host)) {
    node.error('EXTENSION_URL_NOT_ABSOLUTE', [url]);
    return;
  }
  const plans = ctx.services.plans;
  const bar = url.indexOf('|');
  const bare = bar < 0 ? url : url.slice(0, bar);
  let plan = ABSOLUTE_URL.test(bare) ? plans.plan(bare) : undefined;
  if (!plan) {
    const crossVersion = crossVersionExtension(ctx, bare);
    if (crossVersion === 'accepted' || crossVersion === 'reported') return;
    plan = crossVersion;
  }
  if (bar >= 0) plan = checkVersionedUrl(ctx, url, plan);
  if (!plan) {
    unknownExtension(ctx, url, host, modifier);
    return;
  }
  if (!plan.root?.ownChildren) return;
  if (plan.type === 'Extension' && plan.root.isModifier !== modifier) {
    // HL7 names the extension by url in this location
    ctx.report('error', modifier ? 'EXTENSION_NOT_MODIFIER' : 'EXTENSION_IS_MODIFIER', [url], urlPath(ctx, url), node.at);
  }
  checkExtensionContext(ctx, plan, host, modifier, ext);
  if (plan.type === 'Extension') checkValueOrChildren(ctx, ext, plan);
  ctx.walker.walkObject(ctx.againstProfile(plan, plan.root, ctx.depth + 1), ext, plan.root.ownChildren);
}

/**
 * `url|version`: extension urls carry no version. The definition is still used when one is
 * found (by the url alone, or by url and version).
 */
function checkVersionedUrl(ctx: NodeContext, url: string, byUrl: StructurePlan | undefined): StructurePlan | undefined {
  const where = urlPath(ctx, url);
  if (!byUrl) {
    const byVersion = ABSOLUTE_URL.test(url) ? ctx.services.plans.plan(url) : undefined;
    if (byVersion) ctx.error('EXT_VER_URL_IGNORE', [], where);
    else ctx.warning('EXT_VER_URL_NO_MATCH', [], where);
    return byVersion;
  }
  if (url === byUrl.label) ctx.error('EXT_VER_URL_NOT_ALLOWED', [], where);
  else ctx.error('EXT_VER_URL_REVERSION', [byUrl.version ?? ''], where);
  return byUrl;
}

/** HL7's checkExtension names the extension by url in the locations of its url problems: `Patient.extension[0][url='…']`. */
function urlPath(ctx: NodeContext, url: string): string {
  return `${ctx.path}[url='${url}']`;
}

function unknownExtension(ctx: NodeContext, url: string, host: ExtensionHost, modifier: boolean): void {
  const { node } = ctx;
  if (!ABSOLUTE_URL.test(url) && isExtension(host)) {
    // a sub-extension of a complex extension: its definition names the relative urls it allows
    checkSubExtension(ctx, url, host);
    return;
  }
  const options = ctx.run.options;
  if (alwaysAllowedUnknown(url, options.allowExampleUrls)) return;
  // a modifier extension nobody knows stays an error even where unknown extensions are tolerated
  if (modifier) {
    node.error('EXTENSION_MODIFIER_UNKNOWN', [url]);
    return;
  }
  // HL7's extension domains: an unknown extension from an allowed domain passes silently; with
  // `any`, every unknown extension passes with a hint (allowUnknownExtension / isKnownExtension)
  let any = false;
  for (const domain of options.extensionDomains) {
    if (domain === 'any') any = true;
    else if (url.startsWith(domain)) return;
  }
  const severity = any ? 'information' : options.unknownExtensionSeverity;
  if (severity === 'error') node.error('EXTENSION_UNKNOWN', [url]);
  else node.report(severity, 'EXTENSION_UNKNOWN_ALLOWED', [url]);
}

/**
 * Unknown extensions the HL7 validator lets through whatever its settings (allowUnknownExtension),
 * modifier or not: DICOM's (nema.org), the FHIR tooling's own, structuredefinition-expression
 * (used before it was defined) and, while example URLs are allowed, example.org / acme.com ones.
 */
function alwaysAllowedUnknown(url: string, allowExampleUrls: boolean): boolean {
  return url.includes('nema.org') || url.startsWith('http://hl7.org/fhir/tools/StructureDefinition/')
    || url === 'http://hl7.org/fhir/StructureDefinition/structuredefinition-expression'
    || (allowExampleUrls && (url.includes('example.org') || url.includes('acme.com')));
}

function isExtension(host: ExtensionHost): boolean {
  if (host.element === host.plan.root) return host.plan.type === 'Extension';
  return host.plan.type === 'Extension' || host.element.types.some((t) => t.code === 'Extension');
}

/** A relative url inside a known complex extension must be one of the sub-extensions its definition slices. */
function checkSubExtension(ctx: NodeContext, url: string, host: ExtensionHost): void {
  const parentUrl = host.container.url;
  if (typeof parentUrl !== 'string') return;
  const parent = ctx.services.plans.plan(parentUrl);
  const extensionElement = parent?.root?.ownChildren?.byJsonName.get('extension')?.element;
  if (!parent || !extensionElement || parent.type !== 'Extension') return;
  const known = extensionElement.slices.some((s) => s.ownChildren?.byJsonName.get('url')?.element.fixed === url);
  if (!known) ctx.error('EXTENSION_EXT_SUBEXTENSION_INVALID', [url, parent.label], urlPath(ctx, url));
}

/**
 * A simple extension (its value[x] may occur) carries a value, not sub-extensions; a complex one
 * (value[x] max 0) carries no value.
 */
function checkValueOrChildren(ctx: NodeContext, ext: Record<string, unknown>, plan: StructurePlan): void {
  const children = plan.root?.ownChildren;
  const valueElement = children?.choices.find((c) => c.path === 'Extension.value[x]');
  const simple = valueElement !== undefined && valueElement.max > 0 && valueElement.types.length > 0;
  const valueType = extensionValueType(ext);
  if (valueType !== undefined) {
    if (!simple) ctx.error('EXTENSION_EXT_COMPLEX_VALUE', [plan.url, valueType]);
  } else if (hasSubExtensions(ctx.node.child('extension'))) {
    if (simple) ctx.error('EXTENSION_EXT_SIMPLE_WRONG', [plan.url]);
  } else if (simple) {
    ctx.error('EXTENSION_EXT_SIMPLE_ABSENT', [plan.url]);
  }
}

/** Sub-extensions written as a list with items (a single object is a shape error, reported by the walk). */
function hasSubExtensions(extension: JsonNode | undefined): boolean {
  return extension?.isList === true && extension.items().length > 0;
}

/** The type a `value[x]` property names (`valueString` → string, `valueQuantity` → Quantity). */
function extensionValueType(ext: Record<string, unknown>): string | undefined {
  for (const key in ext) {
    if (key.length > 5 && key.startsWith('value') && key.charCodeAt(5) >= 65 && key.charCodeAt(5) <= 90) {
      const name = key.slice(5);
      const lower = name.charAt(0).toLowerCase() + name.slice(1);
      return PRIMITIVE_TYPES.has(lower) ? lower : name;
    }
  }
  return undefined;
}
