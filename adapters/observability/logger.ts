import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import { currentContext } from './request-context.js';

/**
 * The one logger type every module takes. JSON lines on stdout (pino).
 * Rule: FHIR resource bodies and patient identifiers are logged only at `debug` or below,
 * never at info/warn/error; secrets (passwords, private keys, tokens) are never logged.
 */
export type Logger = PinoLogger;

const REDACTED_PATHS = [
  'password', '*.password', 'authorization', '*.authorization', 'headers.authorization',
  'req.headers.authorization', 'privateKey', '*.privateKey', 'd', '*.d',
];

const KNOWN_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * `level` defaults to LOG_LEVEL. An unknown level falls back to `info` instead of throwing: the boot
 * logger exists before the configuration is validated, and it must live to report that very error.
 */
export function createLogger(
  name: string, level: string = process.env.LOG_LEVEL ?? 'info', options: LoggerOptions = {},
  /** Where lines go; stdout when absent (tests pass a stream to read what was logged). */
  destination?: DestinationStream,
): Logger {
  const pinoOptions: LoggerOptions = {
    name,
    level: KNOWN_LEVELS.has(level) ? level : 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Lines written while serving a request carry its trace id, so support can follow one request.
    mixin: traceIdMixin,
    ...options,
  };
  return destination ? pino(pinoOptions, destination) : pino(pinoOptions);
}

function traceIdMixin(): Record<string, unknown> {
  const traceId = currentContext()?.traceId;
  return traceId ? { traceId } : {};
}

/** A logger that writes nothing; for unit tests and tools that print their own output. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
