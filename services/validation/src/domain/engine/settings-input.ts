/**
 * The HL7 validator's settings (ValidationSettings, validator-options.ts) as they arrive from
 * outside, in one table: a validation configuration's `settings` object and $validate's query
 * parameters or Parameters body (our names, the ValidationSettings keys), the CLI's flags (named
 * after the HL7 CLI's) and the HL7 test manifest's keys (the conformance harness's `--options`).
 * Each reader checks what it gets and says which input is wrong (SettingsInputError), so a bad
 * value is a clear 400 or a CLI usage error, never a silently ignored setting.
 *
 * docs/validator-settings.md explains each setting next to HL7's flag and manifest key.
 */
import {
  CONTAINED_POLICIES, REFERENCE_POLICIES, type BestPracticeLevel, type BundleRule, type ContainedPolicy, type ReferencePolicy, type ValidationSettings,
} from './validator-options.js';

export class SettingsInputError extends Error {
  override readonly name = 'SettingsInputError';
  constructor(message: string, readonly field: string) {
    super(message);
  }
}

type Kind =
  | { type: 'boolean' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'string' }
  | { type: 'strings' }
  | { type: 'count' }
  | { type: 'bundleRules' };

export interface SettingSpec {
  readonly name: keyof ValidationSettings;
  readonly kind: Kind;
  /** The HL7 CLI's flag (or ours, when HL7 has none: `hl7Flag` false). */
  readonly flag: string;
  readonly hl7Flag: boolean;
  readonly description: string;
}

const BEST_PRACTICE: readonly BestPracticeLevel[] = ['ignore', 'hint', 'warning', 'error'];
const HTML_IN_MARKDOWN = ['none', 'warning', 'error'] as const;
const R5_POLICY = ['default', 'never', 'always'] as const;

/** Every setting, in the order the documentation lists them. */
export const SETTINGS: readonly SettingSpec[] = [
  { name: 'bestPractice', kind: { type: 'enum', values: BEST_PRACTICE }, flag: '-best-practice', hl7Flag: true, description: 'How best-practice rules are reported: ignore, hint, warning (default) or error' },
  { name: 'extensionDomains', kind: { type: 'strings' }, flag: '-extension', hl7Flag: true, description: 'URL prefixes whose unknown extensions are accepted; `any` accepts every unknown extension with a hint' },
  { name: 'allowExampleUrls', kind: { type: 'boolean' }, flag: '-allow-example-urls', hl7Flag: true, description: 'Accept URLs on example hosts (example.org, example.com, acme.com); default true' },
  { name: 'assumeValidRestReferences', kind: { type: 'boolean' }, flag: '-assumeValidRestReferences', hl7Flag: true, description: 'Take `Type/id` references to point at a resource of that type' },
  { name: 'referencePolicy', kind: { type: 'enum', values: REFERENCE_POLICIES }, flag: '-reference-policy', hl7Flag: false, description: 'References outside the resource and its Bundle: IGNORE (default), CHECK_TYPE_IF_EXISTS, CHECK_EXISTS, CHECK_EXISTS_AND_TYPE, CHECK_VALID' },
  { name: 'containedPolicy', kind: { type: 'enum', values: CONTAINED_POLICIES }, flag: '-contained-policy', hl7Flag: false, description: 'Nested resources (contained, Bundle entries, Parameters values): IGNORE, CHECK_TYPE, CHECK_VALID (default)' },
  { name: 'htmlInMarkdown', kind: { type: 'enum', values: HTML_IN_MARKDOWN }, flag: '-html-in-markdown', hl7Flag: true, description: 'HTML tags in markdown: none, warning (default) or error' },
  { name: 'securityChecks', kind: { type: 'boolean' }, flag: '-security-checks', hl7Flag: true, description: 'Text that looks like HTML in strings is an error' },
  { name: 'allowComments', kind: { type: 'boolean' }, flag: '-allow-comments', hl7Flag: false, description: 'JSON comments are read without an error' },
  { name: 'language', kind: { type: 'string' }, flag: '-language', hl7Flag: true, description: 'The language (BCP 47) displays are checked in, unless the resource gives its own' },
  { name: 'forPublication', kind: { type: 'boolean' }, flag: '-forPublication', hl7Flag: true, description: 'Rules for content HL7 publishes (HL7 canonical resources name their work group)' },
  { name: 'noExperimentalContent', kind: { type: 'boolean' }, flag: '-no-experimental-content', hl7Flag: true, description: 'Canonical resources marked experimental are errors' },
  { name: 'unknownCodeSystemsCauseErrors', kind: { type: 'boolean' }, flag: '-unknown-codesystems-cause-errors', hl7Flag: true, description: 'A code from an unknown code system is an error, not a warning' },
  { name: 'displayIssuesAreWarnings', kind: { type: 'boolean' }, flag: '-display-issues-are-warnings', hl7Flag: true, description: 'A wrong display is a warning, not an error' },
  { name: 'maxValidationMessages', kind: { type: 'count' }, flag: '-max-validation-messages', hl7Flag: false, description: 'At most this many issues per validation' },
  { name: 'bundleRules', kind: { type: 'bundleRules' }, flag: '-bundle', hl7Flag: true, description: 'Bundle entries matching a rule (`Type:index`, `Type:id`, `Type`, `index`) must follow a profile' },
  { name: 'r5BundleRelativeReferencePolicy', kind: { type: 'enum', values: R5_POLICY }, flag: '-r5-bundle-relative-reference-policy', hl7Flag: true, description: 'R5 relative references in Bundles: default, never, always (no effect on R4 content)' },
];

