/**
 * What the engine relies on from the terminology port, as a suite each implementation runs
 * (terminology.contract.spec.ts: local, remote over HTTP, the fake; terminology.contract.int.spec.ts:
 * remote over NATS). The same questions get the same verdicts: a code in the value set, one not in it
 * (worded as the binding's failure when a strength is given, left to the caller without one), a
 * CodeableConcept with one coding in the set, a value set or code system nobody holds ("cannot
 * check", never "invalid"), a code unknown to its system, and a wrong display (valid, with a warning
 * giving the right one).
 */
import { expect } from 'chai';
import type { TerminologyIssue, TerminologyPort, ValidateCodeRequest, ValidateCodeResult } from '#validation/domain/ports/terminology.js';
import { BP_VALUE_SET, LOINC } from './remote-fixtures.js';

export interface TerminologyUnderTest {
  open(): Promise<TerminologyPort>;
  close(): Promise<void>;
  /** Where its answers come from (`source`): the remote one must really have asked its server. */
  readonly source: ValidateCodeResult['source'];
}

const NOWHERE_VS = 'http://example.org/fhir/ValueSet/nowhere';
const NOWHERE_CS = 'http://example.org/fhir/CodeSystem/nowhere';
const SYSTOLIC = { system: LOINC, code: '8480-6' };
const GLUCOSE = { system: LOINC, code: '2339-0' };

export function terminologyContract(name: string, setUp: () => TerminologyUnderTest): void {
  describe(`terminology port contract: ${name}`, () => {
    let subject: TerminologyUnderTest;
    let port: TerminologyPort;
    const ask = async (request: ValidateCodeRequest): Promise<ValidateCodeResult> => port.validateCode(request);
    const withSeverity = (result: ValidateCodeResult, ...severities: TerminologyIssue['severity'][]) => result.issues.filter((i) => severities.includes(i.severity));

    before(async () => {
      subject = setUp();
      port = await subject.open();
    });
    after(async () => subject.close());

    it('a code in the value set is valid, with the display the terminology knows and nothing to complain about', async () => {
      for (const strength of [undefined, 'required'] as const) {
        const result = await ask({ valueSet: BP_VALUE_SET, coding: SYSTOLIC, elementKind: 'Coding', ...(strength ? { strength } : {}) });
        expect(result.valid, `strength ${strength}`).to.equal(true);
        expect(result.source).to.equal(subject.source);
        expect(result.display).to.equal('Systolic blood pressure');
        expect(withSeverity(result, 'error', 'warning')).to.deep.equal([]);
      }
    });

    it('a code not in the value set is invalid: with a required strength one error names the code and the value set', async () => {
      const result = await ask({ valueSet: BP_VALUE_SET, coding: GLUCOSE, elementKind: 'Coding', strength: 'required' });
      expect(result.valid).to.equal(false);
      const errors = withSeverity(result, 'error');
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ code: 'code-invalid' });
      expect(errors[0]!.text).to.contain(`${LOINC}#2339-0`).and.to.contain(BP_VALUE_SET);
    });

    it('without a strength, a code not in the value set is invalid and the caller words the failure', async () => {
      const result = await ask({ valueSet: BP_VALUE_SET, coding: GLUCOSE, elementKind: 'Coding' });
      expect(result.valid).to.equal(false);
      expect(withSeverity(result, 'error', 'warning')).to.deep.equal([]);
    });

    it('a CodeableConcept is valid when one of its codings is in the value set', async () => {
      const result = await ask({ valueSet: BP_VALUE_SET, codings: [GLUCOSE, { system: LOINC, code: '8462-4' }], strength: 'required' });
      expect(result.valid).to.equal(true);
      expect(withSeverity(result, 'error', 'warning')).to.deep.equal([]);
    });

    it('a value set nobody holds cannot be checked: "Can\'t find value set", a warning, never invalid', async () => {
      const result = await ask({ valueSet: NOWHERE_VS, coding: GLUCOSE, elementKind: 'Coding', strength: 'required' });
      expect(result.valid).to.equal(undefined);
      expect(result.issues.map((i) => [i.severity, i.code, i.text])).to.deep.equal([['warning', 'not-found', `Can't find value set ${NOWHERE_VS}`]]);
    });

    it('a code system nobody holds cannot be checked: "Unknown Code System", a warning, never invalid', async () => {
      const result = await ask({ coding: { system: NOWHERE_CS, code: 'x' } });
      expect(result.valid).to.equal(undefined);
      expect(result.issues.map((i) => [i.severity, i.code, i.text])).to.deep.equal([['warning', 'not-found', `Unknown Code System '${NOWHERE_CS}'`]]);
    });

    it('against its code system, a known code is valid with its display; an unknown one is invalid with one error naming it', async () => {
      const known = await ask({ coding: { system: LOINC, code: '8462-4' } });
      expect(known).to.deep.include({ valid: true, display: 'Diastolic blood pressure' });
      expect(withSeverity(known, 'error', 'warning')).to.deep.equal([]);
      const unknown = await ask({ coding: { system: LOINC, code: '99999-9' } });
      expect(unknown.valid).to.equal(false);
      const errors = withSeverity(unknown, 'error');
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ code: 'code-invalid' });
      expect(errors[0]!.text).to.contain("Unknown code '99999-9'").and.to.contain(LOINC);
    });

    it('a wrong display leaves the code valid, with one warning giving the display the terminology knows', async () => {
      for (const request of [
        { valueSet: BP_VALUE_SET, coding: { ...SYSTOLIC, display: 'Pressure, upper' }, elementKind: 'Coding', strength: 'required' },
        { coding: { ...SYSTOLIC, display: 'Pressure, upper' } },
      ] as ValidateCodeRequest[]) {
        const result = await ask(request);
        expect(result.valid).to.equal(true);
        expect(result.display).to.equal('Systolic blood pressure');
        const warnings = withSeverity(result, 'error', 'warning');
        expect(warnings.map((w) => [w.severity, w.code])).to.deep.equal([['warning', 'invalid']]);
        expect(warnings[0]!.text).to.contain("Wrong Display Name 'Pressure, upper'").and.to.contain("'Systolic blood pressure'");
      }
    });
  });
}
