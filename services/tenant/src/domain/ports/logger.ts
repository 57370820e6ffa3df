/**
 * Where the tenant's use cases write their log lines: structured fields first, then the message
 * (the shared pino logger has this shape; the composition root passes it, tests a silent one).
 * Only what the application writes is here, so it depends on no logging library.
 */
export interface Logger {
  info(fields: Readonly<Record<string, unknown>>, message: string): void;
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
  error(fields: Readonly<Record<string, unknown>>, message: string): void;
}
