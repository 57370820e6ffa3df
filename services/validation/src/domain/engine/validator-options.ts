/**
 * The validator's options: per Validator (ValidatorOptions) and per call (ValidateOptions).
 *
 * `ValidationSettings` are the HL7 validator's settings, each with the meaning of the HL7 name it
 * is named after (docs/validator-settings.md lists them side by side with HL7's CLI flags and
 * test-manifest keys). They are given to a Validator (its defaults) and may be given again for one
 * call (`ValidateOptions.settings`, e.g. from a validation configuration or a $validate request):
 * a call's settings win over the Validator's, setting by setting.
 *
 * A new setting is added to ValidationSettings (with its default in resolveValidatorOptions when it
 * has one) and to settings-input.ts (how it is read from a CLI flag, a test-manifest key, a query
 * parameter or a configuration); the walk reads the resolved options from `ctx.run.options`.
 */
import type { ResourceFetcher } from '../ports/resource-fetcher.js';

/** HL7's BestPracticeWarningLevel: how best-practice rules (invariants marked best practice) are reported. */
export type BestPracticeLevel = 'ignore' | 'hint' | 'warning' | 'error';

/**
 * HL7's ReferenceValidationPolicy for a reference that is neither contained nor in the Bundle (or
 * Parameters) it sits in: IGNORE (no resolution), CHECK_TYPE_IF_EXISTS (resolve; when found, check
 * its type), CHECK_EXISTS (it must resolve), CHECK_EXISTS_AND_TYPE (it must resolve, to an allowed
 * type), CHECK_VALID (as CHECK_EXISTS_AND_TYPE, and it must follow a target profile).
 */
export const REFERENCE_POLICIES = ['IGNORE', 'CHECK_TYPE_IF_EXISTS', 'CHECK_EXISTS', 'CHECK_EXISTS_AND_TYPE', 'CHECK_VALID'] as const;
export type ReferencePolicy = (typeof REFERENCE_POLICIES)[number];

/**
 * HL7's ContainedReferenceValidationPolicy for a resource inside another (contained, a Bundle entry,
 * a Parameters value): IGNORE (not validated at all), CHECK_TYPE (only that the element allows its
 * type), CHECK_VALID (validated as a resource; the default).
 */
export const CONTAINED_POLICIES = ['IGNORE', 'CHECK_TYPE', 'CHECK_VALID'] as const;
export type ContainedPolicy = (typeof CONTAINED_POLICIES)[number];

/** HL7's BundleValidationRule: entries matching `rule` (`Type:index`, `Type:id`, `Type`, `index`) must follow `profile`. */
export interface BundleRule {
  readonly rule: string;
  readonly profile: string;
}

/** R5's relative-reference rule for Bundles (HL7's R5BundleRelativeReferencePolicy); R4 content keeps R4's rule whatever it says. */
export type R5BundleRelativeReferencePolicy = 'default' | 'never' | 'always';

export interface ValidationSettings {
  /** How best-practice rules are reported (HL7 `-best-practice`; default warning). */
  bestPractice?: BestPracticeLevel;
  /**
   * Extension URL prefixes whose unknown extensions are accepted (HL7 `-extension <domain>`); `any`
   * accepts every unknown extension, with a hint (HL7 `-extension any`). Modifier extensions are never accepted unknown.
   */
  extensionDomains?: readonly string[];
  /** Accept URLs on example hosts (example.org, example.com, acme.com). HL7 `-allow-example-urls`; default true. */
  allowExampleUrls?: boolean;
  /**
   * The HL7 validator's assumeValidRestReferences: a RESTful reference (`Patient/1`) is taken to
   * point at a resource of the type it names, so rules on target types can be checked without
   * resolving it. Default false, as the HL7 CLI.
   */
  assumeValidRestReferences?: boolean;
  /** HL7's reference validation policy for references outside the resource and its Bundle (default IGNORE). */
  referencePolicy?: ReferencePolicy;
  /** HL7's contained-resource validation policy (default CHECK_VALID). */
  containedPolicy?: ContainedPolicy;
  /** How markdown with embedded HTML tags is reported (HL7 `-html-in-markdown`; default warning). */
  htmlInMarkdown?: 'error' | 'warning' | 'none';
  /** The HL7 validator's optional security checks (HTML in strings). Default false. */
  securityChecks?: boolean;
  /** JSON comments (`//`, `/* *\/`) are read without an error, as HL7's JSON parser allows them when told. Default false. */
  allowComments?: boolean;
  /**
   * The language displays are checked in (HL7 `-language`, a BCP 47 tag): a display matching a
   * designation in that language is correct. The resource's own `language` wins. Default none.
   */
  language?: string;
  /** Rules for content published by HL7 (HL7 `-forPublication`): an HL7 canonical resource needs a work group. Default false. */
  forPublication?: boolean;
  /** Experimental content (a canonical resource with experimental = true) is an error (HL7 `-no-experimental-content`). Default false. */
  noExperimentalContent?: boolean;
  /** A code from a code system the terminology does not know is an error, not a warning (HL7 `-unknown-codesystems-cause-errors`). */
  unknownCodeSystemsCauseErrors?: boolean;
  /** A wrong display is a warning, not an error (HL7 `-display-issues-are-warnings`, the manifest's `wrong-displays: warning`). */
  displayIssuesAreWarnings?: boolean;
  /** At most this many issues per validation; the rest are dropped with one information issue saying so. Default no limit. */
  maxValidationMessages?: number;
  /** Bundle entries matching a rule must follow its profile (HL7 `-bundle <rule> <profile>`). */
  bundleRules?: readonly BundleRule[];
  /** R5's relative-reference rule for Bundles (HL7 `-r5-bundle-relative-reference-policy`); no effect on R4 content. */
  r5BundleRelativeReferencePolicy?: R5BundleRelativeReferencePolicy;
  /**
   * A profile's aggregation modes (contained, bundled, referenced) are checked for a resource that
   * is not inside a Bundle too (HL7's enforceAggregationOutsideBundles). Default false: on its own a
   * resource has no Bundle its references could be in.
   */
  enforceAggregationOutsideBundles?: boolean;
}

