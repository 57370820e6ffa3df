/** URL shapes the walk tests. */

/** An absolute URL starts with a scheme. Linear: anchored, one character class up to ':', which it cannot match. */
export const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Example hosts (example.org, example.com, acme.com), in any case. Linear: fixed alternatives. */
const EXAMPLE_HOST = /example\.(org|com)|acme\.com/i;

/** A URL on an example host, which the HL7 validator treats apart (allowed, or refused with -allow-example-urls false). */
export function isExampleUrl(url: string): boolean {
  return EXAMPLE_HOST.test(url);
}

/** The HL7 validator's absolute URL test: a lower-case scheme, then something without spaces. */
export function isAbsoluteUrl(ref: string): boolean {
  const colon = ref.indexOf(':');
  if (colon <= 0) return false;
  const scheme = ref.slice(0, colon);
  const details = ref.slice(colon + 1);
  // linear: anchored, one character class
  const schemeOk = /^[a-z][a-z0-9+.-]*$/.test(scheme);
  return schemeOk && details.length > 0 && !details.includes(' ');
}
