/**
 * A profile's aggregation modes on a Reference (rules/reference-aggregation.ts, HL7's checkReference):
 * what resolves must be of an allowed kind (contained, in the Bundle, fetched from outside), what
 * resolves nowhere needs `referenced`; resources on their own only with enforceAggregationOutsideBundles.
 */
import { expect } from 'chai';
import { Validator } from '#validation/domain/engine/validator.js';
import type { ValidatorOptions } from '#validation/domain/engine/validator-options.js';
import { InMemoryResourceFetcher } from '#validation/domain/ports/resource-fetcher.js';
import { sourceWith } from './support/core-definitions.js';
import { describe_, issuesWith, profile } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const profileUrl = (modes: string[]) => `http://aggregation.test/StructureDefinition/encounter-${modes.join('-') || 'none'}`;
const encounterProfile = (modes: string[]) => profile(profileUrl(modes), 'Encounter', [
  { id: 'Encounter.subject', path: 'Encounter.subject', type: [{ code: 'Reference', targetProfile: ['http://hl7.org/fhir/StructureDefinition/Patient'], aggregation: modes }] },
]);
const encounter = (modes: string[], subject: string, contained?: unknown[]) => ({
  resourceType: 'Encounter', id: 'e1', text: narrative, meta: { profile: [profileUrl(modes)] }, status: 'planned',
  class: { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB' }, subject: { reference: subject }, ...(contained ? { contained } : {}),
});
const patient = { resourceType: 'Patient', id: 'p1', text: narrative };
const inBundle = (resource: unknown) => ({
  resourceType: 'Bundle', id: 'b1', type: 'collection',
  entry: [{ fullUrl: 'http://ehr.test/fhir/Encounter/e1', resource }, { fullUrl: 'http://ehr.test/fhir/Patient/p1', resource: patient }],
});

describe('engine: a Reference\'s aggregation modes', function () {
  this.timeout(60_000);
  const modes = [['bundled'], ['contained'], ['referenced'], ['contained', 'bundled']];
  const validate = async (resource: unknown, options: ValidatorOptions = {}) => new Validator(await sourceWith(modes.map(encounterProfile)), undefined, options).validate(resource);
  const aggregationIssues = (o: Awaited<ReturnType<typeof validate>>) => issuesWith(o, /aggregation mode|Bundled or contained reference not found/).map((i) => `${i.severity} ${i.details.text}`);

  it('accepts a reference found in the Bundle where bundled is allowed, and reports one found nowhere', async () => {
    const found = await validate(inBundle(encounter(['bundled'], 'Patient/p1')));
    expect(aggregationIssues(found), describe_(found)).to.deep.equal([]);
    const absent = await validate(inBundle(encounter(['bundled'], 'Patient/absent')));
    expect(aggregationIssues(absent), describe_(absent)).to.deep.equal(['error Bundled or contained reference not found within the bundle/resource Patient/absent']);
  });

  it('reports a reference of a kind the modes do not allow, naming the kind and the modes', async () => {
    const bundled = await validate(inBundle(encounter(['contained'], 'Patient/p1')));
    expect(aggregationIssues(bundled), describe_(bundled)).to.deep.equal(['error Reference is internal which isn\'t supported by the specified aggregation mode(s) for the reference (contained)']);
    const contained = await validate(inBundle(encounter(['bundled'], '#p2', [{ resourceType: 'Patient', id: 'p2' }])));
    expect(aggregationIssues(contained), describe_(contained)).to.deep.equal(['error Reference is contained which isn\'t supported by the specified aggregation mode(s) for the reference (bundled)']);
    const either = await validate(inBundle(encounter(['contained', 'bundled'], '#p2', [{ resourceType: 'Patient', id: 'p2' }])));
    expect(aggregationIssues(either), describe_(either)).to.deep.equal([]);
  });

  it('lets `referenced` take a reference found in the Bundle or nowhere', async () => {
    for (const subject of ['Patient/p1', 'Patient/absent']) {
      const o = await validate(inBundle(encounter(['referenced'], subject)));
      expect(aggregationIssues(o), `${subject}: ${describe_(o)}`).to.deep.equal([]);
    }
  });

  it('judges an external reference the fetcher finds only under a policy that checks types', async () => {
    const fetcher = new InMemoryResourceFetcher([{ resourceType: 'Patient', id: 'outside' }]);
    const typed = await validate(inBundle(encounter(['bundled'], 'Patient/outside')), { fetcher, referencePolicy: 'CHECK_EXISTS_AND_TYPE' });
    expect(aggregationIssues(typed), describe_(typed)).to.deep.equal(['error Reference is external which isn\'t supported by the specified aggregation mode(s) for the reference (bundled)']);
    const existsOnly = await validate(inBundle(encounter(['bundled'], 'Patient/outside')), { fetcher, referencePolicy: 'CHECK_EXISTS' });
    expect(aggregationIssues(existsOnly), describe_(existsOnly)).to.deep.equal([]);
    const notFetched = await validate(inBundle(encounter(['bundled'], 'Patient/outside')), { fetcher });
    expect(aggregationIssues(notFetched), describe_(notFetched)).to.deep.equal(['error Bundled or contained reference not found within the bundle/resource Patient/outside']);
  });

  it('leaves a resource on its own alone unless told to enforce aggregation outside Bundles', async () => {
    const alone = encounter(['bundled'], 'Patient/absent');
    expect(aggregationIssues(await validate(alone))).to.deep.equal([]);
    const enforced = await validate(alone, { enforceAggregationOutsideBundles: true });
    expect(aggregationIssues(enforced), describe_(enforced)).to.deep.equal(['error Bundled or contained reference not found within the bundle/resource Patient/absent']);
  });
});
