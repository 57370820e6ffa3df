/**
 * SearchParameterValidator on hand-written fixtures: a derived parameter keeps its parent's
 * bases and type (its expression is compared, a warning), an unknown parent is a warning, and a
 * composite parameter needs two or more components.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const sp = (extra: Record<string, unknown>) => ({
  resourceType: 'SearchParameter', text: narrative, url: 'http://example.net/fhir/SearchParameter/sp', name: 'n', status: 'active', description: 'd',
  code: 'name', base: ['Organization'], type: 'string', expression: 'Organization.name', ...extra,
});

describe('engine: SearchParameter validator', function () {
  this.timeout(60_000);
  let v: Validator;
  before(async () => {
    v = new Validator(await sourceWith([]));
  });

  it('accepts a derived parameter with its parent\'s type and an equivalent expression (the same paths in another order)', () => {
    const o = v.validate(sp({ expression: 'Organization.alias | Organization.name', derivedFrom: 'http://hl7.org/fhir/SearchParameter/Organization-name' }));
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    expect(issuesWith(o, 'is not compatible with the expression'), describe_(o)).to.deep.equal([]);
  });

  it('reports a type that differs from the parent\'s, and warns about a different expression', () => {
    const o = v.validate(sp({ type: 'token', expression: 'Organization.alias', derivedFrom: 'http://hl7.org/fhir/SearchParameter/Organization-name' }));
    expect(issuesWith(o, 'The type string is different to the type', 'SearchParameter'), describe_(o)).to.have.length(1);
    expect(errorsOf(o)).to.have.length(1);
    expect(issuesWith(o, "The expression 'Organization.alias' is not compatible", 'SearchParameter')[0]?.severity, describe_(o)).to.equal('warning');
  });

  it('warns when the parent cannot be found', () => {
    const o = v.validate(sp({ derivedFrom: 'http://example.net/fhir/SearchParameter/missing' }));
    expect(errorsOf(o), describe_(o)).to.deep.equal([]);
    expect(issuesWith(o, 'Unable to find the base Search Parameter http://example.net/fhir/SearchParameter/missing', 'SearchParameter')[0]?.severity).to.equal('warning');
  });

  it('a composite parameter needs two or more components', () => {
    const component = (expression: string) => ({ definition: 'http://hl7.org/fhir/SearchParameter/Organization-name', expression });
    const one = v.validate(sp({ type: 'composite', component: [component('name')] }));
    expect(issuesWith(one, "When the SearchParameter has a type of 'composite'", 'SearchParameter'), describe_(one)).to.have.length(1);
    const two = v.validate(sp({ type: 'composite', component: [component('name'), component('alias')] }));
    expect(issuesWith(two, "When the SearchParameter has a type of 'composite'"), describe_(two)).to.deep.equal([]);
  });
});
