import type { Designation } from './code-system-index.js';
import { formatTerminologyMessage } from './terminology-messages.js';
import type { TerminologyIssue } from '../ports/terminology.js';

/**
 * Display checks: a display given with a code is accepted when it matches the code's display or
 * any of its designations (ignoring case and runs of whitespace, as the HL7 validator does);
 * otherwise a warning in the HL7 wording lists the valid choices.
 */
export function checkDisplay(
  system: string,
  code: string,
  given: string | undefined,
  candidates: Array<Designation | undefined>,
  displayLanguage: string | undefined,
): TerminologyIssue | undefined {
  if (given === undefined || given === '') return undefined;
  const choices: Designation[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (!candidate || typeof candidate.value !== 'string' || candidate.value === '') continue;
    if (displayLanguage && candidate.language && !languageMatches(candidate.language, displayLanguage)) continue;
    const key = normalise(candidate.value);
    if (key === normalise(given)) return undefined;
    if (!seen.has(key)) {
      seen.add(key);
      choices.push(candidate);
    }
  }
  // Nothing to compare with (e.g. ISO 3166 codes, whose names we do not hold): no opinion.
  if (choices.length === 0) return undefined;
  const listed = choices.map((choice) => `'${choice.value}'${choice.language ? ` (${choice.language})` : ''}`);
  const last = listed[listed.length - 1] ?? '';
  const presented = listed.length === 1 ? last : `${listed.slice(0, -1).join(', ')} or ${last}`;
  const id = choices.length === 1 ? 'Display_Name_for__should_be_one_of__instead_of_one' : 'Display_Name_for__should_be_one_of__instead_of_other';
  return {
    severity: 'warning',
    code: 'invalid',
    messageId: 'Display_Name_for__should_be_one_of__instead_of',
    text: formatTerminologyMessage(id, choices.length, system, code, presented, given, displayLanguage ?? '--'),
  };
}

function normalise(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase(); // linear: each whitespace run replaced in one step
}

function languageMatches(designationLanguage: string, wanted: string): boolean {
  const languages = wanted.split(',').map((l) => l.trim().toLowerCase().split(';')[0] ?? '');
  const lang = designationLanguage.toLowerCase();
  return languages.some((l) => l === '*' || lang === l || lang.startsWith(`${l}-`) || l.startsWith(`${lang}-`));
}
