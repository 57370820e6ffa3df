/**
 * Terminology message catalogue, keyed by the HL7 validator's message ids (the id travels as the
 * operationoutcome-message-id, and category rules match the texts, so both follow the HL7 Java
 * validator's wording). `{n}` are positional arguments; where the HL7 text has a stray `)` we
 * follow the wording the category rules were written against instead.
 */
import { wordedTemplate } from '../engine/wording.js';

export const TERMINOLOGY_MESSAGES = {
  // The specification's own shape for a value set (or code system) that cannot be found.
  Terminology_TX_ValueSet_NotFound: "Can't find value set {0}",

  // Binding checks: CodeableConcept ({0} = value set label, {1} = codes).
  Terminology_TX_NoValid_1_CC: 'None of the codings provided are in the value set {0}, and a coding from this value set is required (codes = {1})',
  Terminology_TX_NoValid_2_CC: 'None of the codings provided are in the value set {0}, and a coding should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable) (codes = {1})',
  Terminology_TX_NoValid_3_CC: 'None of the codings provided are in the value set {0}, and a coding is recommended to come from this value set (codes = {1})',
  // Binding checks: Coding ({0} = value set label, {1} = extra detail, {2} = system#code).
  Terminology_TX_NoValid_4: 'The Coding provided ({2}) is not in the value set {0}, and a code is required from this value set{1}',
  Terminology_TX_NoValid_5: 'The Coding provided ({2}) is not in the value set {0}, and a code should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable){1}',
  Terminology_TX_NoValid_6: 'The Coding provided ({2}) is not in the value set {0}, and a code is recommended to come from this value set{1}',
  // Binding checks: plain code ({0} = code, {1} = value set label, {2} = extra detail).
  Terminology_TX_NoValid_16: "The value provided ('{0}') is not in the value set {1}, and a code is required from this value set{2}",
  Terminology_TX_NoValid_17: "The value provided ('{0}') is not in the value set {1}, and a code should come from this value set unless it has no suitable code (note that the validator cannot judge what is suitable){2}",
  Terminology_TX_NoValid_18: "The value provided ('{0}') is not in the value set {1}, and a code is recommended to come from this value set{2}",
  // maxValueSet ({0} = max value set label, {1} = codes or system, {2} = code).
  Terminology_TX_NoValid_8: 'None of the codes provided are in the maximum value set {0}, and a code from this value set is required (codes = {1})',
  Terminology_TX_NoValid_10: 'The code provided is not in the maximum value set {0}, and a code from this value set is required (code = {1}#{2})',
  // No code at all.
  Terminology_TX_Code_ValueSet: 'No code provided, and a code is required from the value set {0}',
  Terminology_TX_Code_ValueSet_Ext: 'No code provided, and a code should be provided from the value set {0}',

  // A plain code whose system the value set cannot supply ({0} = code, {1} = url|version).
  Unable_to_resolve_system__value_set_has_no_matches: "The System URI could not be determined for the code '{0}' in the ValueSet '{1}'",

  // Code systems.
  Terminology_TX_System_Unknown: "Unknown Code System '{0}'",
  Terminology_TX_System_NotKnown: "Code System URI '{0}' is unknown so the code cannot be validated",
  TERMINOLOGY_TX_SYSTEM_NOT_USABLE: "The definition for the Code System with URI '{0}' doesn't provide any codes so the code cannot be validated",
  Coding_has_no_system__cannot_validate: 'Coding has no system. A code with no system has no defined meaning, and it cannot be validated. A system should be provided',
  CODE_CASE_DIFFERENCE: "The code '{0}' differs from the correct code '{1}' by case. Although the code system '{2}' is case insensitive, implementers are strongly encouraged to use the correct case anyway",
  Unknown_Code_in: "Unknown code '{0}' in the CodeSystem '{1}'",
  Unknown_Code_in_Version: "Unknown code '{0}' in the CodeSystem '{1}' version '{2}'",
  UNKNOWN_CODE_IN_FRAGMENT: "Unknown Code '{0}' in the system '{1}' version '{2}' - note that the code system is labeled as a fragment, so the code may be valid in some other fragment",
  // Large external code systems (LOINC, SNOMED CT, ...) that local terminology knows of but does not hold.
  Error_validating_code_running_without_terminology_services: "Unable to validate code '{0}' in system '{1}' because the validator is running without terminology services",
  Terminology_TX_NoValid_15: "The value provided ('{0}') could not be validated in the absence of a terminology server",

  // Displays ({0} = number of choices, {1} = system, {2} = code, {3} = valid displays, {4} = display given, {5} = languages).
  Display_Name_for__should_be_one_of__instead_of_one: "Wrong Display Name '{4}' for {1}#{2}. Valid display is {3} (for the language(s) '{5}')",
  Display_Name_for__should_be_one_of__instead_of_other: "Wrong Display Name '{4}' for {1}#{2}. Valid display is one of {0} choices: {3} (for the language(s) '{5}')",

  // Remote terminology.
  Terminology_PassThrough_TX_Message: "{0} (for '{1}#{2}')",
  Terminology_TX_Error_Coding2: 'Error {0} validating Coding: {1}',
} as const;

export type TerminologyMessageId = keyof typeof TERMINOLOGY_MESSAGES;

/**
 * The message in the active wording (engine/wording.ts; the catalogues hold these ids too), else the
 * template above. Fills `{n}` placeholders; a missing argument leaves an empty string (never "undefined").
 */
export function formatTerminologyMessage(id: TerminologyMessageId, ...args: Array<string | number | undefined>): string {
  const template = wordedTemplate(id) ?? TERMINOLOGY_MESSAGES[id];
  // linear: '{', digits, '}' (on our own templates)
  return template.replace(/\{(\d+)\}/g, (_match, index: string) => String(args[Number(index)] ?? ''));
}
