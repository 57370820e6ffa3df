/**
 * The terminology of unit tests: a table of value sets and code systems behind the port, with no
 * expansion, no filters and no remote server, recording every request. It keeps the port's
 * contract (terminology.contract.spec.ts holds it to the same cases as the local and the remote
 * terminology), so an engine test that passes with it relies on nothing the real ones do not do.
 */
import { bindingResult, type CodingVerdict } from '#validation/domain/terminology/binding-outcome.js';
import { formatTerminologyMessage } from '#validation/domain/terminology/terminology-messages.js';
import type {
  CodingInput, TerminologyIssue, TerminologyPort, ValidateCodeRequest, ValidateCodeResult,
} from '#validation/domain/ports/terminology.js';

export interface FakeConcept {
  readonly code: string;
  readonly display?: string;
}

export interface FakeTerminologyTables {
  /** Value set url (without version) → its members. */
  readonly valueSets?: Readonly<Record<string, ReadonlyArray<FakeConcept & { readonly system?: string }>>>;
  /** Code system url → every code of it. */
  readonly codeSystems?: Readonly<Record<string, readonly FakeConcept[]>>;
}

export class FakeTerminology implements TerminologyPort {
  readonly requests: ValidateCodeRequest[] = [];

  constructor(private readonly tables: FakeTerminologyTables) {}

  validateCode(request: ValidateCodeRequest): ValidateCodeResult {
    this.requests.push(request);
    const codings = (request.codings ?? (request.coding ? [request.coding] : [])).filter((c) => typeof c.code === 'string' && c.code !== '');
    return request.valueSet === undefined ? this.inCodeSystems(codings) : this.inValueSet(request, request.valueSet, codings);
  }

  isMemberOf(coding: CodingInput, valueSet: string): boolean | undefined {
    const members = this.tables.valueSets?.[valueSet.split('|')[0]!];
    return members ? members.some((m) => matches(m, coding)) : undefined;
  }

  private inValueSet(request: ValidateCodeRequest, canonical: string, codings: CodingInput[]): ValidateCodeResult {
    const members = this.tables.valueSets?.[canonical.split('|')[0]!];
    if (!members) {
      return { valid: undefined, source: 'local', issues: [issue('warning', 'not-found', 'Terminology_TX_ValueSet_NotFound', formatTerminologyMessage('Terminology_TX_ValueSet_NotFound', canonical))] };
    }
    // Worded as local and remote terminology word it (binding-outcome.ts), from a verdict per coding.
    const verdicts = codings.map((coding): CodingVerdict => {
      const entry = members.find((m) => matches(m, coding));
      if (!entry) return { coding, membership: 'not-member', issues: [] };
      const displayIssue = wrongDisplay(coding, entry);
      return { coding, membership: 'member', issues: displayIssue ? [displayIssue] : [], ...(entry.display ? { display: entry.display } : {}) };
    });
    return bindingResult(request, canonical, verdicts, 'local');
  }

  private inCodeSystems(codings: CodingInput[]): ValidateCodeResult {
    const issues: TerminologyIssue[] = [];
    let valid: boolean | undefined = codings.length > 0 ? true : undefined;
    let display: string | undefined;
    for (const coding of codings) {
      const concepts = coding.system ? this.tables.codeSystems?.[coding.system] : undefined;
      if (!concepts) {
        issues.push(issue('warning', 'not-found', 'Terminology_TX_System_Unknown', formatTerminologyMessage('Terminology_TX_System_Unknown', coding.system)));
        if (valid === true) valid = undefined;
        continue;
      }
      const concept = concepts.find((c) => c.code === coding.code);
      if (!concept) {
        issues.push(issue('error', 'code-invalid', 'Unknown_Code_in', formatTerminologyMessage('Unknown_Code_in', coding.code, coding.system)));
        valid = false;
        continue;
      }
      display ??= concept.display;
      const displayIssue = wrongDisplay(coding, concept);
      if (displayIssue) issues.push(displayIssue);
    }
    return { valid, ...(display ? { display } : {}), issues, source: 'local' };
  }
}

function matches(member: FakeConcept & { readonly system?: string }, coding: CodingInput): boolean {
  return member.code === coding.code && (coding.system === undefined || member.system === coding.system);
}

function wrongDisplay(coding: CodingInput, concept: FakeConcept & { readonly system?: string }): TerminologyIssue | undefined {
  if (coding.display === undefined || concept.display === undefined || coding.display === concept.display) return undefined;
  return issue('warning', 'invalid', 'Display_Name_for__should_be_one_of__instead_of', formatTerminologyMessage(
    'Display_Name_for__should_be_one_of__instead_of_one', 1, coding.system ?? concept.system, coding.code, `'${concept.display}'`, coding.display, '--'));
}

function issue(severity: TerminologyIssue['severity'], code: string, messageId: string, text: string): TerminologyIssue {
  return { severity, code, messageId, text };
}
