/**
 * OperationDefinitionValidator on hand-written fixtures: its input/output profiles must be
 * known Parameters profiles (the agreement of each parameter with its slice is covered in
 * validator-business-rules.spec.ts).
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const opDef = (extra: Record<string, unknown>) => ({
  resourceType: 'OperationDefinition', text: narrative, url: 'http://example.net/fhir/OperationDefinition/op', name: 'Op', status: 'active', kind: 'operation',
  code: 'op', system: true, type: false, instance: false,
  parameter: [{ name: 'a', use: 'in', min: 0, max: '1', type: 'string' }, { name: 'b', use: 'out', min: 0, max: '1', type: 'string' }],
  ...extra,
});

describe('engine: OperationDefinition validator', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });

  it('accepts an operation without profiles', () => {
    const o = v.validate(opDef({}));
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
  });

  it('reports a profile that cannot be found and one that is not on Parameters, at the profile', () => {
    const o = v.validate(opDef({ inputProfile: 'http://example.net/fhir/StructureDefinition/missing', outputProfile: 'http://hl7.org/fhir/StructureDefinition/Patient' }));
    expect(issuesWith(o, "The 'in' profile 'http://example.net/fhir/StructureDefinition/missing' can not be resolved", 'OperationDefinition.inputProfile'), describe_(o)).to.have.length(1);
    expect(issuesWith(o, "The 'out' profile 'http://hl7.org/fhir/StructureDefinition/Patient' is not a profile on the 'Parameters' resource", 'OperationDefinition.outputProfile'), describe_(o)).to.have.length(1);
    expect(errorsOf(o)).to.have.length(2);
  });
});