/**
 * Where the HL7 CLI's defaults differ from the engine's (which follow Link Cloud's service, for the
 * flow): the CLI and the conformance harness start from these. HL7 reports a wrong display as an
 * error unless told `-display-issues-are-warnings`; the service's terminology answers a warning.
 */
export const HL7_CLI_DEFAULTS: Readonly<ValidationSettings> = Object.freeze({ displayIssuesAreWarnings: false });

const BY_NAME = new Map(SETTINGS.map((s) => [s.name as string, s]));
const BY_FLAG = new Map(SETTINGS.map((s) => [s.flag.toLowerCase(), s]));

// ---- our names: a configuration's `settings`, $validate's query parameters and Parameters body ----

/** Settings from a JSON object with our names (a validation configuration's `settings`); unknown names are refused. */
export function parseSettings(input: unknown, field = 'settings'): ValidationSettings {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new SettingsInputError(`${field}: an object of settings`, field);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
    const spec = BY_NAME.get(name);
    if (!spec) throw new SettingsInputError(`${field}.${name}: unknown setting (known: ${SETTINGS.map((s) => s.name).join(', ')})`, `${field}.${name}`);
    if (value === undefined || value === null) continue;
    out[name] = readValue(spec, value, `${field}.${name}`);
  }
  return out as ValidationSettings;
}

/**
 * Settings among query parameters (each a string, or repeated); other parameters are left to the
 * caller. `bundleRules` is given as `rule=profile` (repeatable), a list as repeats or commas.
 */
export function settingsFromQuery(query: Record<string, unknown>): ValidationSettings {
  const out: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    const raw = query[spec.name];
    if (raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    out[spec.name] = readText(spec, values, spec.name);
  }
  return out as ValidationSettings;
}

/** True for a query parameter or Parameters name that is a setting. */
export function isSettingName(name: string): boolean {
  return BY_NAME.has(name);
}

/** One setting from the texts given for it (query parameters, CLI values, Parameters values). */
export function readText(spec: SettingSpec, values: readonly string[], field: string): unknown {
  const k = spec.kind;
  switch (k.type) {
    case 'strings': return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    case 'bundleRules': return values.map((v) => {
      const eq = v.indexOf('=');
      if (eq <= 0 || eq === v.length - 1) throw new SettingsInputError(`${field}: give a rule as rule=profile (e.g. Composition:0=http://…/Profile)`, field);
      return { rule: v.slice(0, eq), profile: v.slice(eq + 1) };
    });
    default: {
      if (values.length !== 1) throw new SettingsInputError(`${field}: one value only`, field);
      const v = values[0]!;
      if (k.type === 'boolean') {
        if (v === 'true' || v === '') return true;
        if (v === 'false') return false;
        throw new SettingsInputError(`${field}: true or false`, field);
      }
      return readValue(spec, k.type === 'count' ? Number(v) : v, field);
    }
  }
}

