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
  CONTAINED_POLICIES, REFERENCE_POLICIES, type BestPracticeLevel, type BundleRule, type ValidationSettings,
} from './validator-options.js';
import { isArray, isObject } from './json/json-value.js';

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

type SettingName = keyof ValidationSettings;

/** How one setting's value is read: from JSON (`read`) and from texts (`fromTexts`: query, CLI, Parameters). */
interface SettingType<T> {
  readonly kind: Kind;
  readonly read: (value: unknown, field: string) => T;
  readonly fromTexts: (values: readonly string[], field: string) => T;
}

/** The one text a single-valued setting takes. */
function single(values: readonly string[], field: string): string {
  const [v] = values;
  if (values.length !== 1 || v === undefined) throw new SettingsInputError(`${field}: one value only`, field);
  return v;
}

const BOOLEAN: SettingType<boolean> = {
  kind: { type: 'boolean' },
  read: (value, field) => {
    if (typeof value !== 'boolean') throw new SettingsInputError(`${field}: true or false`, field);
    return value;
  },
  fromTexts: (values, field) => {
    const v = single(values, field);
    if (v === 'true' || v === '') return true;
    if (v === 'false') return false;
    throw new SettingsInputError(`${field}: true or false`, field);
  },
};

function oneOf<T extends string>(values: readonly T[]): SettingType<T> {
  const read = (value: unknown, field: string): T => {
    // HL7 writes some as `Warning`, `ignore`, `CHECK_VALID`: matched without regard to case
    const hit = typeof value === 'string' ? values.find((x) => x.toLowerCase() === value.toLowerCase()) : undefined;
    if (hit === undefined) throw new SettingsInputError(`${field}: one of ${values.join(', ')}`, field);
    return hit;
  };
  return { kind: { type: 'enum', values }, read, fromTexts: (texts, field) => read(single(texts, field), field) };
}

const readString = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || value === '' || value.length > 64) throw new SettingsInputError(`${field}: a non-empty text of at most 64 characters`, field);
  return value;
};
const STRING: SettingType<string> = { kind: { type: 'string' }, read: readString, fromTexts: (values, field) => readString(single(values, field), field) };

const STRINGS: SettingType<readonly string[]> = {
  kind: { type: 'strings' },
  read: (value, field) => {
    const out: string[] = [];
    if (!isArray(value)) throw new SettingsInputError(`${field}: a list of texts`, field);
    for (const v of value) {
      if (typeof v !== 'string' || v === '' || v.length > 1024) throw new SettingsInputError(`${field}: a list of texts`, field);
      out.push(v);
    }
    return out;
  },
  fromTexts: (values) => values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean),
};

const readCount = (value: unknown, field: string): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new SettingsInputError(`${field}: a whole number of at least 1`, field);
  return value;
};
const COUNT: SettingType<number> = { kind: { type: 'count' }, read: readCount, fromTexts: (values, field) => readCount(Number(single(values, field)), field) };

const BUNDLE_RULES: SettingType<readonly BundleRule[]> = {
  kind: { type: 'bundleRules' },
  read: (value, field) => {
    const out: BundleRule[] = [];
    if (!isArray(value)) throw new SettingsInputError(`${field}: a list of {rule, profile}`, field);
    for (const r of value) {
      if (!isObject(r) || typeof r.rule !== 'string' || r.rule === '' || typeof r.profile !== 'string' || r.profile === '') {
        throw new SettingsInputError(`${field}: a list of {rule, profile}`, field);
      }
      out.push({ rule: r.rule, profile: r.profile });
    }
    return out;
  },
  fromTexts: (values, field) => values.map((v) => {
    const eq = v.indexOf('=');
    if (eq <= 0 || eq === v.length - 1) throw new SettingsInputError(`${field}: give a rule as rule=profile (e.g. Composition:0=http://…/Profile)`, field);
    return { rule: v.slice(0, eq), profile: v.slice(eq + 1) };
  }),
};

