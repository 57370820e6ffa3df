/**
 * A tiny HTML template helper that escapes by default: every `${value}` in an `html` template is
 * escaped unless it is itself the result of an `html` template (already safe). The pre-qualification
 * page interpolates facility ids, report ids and FHIR messages (which echo submitted data), so nothing
 * may ever reach the page unescaped (the original's V-8 weakness).
 *
 * Allowed places for an interpolation: element text and DOUBLE-QUOTED attribute values. Never inside
 * `<script>`/`<style>`, an event handler, an unquoted attribute or a URL attribute.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** Markup that is known to be safe (built by `html`, or a module constant passed to `trustedHtml`). */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number' || value === true) return escapeHtml(String(value));
  // An object would print as "[object Object]": a programming error, better loud than silent.
  throw new TypeError(`Cannot interpolate a ${typeof value} into HTML`);
}

/** Tagged template: `html\`<td>${message}</td>\`` escapes `message`. `false`, null and undefined render nothing. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/**
 * Marks a compile-time constant (the page's inline script and style) as markup. Never pass data to it.
 */
export function trustedHtml(constant: string): SafeHtml {
  return new SafeHtml(constant);
}