function readValue(spec: SettingSpec, value: unknown, field: string): unknown {
  const k = spec.kind;
  switch (k.type) {
    case 'boolean':
      if (typeof value !== 'boolean') throw new SettingsInputError(`${field}: true or false`, field);
      return value;
    case 'enum': {
      // HL7 writes some as `Warning`, `ignore`, `CHECK_VALID`: matched without regard to case
      const hit = typeof value === 'string' ? k.values.find((x) => x.toLowerCase() === value.toLowerCase()) : undefined;
      if (hit === undefined) throw new SettingsInputError(`${field}: one of ${k.values.join(', ')}`, field);
      return hit;
    }
    case 'string':
      if (typeof value !== 'string' || value === '' || value.length > 64) throw new SettingsInputError(`${field}: a non-empty text of at most 64 characters`, field);
      return value;
    case 'strings':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '' || v.length > 1024)) throw new SettingsInputError(`${field}: a list of texts`, field);
      return [...value as string[]];
    case 'count':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new SettingsInputError(`${field}: a whole number of at least 1`, field);
      return value;
    case 'bundleRules': {
      const rules = Array.isArray(value) ? value : undefined;
      const ok = rules?.every((r) => typeof r === 'object' && r !== null && typeof (r as BundleRule).rule === 'string' && (r as BundleRule).rule !== ''
        && typeof (r as BundleRule).profile === 'string' && (r as BundleRule).profile !== '');
      if (!rules || !ok) throw new SettingsInputError(`${field}: a list of {rule, profile}`, field);
      return (rules as BundleRule[]).map((r) => ({ rule: r.rule, profile: r.profile }));
    }
  }
}

// ---- the CLI's flags ----------------------------------------------------------------------------

/** The setting a CLI flag names (`-best-practice` or `--best-practice`), if any. */
export function settingForFlag(flag: string): SettingSpec | undefined {
  const name = flag.startsWith('--') ? flag.slice(1) : flag;
  return BY_FLAG.get(name.toLowerCase());
}

/** How many values a setting's flag takes: none for true/false switches (HL7 style), two for -bundle. */
export function flagArity(spec: SettingSpec): 0 | 1 | 2 {
  if (spec.kind.type === 'bundleRules') return 2;
  // HL7's -allow-example-urls takes true/false; its other boolean flags are switches
  if (spec.kind.type === 'boolean') return spec.name === 'allowExampleUrls' ? 1 : 0;
  return 1;
}

/** Adds one CLI flag's value(s) to `settings` (lists accumulate). */
export function applyFlag(settings: Record<string, unknown>, spec: SettingSpec, values: readonly string[]): void {
  const field = spec.flag;
  if (spec.kind.type === 'bundleRules') {
    settings.bundleRules = [...((settings.bundleRules as BundleRule[] | undefined) ?? []), { rule: values[0]!, profile: values[1]! }];
  } else if (spec.kind.type === 'strings') {
    settings[spec.name] = [...((settings[spec.name] as string[] | undefined) ?? []), ...(readText(spec, values, field) as string[])];
  } else if (spec.kind.type === 'boolean' && values.length === 0) {
    settings[spec.name] = true;
  } else {
    // HL7's -html-in-markdown says `ignore` where we say `none`
    const v = spec.name === 'htmlInMarkdown' && values[0]?.toLowerCase() === 'ignore' ? ['none'] : values;
    settings[spec.name] = readText(spec, v, field);
  }
}

// ---- the HL7 test manifest's keys (the conformance harness's {options}) -----------------------------