/** Each setting's value type, so that a value read is typed as its setting's. */
const TYPES: { readonly [K in keyof Required<ValidationSettings>]: SettingType<Required<ValidationSettings>[K]> } = {
  bestPractice: oneOf(BEST_PRACTICE),
  extensionDomains: STRINGS,
  allowExampleUrls: BOOLEAN,
  assumeValidRestReferences: BOOLEAN,
  referencePolicy: oneOf(REFERENCE_POLICIES),
  containedPolicy: oneOf(CONTAINED_POLICIES),
  htmlInMarkdown: oneOf(HTML_IN_MARKDOWN),
  securityChecks: BOOLEAN,
  allowComments: BOOLEAN,
  language: STRING,
  forPublication: BOOLEAN,
  noExperimentalContent: BOOLEAN,
  unknownCodeSystemsCauseErrors: BOOLEAN,
  displayIssuesAreWarnings: BOOLEAN,
  maxValidationMessages: COUNT,
  bundleRules: BUNDLE_RULES,
  r5BundleRelativeReferencePolicy: oneOf(R5_POLICY),
  enforceAggregationOutsideBundles: BOOLEAN,
};

function put<K extends SettingName>(out: Pick<ValidationSettings, K>, name: K, value: unknown, field: string): void {
  out[name] = TYPES[name].read(value, field);
}

function putTexts<K extends SettingName>(out: Pick<ValidationSettings, K>, name: K, values: readonly string[], field: string): void {
  out[name] = TYPES[name].fromTexts(values, field);
}

/** Every setting, in the order the documentation lists them. */
export const SETTINGS: readonly SettingSpec[] = [
  { name: 'bestPractice', kind: TYPES.bestPractice.kind, flag: '-best-practice', hl7Flag: true, description: 'How best-practice rules are reported: ignore, hint, warning (default) or error' },
  { name: 'extensionDomains', kind: TYPES.extensionDomains.kind, flag: '-extension', hl7Flag: true, description: 'URL prefixes whose unknown extensions are accepted; `any` accepts every unknown extension with a hint' },
  { name: 'allowExampleUrls', kind: TYPES.allowExampleUrls.kind, flag: '-allow-example-urls', hl7Flag: true, description: 'Accept URLs on example hosts (example.org, example.com, acme.com); default true' },
  { name: 'assumeValidRestReferences', kind: TYPES.assumeValidRestReferences.kind, flag: '-assumeValidRestReferences', hl7Flag: true, description: 'Take `Type/id` references to point at a resource of that type' },
  { name: 'referencePolicy', kind: TYPES.referencePolicy.kind, flag: '-reference-policy', hl7Flag: false, description: 'References outside the resource and its Bundle: IGNORE (default), CHECK_TYPE_IF_EXISTS, CHECK_EXISTS, CHECK_EXISTS_AND_TYPE, CHECK_VALID' },
  { name: 'containedPolicy', kind: TYPES.containedPolicy.kind, flag: '-contained-policy', hl7Flag: false, description: 'Nested resources (contained, Bundle entries, Parameters values): IGNORE, CHECK_TYPE, CHECK_VALID (default)' },
  { name: 'htmlInMarkdown', kind: TYPES.htmlInMarkdown.kind, flag: '-html-in-markdown', hl7Flag: true, description: 'HTML tags in markdown: none, warning (default) or error' },
  { name: 'securityChecks', kind: TYPES.securityChecks.kind, flag: '-security-checks', hl7Flag: true, description: 'Text that looks like HTML in strings is an error' },
  { name: 'allowComments', kind: TYPES.allowComments.kind, flag: '-allow-comments', hl7Flag: false, description: 'JSON comments are read without an error' },
  { name: 'language', kind: TYPES.language.kind, flag: '-language', hl7Flag: true, description: 'The language (BCP 47) displays are checked in, unless the resource gives its own' },
  { name: 'forPublication', kind: TYPES.forPublication.kind, flag: '-forPublication', hl7Flag: true, description: 'Rules for content HL7 publishes (HL7 canonical resources name their work group)' },
  { name: 'noExperimentalContent', kind: TYPES.noExperimentalContent.kind, flag: '-no-experimental-content', hl7Flag: true, description: 'Canonical resources marked experimental are errors' },
  { name: 'unknownCodeSystemsCauseErrors', kind: TYPES.unknownCodeSystemsCauseErrors.kind, flag: '-unknown-codesystems-cause-errors', hl7Flag: true, description: 'A code from an unknown code system is an error, not a warning' },
  { name: 'displayIssuesAreWarnings', kind: TYPES.displayIssuesAreWarnings.kind, flag: '-display-issues-are-warnings', hl7Flag: true, description: 'A wrong display is a warning, not an error' },
  { name: 'maxValidationMessages', kind: TYPES.maxValidationMessages.kind, flag: '-max-validation-messages', hl7Flag: false, description: 'At most this many issues per validation' },
  { name: 'bundleRules', kind: TYPES.bundleRules.kind, flag: '-bundle', hl7Flag: true, description: 'Bundle entries matching a rule (`Type:index`, `Type:id`, `Type`, `index`) must follow a profile' },
  { name: 'r5BundleRelativeReferencePolicy', kind: TYPES.r5BundleRelativeReferencePolicy.kind, flag: '-r5-bundle-relative-reference-policy', hl7Flag: true, description: 'R5 relative references in Bundles: default, never, always (no effect on R4 content)' },
  { name: 'enforceAggregationOutsideBundles', kind: TYPES.enforceAggregationOutsideBundles.kind, flag: '-enforce-aggregation-outside-bundles', hl7Flag: false, description: 'Check a profile\'s reference aggregation modes for resources outside a Bundle too' },
];

