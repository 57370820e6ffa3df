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

export type LanguageControlProblem =
  | { id: 'XHTML_CONTROL_NO_LANGS'; args: [] }
  | { id: 'XHTML_CONTROL_LANGS_PROHIBITED'; args: [string] }
  | { id: 'XHTML_CONTROL_LANGS_MISSING'; args: [string] };

/** What the control value says is wrong with these sections, if anything. */
export function checkLanguageControl(control: string, sections: readonly string[]): LanguageControlProblem | undefined {
  if (control === '_no') return sections.length > 0 ? { id: 'XHTML_CONTROL_LANGS_PROHIBITED', args: [sections.join(', ')] } : undefined;
  if (control === '_yes') return sections.length === 0 ? { id: 'XHTML_CONTROL_NO_LANGS', args: [] } : undefined;
  const missing = control.split(',').map((l) => l.trim()).filter((l) => l && !sections.includes(l));
  return missing.length > 0 ? { id: 'XHTML_CONTROL_LANGS_MISSING', args: [missing.join(', ')] } : undefined;
}
