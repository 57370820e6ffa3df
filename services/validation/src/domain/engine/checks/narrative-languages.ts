/**
 * Language sections of a narrative (HL7's narrative-language-control extension on a profile's
 * Narrative element): the direct child `div`s of the root `div` with `lang` or `xml:lang`.
 * `_no` prohibits sections, `_yes` requires them, any other value (a comma-separated list of
 * languages) requires a section for each. One linear scan (xhtml-scanner.ts).
 */
import { scanXhtml } from './xhtml-scanner.js';

export const EXT_NARRATIVE_LANGUAGE_CONTROL = 'http://hl7.org/fhir/StructureDefinition/narrative-language-control';

/** The languages of the narrative's language sections, sorted and without repeats. */
export function narrativeLanguageSections(div: string): string[] {
  const langs = new Set<string>();
  let depth = 0;
  scanXhtml(div, {
    open(name, attributes, selfClosing) {
      if (depth === 1 && (name === 'div' || name.endsWith(':div'))) {
        const lang = attributes.find((a) => a.name === 'xml:lang')?.value ?? attributes.find((a) => a.name === 'lang')?.value;
        if (lang) langs.add(lang);
      }
      if (!selfClosing) depth++;
    },
    close() {
      depth--;
    },
    text() {},
    doctype() {},
  });
  return [...langs].sort();
}

/** A problem and its arguments before the profile's name (which HL7's messages take last). */
export type LanguageControlProblem =
  | { id: 'XHTML_CONTROL_NO_LANGS'; args: [string] }
  | { id: 'XHTML_CONTROL_LANGS_REQUIRED'; args: [string] }
  | { id: 'XHTML_CONTROL_LANGS_REQUIRED_LANG'; args: [string, string] };

/** What the control value says is wrong with these sections, if anything (the first missing language of a list). */
export function checkLanguageControl(control: string, sections: readonly string[]): LanguageControlProblem | undefined {
  if (control === '_no') return sections.length > 0 ? { id: 'XHTML_CONTROL_NO_LANGS', args: [sections.join(', ')] } : undefined;
  if (control === '_yes') return sections.length === 0 ? { id: 'XHTML_CONTROL_LANGS_REQUIRED', args: [''] } : undefined;
  const missing = control.split(',').map((l) => l.trim()).find((l) => l && !sections.includes(l));
  return missing !== undefined ? { id: 'XHTML_CONTROL_LANGS_REQUIRED_LANG', args: [missing, sections.join(', ')] } : undefined;
}
