/** URL shapes the walk tests. */

/** An absolute URL starts with a scheme. Linear: anchored, one character class up to ':', which it cannot match. */
export const ABSOLUTE_URL = /^[A-Za-z][A-Za-z0-9+.-]*:/;