export interface ValidatorOptions extends ValidationSettings {
  /** JSON text longer than this is refused (characters; default 64 MiB). */
  maxInputLength?: number;
  /** Deeper nesting is refused (default 300 levels). */
  maxDepth?: number;
  /** How an extension whose definition cannot be found is reported (default error, as the HL7 validator). */
  unknownExtensionSeverity?: 'error' | 'warning' | 'information';
  /**
   * Resolves what a reference or a canonical names when it is neither in the resource, its Bundle
   * nor the loaded definitions (HL7's fetcher): the CLI's supporting files, the service's artifact
   * store. Without one, nothing outside resolves.
   */
  fetcher?: ResourceFetcher;
  /** Accept `xsi:schemaLocation` on FHIR XML elements (the HL7 validator's allowXsiLocation). Default false, as HL7. */
  allowXsiLocation?: boolean;
}

export interface ValidateOptions {
  /** Profiles to validate against in addition to meta.profile (canonical URLs). */
  profiles?: readonly string[];
  /** The format of text input (default: XML when its first character is `<`, else JSON). */
  format?: 'json' | 'xml';
  /** Passed on to remote terminology. */
  authorization?: string;
  /** Settings for this call; each one given wins over the Validator's. */
  settings?: ValidationSettings;
}

/** The options with their defaults applied; an option without a default stays optional. */
export type ResolvedValidatorOptions = ValidatorOptions &
  Required<Pick<ValidatorOptions, 'maxInputLength' | 'maxDepth' | 'unknownExtensionSeverity' | 'securityChecks' | 'htmlInMarkdown' | 'allowExampleUrls'
    | 'bestPractice' | 'referencePolicy' | 'containedPolicy' | 'allowComments' | 'extensionDomains'>>;

export function resolveValidatorOptions(options: ValidatorOptions): ResolvedValidatorOptions {
  return {
    ...options,
    maxInputLength: options.maxInputLength ?? 64 * 1024 * 1024,
    maxDepth: options.maxDepth ?? 300,
    unknownExtensionSeverity: options.unknownExtensionSeverity ?? 'error',
    securityChecks: options.securityChecks ?? false,
    htmlInMarkdown: options.htmlInMarkdown ?? 'warning',
    allowExampleUrls: options.allowExampleUrls ?? true,
    bestPractice: options.bestPractice ?? 'warning',
    referencePolicy: options.referencePolicy ?? 'IGNORE',
    containedPolicy: options.containedPolicy ?? 'CHECK_VALID',
    allowComments: options.allowComments ?? false,
    extensionDomains: options.extensionDomains ?? [],
  };
}

/** The Validator's options with one call's settings over them (the same object when the call brings none). */
export function withSettings(options: ResolvedValidatorOptions, settings: ValidationSettings | undefined): ResolvedValidatorOptions {
  if (!settings) return options;
  let changed = false;
  for (const value of Object.values(settings)) {
    if (value !== undefined) {
      changed = true;
      break;
    }
  }
  if (!changed) return options;
  const merged: ValidatorOptions = { ...options };
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  return resolveValidatorOptions(merged);
}
