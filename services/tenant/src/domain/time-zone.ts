/**
 * IANA time-zone names. `Intl.DateTimeFormat` accepts more than IANA names (offsets such as
 * "+05:00", and case variants such as "america/new_york"), so a name counts as IANA only when
 * Intl accepts it AND it is spelled as an Area/Location identifier or is "UTC".
 */
const IANA_SHAPE = /^(?:[A-Z][A-Za-z0-9_+-]*)(?:\/[A-Za-z0-9_+-]+){1,2}$/;

export function isKnownTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Returns null when the name is an IANA zone, else the reason, naming the value. */
export function timeZoneProblem(name: string): string | null {
  if (name.trim() === '') return 'timeZone is required (an IANA name such as America/Chicago)';
  if (!isKnownTimeZone(name)) return `timeZone: unknown time zone ${JSON.stringify(name)}`;
  if (name !== 'UTC' && !IANA_SHAPE.test(name)) {
    return `timeZone: incorrect format ${JSON.stringify(name)} (time zones must be IANA names, for example America/Chicago)`;
  }
  // Intl canonicalises case-insensitively; IANA identifiers are case-sensitive in the database.
  const resolved = new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone;
  if (resolved.toLowerCase() === name.toLowerCase() && resolved !== name) {
    return `timeZone: incorrect case ${JSON.stringify(name)}; did you mean ${resolved}?`;
  }
  return null;
}
