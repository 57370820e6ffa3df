import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import { coreSource } from './support/core-definitions.js';
import { describe_, errorsOf, issuesWith } from './support/helpers.js';

describe('engine: validator options', function () {
  this.timeout(60_000);
  const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
  const docRef = (url: string) => ({
    resourceType: 'DocumentReference', id: 'd1', text: narrative, status: 'current',
    content: [{ attachment: { contentType: 'application/pdf', url } }],
  });

  it('accepts example-host URLs by default and refuses them when told to, naming the URL', async () => {
    const source = await coreSource();
    const lenient = new Validator(source);
    const strict = new Validator(source, undefined, { allowExampleUrls: false });
    const example = docRef('http://repository.example.org/fhir/Binary/1');
    expect(errorsOf(lenient.validate(example)), describe_(lenient.validate(example))).to.deep.equal([]);
    const found = issuesWith(strict.validate(example), 'Example URLs are not allowed in this context (http://repository.example.org/fhir/Binary/1)',
      'DocumentReference.content[0].attachment.url');
    expect(found).to.have.length(1);
    expect(found[0]?.severity).to.equal('error');
    expect(errorsOf(strict.validate(docRef('https://ehr.hospital.test/fhir/Binary/1')))).to.deep.equal([]);
  });

  it('reports HTML in strings only with security checks on', async () => {
    const source = await coreSource();
    const patient = { resourceType: 'Patient', id: 'p1', text: narrative, name: [{ text: 'Jane <b>Doe</b>' }] };
    expect(errorsOf(new Validator(source).validate(patient))).to.deep.equal([]);
    const o = new Validator(source, undefined, { securityChecks: true }).validate(patient);
    expect(issuesWith(o, /looks like embedded HTML tags/, 'Patient.name[0].text')).to.have.length(1);
  });
});