/**
 * Where the HL7 CLI's defaults differ from the engine's (which follow Link Cloud's service, for the
 * flow): the CLI and the conformance harness start from these. HL7 reports a wrong display as an
 * error unless told `-display-issues-are-warnings`; the service's terminology answers a warning.
 */
export const HL7_CLI_DEFAULTS: Readonly<ValidationSettings> = Object.freeze({ displayIssuesAreWarnings: false });

const BY_NAME = new Map<string, SettingSpec>(SETTINGS.map((s) => [s.name, s]));
const BY_FLAG = new Map(SETTINGS.map((s) => [s.flag.toLowerCase(), s]));

// ---- our names: a configuration's `settings`, $validate's query parameters and Parameters body ----

/** Settings from a JSON object with our names (a validation configuration's `settings`); unknown names are refused. */
export function parseSettings(input: unknown, field = 'settings'): ValidationSettings {
  if (input === undefined || input === null) return {};
  if (!isObject(input)) throw new SettingsInputError(`${field}: an object of settings`, field);
  const out: ValidationSettings = {};
  for (const [name, value] of Object.entries(input)) {
    const spec = BY_NAME.get(name);
    if (!spec) throw new SettingsInputError(`${field}.${name}: unknown setting (known: ${SETTINGS.map((s) => s.name).join(', ')})`, `${field}.${name}`);
    if (value === undefined || value === null) continue;
    put(out, spec.name, value, `${field}.${name}`);
  }
  return out;
}

/**
 * Settings among query parameters (each a string, or repeated); other parameters are left to the
 * caller. `bundleRules` is given as `rule=profile` (repeatable), a list as repeats or commas.
 */
export function settingsFromQuery(query: Record<string, unknown>): ValidationSettings {
  const out: ValidationSettings = {};
  for (const spec of SETTINGS) {
    const raw = query[spec.name];
    if (raw === undefined) continue;
    const values = (isArray(raw) ? raw : [raw]).map(String);
    putTexts(out, spec.name, values, spec.name);
  }
  return out;
}

/** True for a query parameter or Parameters name that is a setting. */
export function isSettingName(name: string): boolean {
  return BY_NAME.has(name);
}

