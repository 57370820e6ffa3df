import { defineSetting, SettingParseError, type Setting } from './setting.js';

/**
 * Setting factories, one per value type. Every parser receives the trimmed, non-empty raw string
 * and throws SettingParseError with a message such as `must be an integer; got "abc"`.
 */

const quote = (raw: string): string => JSON.stringify(raw);

function fail(message: string): never {
  throw new SettingParseError(message);
}

export function stringSetting(name: string, description: string): Setting<string> {
  return defineSetting(name, description, 'string', (raw) => raw);
}

export interface IntRange { min?: number; max?: number }

function rangeLabel({ min, max }: IntRange): string {
  if (min !== undefined && max !== undefined) return ` ${min}..${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

function parseInteger(raw: string, range: IntRange, what = 'an integer'): number {
  if (!/^[+-]?\d+$/.test(raw)) fail(`must be ${what}${rangeLabel(range)}; got ${quote(raw)}`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) fail(`must be ${what}${rangeLabel(range)}; got ${quote(raw)}`);
  if ((range.min !== undefined && value < range.min) || (range.max !== undefined && value > range.max)) {
    fail(`must be ${what}${rangeLabel(range)}; got ${quote(raw)}`);
  }
  return value;
}

export function intSetting(name: string, description: string, range: IntRange = {}): Setting<number> {
  return defineSetting(name, description, `integer${rangeLabel(range)}`, (raw) => parseInteger(raw, range));
}

export function portSetting(name: string, description: string): Setting<number> {
  return intSetting(name, description, { min: 0, max: 65535 });
}

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

/** Accepts true|false|1|0|yes|no, case-insensitively (`True` is what .NET tooling writes). */
export function booleanSetting(name: string, description: string): Setting<boolean> {
  return defineSetting(name, description, 'boolean (true|false|1|0|yes|no)', (raw) => {
    const word = raw.toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
    return fail(`must be one of true, false, 1, 0, yes, no; got ${quote(raw)}`);
  });
}

/** An absolute http(s) URL; the value is kept as the string given (trailing slash included). */
export function urlSetting(name: string, description: string, protocols: readonly string[] = ['http:', 'https:']): Setting<string> {
  return defineSetting(name, description, `URL (${protocols.map((p) => p.replace(':', '')).join('|')})`, (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return fail(`must be an absolute URL; got ${quote(raw)}`);
    }
    if (!protocols.includes(url.protocol)) {
      fail(`must be a URL with scheme ${protocols.map((p) => p.replace(':', '')).join(' or ')}; got ${quote(raw)}`);
    }
    return raw;
  });
}

/** One of a fixed set of words, compared exactly (the specification lists them in lower case). */
export function enumSetting<const V extends string>(name: string, description: string, values: readonly V[]): Setting<V> {
  return defineSetting(name, description, values.join(' | '), (raw) => {
    const known = values.find((value) => value === raw);
    if (known !== undefined) return known;
    return fail(`must be one of ${values.join(', ')}; got ${quote(raw)}`);
  });
}

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
type DurationUnit = keyof typeof DURATION_UNITS_MS;
const isDurationUnit = (text: string): text is DurationUnit => Object.hasOwn(DURATION_UNITS_MS, text);

/**
 * A duration. A bare number is read in `unit`; a suffix (`500ms`, `30s`, `5m`, `1h`) converts.
 * The loaded value is a whole number in `unit`, so `cache.validate-code.ttl` (seconds) stays seconds.
 */
export function durationSetting(
  name: string, description: string, unit: 'ms' | 's', range: IntRange = { min: 0 },
): Setting<number> {
  const label = unit === 's' ? 'seconds' : 'milliseconds';
  return defineSetting(name, description, `duration in ${label}${rangeLabel(range)} (or with suffix ms|s|m|h)`, (raw) => {
    const match = /^(\d+)\s*(ms|s|m|h)?$/i.exec(raw);
    if (!match) fail(`must be a duration in ${label} (e.g. 30, 30s, 5m, 1h); got ${quote(raw)}`);
    const amount = Number(match[1]);
    const suffix = match[2]?.toLowerCase() ?? unit;
    // The pattern admits only the units' names.
    if (!isDurationUnit(suffix)) return fail(`must be a duration in ${label} (e.g. 30, 30s, 5m, 1h); got ${quote(raw)}`);
    const ms = amount * DURATION_UNITS_MS[suffix];
    const value = ms / DURATION_UNITS_MS[unit];
    if (!Number.isInteger(value)) fail(`must be a whole number of ${label}; got ${quote(raw)}`);
    return parseInteger(String(value), range, `a duration in ${label}`);
  });
}

export function secondsSetting(name: string, description: string, range: IntRange = { min: 0 }): Setting<number> {
  return durationSetting(name, description, 's', range);
}

const BYTE_UNITS = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 } as const;
const isByteUnit = (text: string): text is keyof typeof BYTE_UNITS => Object.hasOwn(BYTE_UNITS, text);

/** A size such as `1mb`, `50mb`, `512kb` or a plain byte count; loads as bytes. */
export function byteSizeSetting(name: string, description: string): Setting<number> {
  return defineSetting(name, description, 'size (e.g. 512kb, 1mb, or bytes)', (raw) => {
    const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(raw);
    if (!match) return fail(`must be a size such as 512kb, 1mb or a byte count; got ${quote(raw)}`);
    const unit = (match[2] ?? 'b').toLowerCase();
    // The pattern admits only the units' names.
    if (!isByteUnit(unit)) return fail(`must be a size such as 512kb, 1mb or a byte count; got ${quote(raw)}`);
    return Math.floor(Number(match[1]) * BYTE_UNITS[unit]);
  }, formatBytes);
}

function formatBytes(bytes: number): string {
  for (const [unit, size] of [['gb', 1024 ** 3], ['mb', 1024 ** 2], ['kb', 1024]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/**
 * A comma-separated list (empty items dropped). With `item`, every element goes through that
 * setting's parser, so `listSetting(..., urlSetting(...))` validates each URL.
 */
export function listSetting(name: string, description: string, item?: undefined, separator?: string): Setting<string[]>;
export function listSetting<T>(name: string, description: string, item: Setting<T>, separator?: string): Setting<T[]>;
export function listSetting<T>(
  name: string, description: string, item?: Setting<T>, separator = ',',
): Setting<string[]> | Setting<T[]> {
  const type = `list of ${item?.spec.type ?? 'string'} separated by "${separator}"`;
  const partsOf = (raw: string): string[] => {
    const parts = raw.split(separator).map((part) => part.trim()).filter((part) => part !== '');
    if (parts.length === 0) fail(`must contain at least one item; got ${quote(raw)}`);
    return parts;
  };
  if (!item) return defineSetting(name, description, type, partsOf, (values) => values.join(separator));
  return defineSetting(name, description, type, (raw) => partsOf(raw).map((part, index) => {
    try {
      return item.spec.parse(part);
    } catch (error) {
      if (error instanceof SettingParseError) fail(`item ${index + 1} ${error.message}`);
      throw error;
    }
  }), (values) => values.map((value) => item.spec.format(value)).join(separator));
}
