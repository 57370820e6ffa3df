/**
 * The validator's options: per Validator (ValidatorOptions) and per call (ValidateOptions).
 * A new option is added here (with its default in resolveValidatorOptions when it has one);
 * the walk reads the resolved options from `ctx.services.options`.
 */

export interface ValidatorOptions {
  /** JSON text longer than this is refused (characters; default 64 MiB). */
  maxInputLength?: number;
  /** Deeper nesting is refused (default 300 levels). */
  maxDepth?: number;
  /** How an extension whose definition cannot be found is reported (default error, as the HL7 validator). */
  unknownExtensionSeverity?: 'error' | 'warning' | 'information';
  /** The HL7 validator's optional security checks (HTML in strings). Default false. */
  securityChecks?: boolean;
  /**
   * How markdown with embedded HTML tags is reported, as the HL7 validator's `-html-in-markdown`
   * (its test cases' `noHtmlInMarkdown` is 'error'). Default 'warning'.
   */
  htmlInMarkdown?: 'error' | 'warning' | 'none';
  /** Accept URLs on example hosts (example.org, example.com, acme.com). Default true. */
  allowExampleUrls?: boolean;
  /** Report best-practice invariants (as warnings). Default true. */
  bestPractice?: boolean;
  /**
   * The HL7 validator's assumeValidRestReferences: a RESTful reference (`Patient/1`) is taken to
   * point at a resource of the type it names, so rules on target types can be checked without
   * resolving it (Questionnaire questionnaire-referenceResource). Default false, as the HL7 CLI.
   */
  assumeValidRestReferences?: boolean;
}

export interface ValidateOptions {
  /** Profiles to validate against in addition to meta.profile (canonical URLs). */
  profiles?: readonly string[];
  /** Passed on to remote terminology. */
  authorization?: string;
}

/** The options with their defaults applied; an option without a default stays optional. */
export type ResolvedValidatorOptions = ValidatorOptions &
  Required<Pick<ValidatorOptions, 'maxInputLength' | 'maxDepth' | 'unknownExtensionSeverity' | 'securityChecks' | 'htmlInMarkdown' | 'allowExampleUrls' | 'bestPractice'>>;

export function resolveValidatorOptions(options: ValidatorOptions): ResolvedValidatorOptions {
  return {
    ...options,
    maxInputLength: options.maxInputLength ?? 64 * 1024 * 1024,
    maxDepth: options.maxDepth ?? 300,
    unknownExtensionSeverity: options.unknownExtensionSeverity ?? 'error',
    securityChecks: options.securityChecks ?? false,
    htmlInMarkdown: options.htmlInMarkdown ?? 'warning',
    allowExampleUrls: options.allowExampleUrls ?? true,
    bestPractice: options.bestPractice ?? true,
  };
}
