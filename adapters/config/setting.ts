/**
 * One configuration property: its specification name, description, parser, default and flags.
 * Settings are immutable; `.default()`, `.optional()` and `.secret()` return new settings so that
 * shared fragments can be refined by a service without affecting other services.
 */

/** Thrown by a parser; the message completes the sentence "<property> (<ENV>) ...". */
export class SettingParseError extends Error {}

export type Parser<T> = (raw: string) => T;

export interface SettingSpec<T> {
  /** The property name exactly as the specification spells it, e.g. `cache.type`. */
  readonly name: string;
  readonly description: string;
  /** Human-readable type, shown in generated documentation (e.g. `integer 1..65535`). */
  readonly type: string;
  readonly parse: Parser<T>;
  /**
   * Renders a value for documentation (defaults) so generated tables show `a,b` for lists. A method,
   * so that a setting of any value type is a `Setting<unknown>` (see ConfigSchema).
   */
  format(value: T): string;
  readonly secret: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue?: T;
  /** Optional settings load as `undefined` when unset; the others are required unless defaulted. */
  readonly optional: boolean;
}

export class Setting<T> {
  constructor(readonly spec: SettingSpec<T>) {}

  /** Value used when the environment variable is unset or empty. */
  default(value: Exclude<T, undefined>): Setting<Exclude<T, undefined>> {
    return new Setting<Exclude<T, undefined>>({
      ...(this.spec as unknown as SettingSpec<Exclude<T, undefined>>),
      hasDefault: true,
      defaultValue: value,
      optional: false,
    });
  }

  /** Loads as `undefined` when unset instead of failing start-up. */
  optional(): Setting<T | undefined> {
    return new Setting<T | undefined>({
      ...(this.spec as SettingSpec<T | undefined>),
      hasDefault: false,
      defaultValue: undefined,
      optional: true,
    });
  }

  /** Marks the value as secret: never echoed in error messages, flagged in generated docs. */
  secret(): Setting<T> {
    return new Setting<T>({ ...this.spec, secret: true });
  }

  /** Replaces the description (e.g. a service explaining a shared property in its own terms). */
  describe(description: string): Setting<T> {
    return new Setting<T>({ ...this.spec, description });
  }
}

/** Creates a required setting (no default) from a parser. */
export function defineSetting<T>(
  name: string, description: string, type: string, parse: Parser<T>, format: (value: T) => string = String,
): Setting<T> {
  return new Setting<T>({ name, description, type, parse, format, secret: false, hasDefault: false, optional: false });
}
