/**
 * Large external code systems that local terminology knows of but does not hold (their content
 * is licensed and/or far too big). A code in one of them cannot be checked locally: the answer
 * is "cannot check" (valid undefined) with an informational issue, as the HL7 validator does when
 * it runs without a terminology server. LOINC codes still get a syntax and check-digit test.
 */
export const KNOWN_EXTERNAL_CODE_SYSTEMS: ReadonlyMap<string, string> = new Map([
  ['http://loinc.org', 'LOINC'],
  ['http://snomed.info/sct', 'SNOMED CT'],
  ['http://www.nlm.nih.gov/research/umls/rxnorm', 'RxNorm'],
  ['http://hl7.org/fhir/sid/icd-10-cm', 'ICD-10-CM'],
  ['http://hl7.org/fhir/sid/icd-10', 'ICD-10'],
  ['http://www.cms.gov/Medicare/Coding/ICD10', 'ICD-10-PCS'],
  ['http://hl7.org/fhir/sid/icd-9-cm', 'ICD-9-CM'],
  ['http://www.ama-assn.org/go/cpt', 'CPT'],
  ['http://hl7.org/fhir/sid/ndc', 'NDC'],
  ['http://hl7.org/fhir/sid/cvx', 'CVX'],
  ['http://nucc.org/provider-taxonomy', 'NUCC Provider Taxonomy'],
  ['urn:oid:2.16.840.1.113883.6.285', 'HCPCS'],
  ['http://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', 'HCPCS'],
  ['https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', 'HCPCS'],
  ['http://unitsofmeasure.org/ucum-essence', 'UCUM essence'],
  ['http://www.whocc.no/atc', 'ATC'],
  ['http://hl7.org/fhir/sid/us-npi', 'NPI'],
  ['urn:oid:2.16.840.1.113883.6.238', 'CDC Race & Ethnicity'],
  ['http://www.ada.org/cdt', 'CDT'],
  ['http://fdasis.nlm.nih.gov', 'UNII'],
  ['http://www.nlm.nih.gov/research/umls/hcpcs', 'HCPCS (UMLS)'],
  ['http://terminology.hl7.org/CodeSystem/CD2', 'CDT-2'],
  ['https://www.usps.com/', 'USPS states'],
  ['urn:oid:2.16.840.1.113883.6.101', 'NUCC Provider Taxonomy'],
  ['http://hl7.org/fhir/sid/icd-10-pcs', 'ICD-10-PCS'],
]);

/** LOINC codes are `<digits>-<check digit>` with a mod-10 check digit (parts `LP...` and answers `LA...` too). */
export function checkLoincSyntax(code: string): boolean {
  // linear: anchored, at most 11 characters
  const match = /^(?:L[PAGL])?(\d{1,7})-(\d)$/.exec(code);
  if (!match) return false;
  if (code.startsWith('L')) return true;
  const [, digits = '', check] = match;
  return loincCheckDigit(digits) === Number(check);
}

// The LOINC check digit: mod-10 over the digits, doubling every other digit from the right.
function loincCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}