/** What the manifest's options gave: the settings, and the keys that change nothing here (with why). */
export interface ManifestSettings {
  settings: ValidationSettings;
  /** Keys read but without effect here, each with the reason (the CLI says them on stderr). */
  ignored: { key: string; reason: string }[];
}

/** Manifest keys that have no effect in this engine, and why (docs/validator-settings.md repeats them). */
export const MANIFEST_KEYS_LEFT: Readonly<Record<string, string>> = {
  fetcher: 'references and canonicals always resolve through the supporting files (the CLI\'s fetcher); there is no network fetcher in the CLI',
  'crumb-trail': 'changes only the wording of messages (HL7 adds the path of profiles walked)',
  supporting5: 'R5 definitions (given as XML) are not read',
  certificate: 'digital signatures are not verified',
  advisor: 'validation policy advisor files (message suppression) are not read; categories do that job here',
  scoring: 'profile scoring is not an outcome of validation',
  ips: 'needs the IPS packages, not loaded in this selection',
  sct: 'needs a SNOMED CT edition from a terminology server',
  'default-version': 'canonical versions are matched as given',
  'new-xver-mode': 'cross-version extensions are always read from the R4 definitions',
  'fhir-validator-cli-options': 'HL7 CLI start-up options (terminology server, packages) belong to the CLI\'s own flags',
  enforceAggregationOutsideBundles: 'aggregation modes are not checked',
  'ids-in-errors': 'changes only the wording of messages',
};

/** Settings from the HL7 test manifest's keys (`{"best-practice":"Error","allow-comments":true}`). */
export function settingsFromManifest(options: Record<string, unknown>): ManifestSettings {
  const settings: Record<string, unknown> = {};
  const ignored: ManifestSettings['ignored'] = [];
  const spec = (name: keyof ValidationSettings) => BY_NAME.get(name)!;
  for (const [key, value] of Object.entries(options)) {
    const field = `options.${key}`;
    switch (key) {
      case 'best-practice': settings.bestPractice = readValue(spec('bestPractice'), value, field); break;
      case 'allowed-extension-domain':
      case 'allowed-extension-domains': {
        const domains = readValue(spec('extensionDomains'), Array.isArray(value) ? value : [value], field) as string[];
        settings.extensionDomains = [...((settings.extensionDomains as string[] | undefined) ?? []), ...domains];
        break;
      }
      case 'examples': settings.allowExampleUrls = readValue(spec('allowExampleUrls'), value, field); break;
      case 'assumeValidRestReferences': settings.assumeValidRestReferences = readValue(spec('assumeValidRestReferences'), value, field); break;
      case 'validateReference': settings.referencePolicy = readValue(spec('referencePolicy'), value, field) as ReferencePolicy; break;
      case 'validateContains': settings.containedPolicy = readValue(spec('containedPolicy'), value, field) as ContainedPolicy; break;
      // the HL7 runner switches it on by the key's presence, whatever its value
      case 'noHtmlInMarkdown': settings.htmlInMarkdown = 'error'; break;
      case 'security-checks': settings.securityChecks = readValue(spec('securityChecks'), value, field); break;
      case 'allow-comments': settings.allowComments = readValue(spec('allowComments'), value, field); break;
      case 'language': settings.language = readValue(spec('language'), value, field); break;
      // the HL7 runner compares the text with "true"
      case 'for-publication': settings.forPublication = value === true || value === 'true'; break;
      case 'no-experimental-content': settings.noExperimentalContent = readValue(spec('noExperimentalContent'), value, field); break;
      case 'wrong-displays': settings.displayIssuesAreWarnings = value === 'warning'; break;
      case 'bundle-param': settings.bundleRules = readValue(spec('bundleRules'), [value], field); break;
      case 'r5-bundle-relative-reference-policy': settings.r5BundleRelativeReferencePolicy = readValue(spec('r5BundleRelativeReferencePolicy'), value, field); break;
      default: {
        const reason = MANIFEST_KEYS_LEFT[key];
        ignored.push({ key, reason: reason ?? 'not a setting this validator knows' });
      }
    }
  }
  return { settings: settings as ValidationSettings, ignored };
}