/** One setting from the texts given for it (query parameters, CLI values, Parameters values). */
export function readText(spec: SettingSpec, values: readonly string[], field: string): unknown {
  return TYPES[spec.name].fromTexts(values, field);
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
    const [rule, profile] = values;
    if (rule === undefined || profile === undefined) throw new SettingsInputError(`${field}: a rule and a profile`, field);
    settings.bundleRules = [...(isArray(settings.bundleRules) ? settings.bundleRules : []), { rule, profile }];
  } else if (spec.kind.type === 'strings') {
    const had = settings[spec.name];
    const more = readText(spec, values, field);
    settings[spec.name] = [...(isArray(had) ? had : []), ...(isArray(more) ? more : [])];
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
  /**
   * The fetcher the HL7 test runner validates with: its own (`test-runner`, no `fetcher` key), which
   * resolves every URL but those on example.org and under http://hl7.org/fhir/invalid, or the HL7
   * CLI's (`standalone`), which looks URLs up in packages it loads on the fly (not reproduced here:
   * such URLs are not checked). cli/test-runner-fetcher.ts.
   */
  fetcher: 'test-runner' | 'standalone';
}

/** Manifest keys that have no effect in this engine, and why (docs/validator-settings.md repeats them). */
export const MANIFEST_KEYS_LEFT: Readonly<Record<string, string>> = {
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
  'ids-in-errors': 'changes only the wording of messages',
};

/** Settings from the HL7 test manifest's keys (`{"best-practice":"Error","allow-comments":true}`). */
export function settingsFromManifest(options: Record<string, unknown>): ManifestSettings {
  const settings: ValidationSettings = {};
  const ignored: ManifestSettings['ignored'] = [];
  let fetcher: ManifestSettings['fetcher'] = 'test-runner';
  for (const [key, value] of Object.entries(options)) {
    const field = `options.${key}`;
    switch (key) {
      case 'best-practice': settings.bestPractice = TYPES.bestPractice.read(value, field); break;
      case 'allowed-extension-domain':
      case 'allowed-extension-domains': {
        const domains = TYPES.extensionDomains.read(isArray(value) ? value : [value], field);
        settings.extensionDomains = [...(settings.extensionDomains ?? []), ...domains];
        break;
      }
      case 'examples': settings.allowExampleUrls = TYPES.allowExampleUrls.read(value, field); break;
      case 'assumeValidRestReferences': settings.assumeValidRestReferences = TYPES.assumeValidRestReferences.read(value, field); break;
      case 'validateReference': settings.referencePolicy = TYPES.referencePolicy.read(value, field); break;
      case 'validateContains': settings.containedPolicy = TYPES.containedPolicy.read(value, field); break;
      // the HL7 runner switches it on by the key's presence, whatever its value
      case 'noHtmlInMarkdown': settings.htmlInMarkdown = 'error'; break;
      case 'security-checks': settings.securityChecks = TYPES.securityChecks.read(value, field); break;
      case 'allow-comments': settings.allowComments = TYPES.allowComments.read(value, field); break;
      case 'language': settings.language = TYPES.language.read(value, field); break;
      // the HL7 runner compares the text with "true"
      case 'for-publication': settings.forPublication = value === true || value === 'true'; break;
      case 'no-experimental-content': settings.noExperimentalContent = TYPES.noExperimentalContent.read(value, field); break;
      case 'wrong-displays': settings.displayIssuesAreWarnings = value === 'warning'; break;
      case 'bundle-param': settings.bundleRules = TYPES.bundleRules.read([value], field); break;
      // the runner's own fetcher unless told `standalone` (references resolve through the supporting files either way)
      case 'fetcher': fetcher = value === 'standalone' ? 'standalone' : 'test-runner'; break;
      case 'enforceAggregationOutsideBundles': settings.enforceAggregationOutsideBundles = TYPES.enforceAggregationOutsideBundles.read(value, field); break;
      case 'r5-bundle-relative-reference-policy': settings.r5BundleRelativeReferencePolicy = TYPES.r5BundleRelativeReferencePolicy.read(value, field); break;
      default: {
        const reason = MANIFEST_KEYS_LEFT[key];
        ignored.push({ key, reason: reason ?? 'not a setting this validator knows' });
      }
    }
  }
  return { settings, ignored, fetcher };
}
