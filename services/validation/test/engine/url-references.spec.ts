/**
 * uri, url and canonical values as references (HL7's validateReference for the uri family,
 * rules/url-references.ts): `#id` must name something inside the resource when the validator has a
 * fetcher; an external value is judged only by a fetcher that can say (the HL7 test runner's, which
 * `--harness` uses); a canonical that resolves must be of a type its element allows when the
 * reference policy checks types.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TestRunnerFetcher } from '#validation/cli/test-runner-fetcher.js';
import { main } from '#validation/cli/validate.js';
import type { ValidationOutcome } from '#validation/domain/engine/outcome/issue.js';
import { settingsFromManifest } from '#validation/domain/engine/settings-input.js';
import { Validator } from '#validation/domain/engine/validator.js';
import type { ValidatorOptions } from '#validation/domain/engine/validator-options.js';
import { InMemoryResourceFetcher } from '#validation/domain/ports/resource-fetcher.js';
import { coreSource } from './support/core-definitions.js';
import { describe_, issuesWith } from './support/helpers.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };

/** A Patient whose implicitRules (a uri) is `rules`, with a contained Organization `org1` and a name with the element id `n1`. */
const patient = (rules: string) => ({
  resourceType: 'Patient', id: 'p1', text: narrative, implicitRules: rules,
  contained: [{ resourceType: 'Organization', id: 'org1', name: 'Clinic' }],
  name: [{ id: 'n1', family: 'Doe' }], managingOrganization: { reference: '#org1' },
});

/** A CarePlan whose instantiatesCanonical (canonical(PlanDefinition | Questionnaire | Measure | ActivityDefinition | OperationDefinition)) is `url`. */
const carePlan = (url: string) => ({
  resourceType: 'CarePlan', id: 'cp1', text: narrative, status: 'active', intent: 'plan',
  subject: { reference: 'Patient/p1' }, instantiatesCanonical: [url],
});

describe('engine: uri, url and canonical values as references', function () {
  this.timeout(60_000);
  const validate = async (resource: unknown, options: ValidatorOptions) => new Validator(await coreSource(), undefined, options).validate(resource);
  const unresolved = (o: ValidationOutcome, text: RegExp, at: string) => issuesWith(o, text, at).map((i) => i.severity);

  it('reports a `#id` uri that names nothing inside the resource as an error, and accepts one naming a contained resource or an element', async () => {
    const fetcher = new InMemoryResourceFetcher();
    const missing = await validate(patient('#nowhere'), { fetcher });
    expect(unresolved(missing, /^URL value '#nowhere' does not resolve$/, 'Patient.implicitRules'), describe_(missing)).to.deep.equal(['error']);
    for (const rules of ['#org1', '#n1', '#']) {
      const o = await validate(patient(rules), { fetcher });
      expect(issuesWith(o, /does not resolve/), `${rules}: ${describe_(o)}`).to.deep.equal([]);
    }
  });

  it('finds a `#id` among the narrative\'s anchors and, failing the resource, in the Bundle it sits in', async () => {
    const fetcher = new InMemoryResourceFetcher();
    const anchored = { ...patient('#note'), text: { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml"><p id="note">x</p></div>' } };
    expect(issuesWith(await validate(anchored, { fetcher }), /does not resolve/)).to.deep.equal([]);
    const bundle = (rules: string) => ({ resourceType: 'Bundle', id: 'b', type: 'collection', entry: [
      { fullUrl: 'http://ehr.test/fhir/Patient/p1', resource: patient(rules) },
      { fullUrl: 'http://ehr.test/fhir/Basic/b1', resource: { resourceType: 'Basic', id: 'b1', text: narrative, code: { text: 'x' } } },
    ] });
    expect(issuesWith(await validate(bundle('#b1'), { fetcher }), /does not resolve/)).to.deep.equal([]);
    const nowhere = await validate(bundle('#b9'), { fetcher });
    expect(issuesWith(nowhere, /^URL value '#b9' does not resolve$/).map((i) => i.severity), describe_(nowhere)).to.deep.equal(['error']);
  });

  it('requires a canonical resource\'s own url to be absolute (contained or not), fetcher or none', async () => {
    const relative = await validate({ resourceType: 'PlanDefinition', id: 'pd', text: narrative, url: 'plans/pd', status: 'active' }, {});
    expect(issuesWith(relative, /^Canonical URLs must be absolute URLs if they are not fragment references \(plans\/pd\)$/, 'PlanDefinition.url').map((i) => i.severity), describe_(relative)).to.deep.equal(['error']);
    const contained = await validate({ ...carePlan('#pd'), contained: [{ resourceType: 'PlanDefinition', id: 'pd', url: 'plans/pd', status: 'active' }] }, {});
    expect(issuesWith(contained, /^Canonical URLs in contained resources must be absolute URLs if present \(plans\/pd\)$/).map((i) => i.severity), describe_(contained)).to.deep.equal(['error']);
    const absolute = await validate({ resourceType: 'PlanDefinition', id: 'pd', text: narrative, url: 'urn:uuid:6e9ab4b1-8c2b-4b5a-9f40-44b7c2d8e0a1', status: 'active' }, {});
    expect(issuesWith(absolute, /must be absolute/)).to.deep.equal([]);
  });

  it('gives a `#id` in meta.source (a server\'s request id, not a link) a warning, not an error', async () => {
    const o = await validate({ ...patient('#org1'), meta: { source: '#8VT59CPwUir1ahuR' } }, { fetcher: new InMemoryResourceFetcher() });
    expect(unresolved(o, /^URL value '#8VT59CPwUir1ahuR' does not resolve$/, 'Patient.meta.source'), describe_(o)).to.deep.equal(['warning']);
  });

  it('checks nothing without a fetcher, as HL7 does', async () => {
    const o = await validate(patient('#nowhere'), {});
    expect(issuesWith(o, /does not resolve/), describe_(o)).to.deep.equal([]);
  });

  it('reports a `#id` canonical that names nothing as a warning (HL7 raises canonicals to errors only in its own URL spaces)', async () => {
    const o = await validate(carePlan('#plan'), { fetcher: new InMemoryResourceFetcher() });
    expect(unresolved(o, /^Canonical URL '#plan' does not resolve$/, 'CarePlan.instantiatesCanonical[0]'), describe_(o)).to.deep.equal(['warning']);
  });

  it('judges external values only with a fetcher that can say: an error in HL7\'s URL space, nothing elsewhere with the test runner\'s fetcher', async () => {
    const bad = 'http://hl7.org/fhir/invalid/rules';
    const runner = await validate(patient(bad), { fetcher: new TestRunnerFetcher() });
    expect(unresolved(runner, /^URL value 'http:\/\/hl7.org\/fhir\/invalid\/rules' does not resolve$/, 'Patient.implicitRules'), describe_(runner)).to.deep.equal(['error']);
    const elsewhere = await validate(patient('http://rules.hospital.test/v1'), { fetcher: new TestRunnerFetcher() });
    expect(issuesWith(elsewhere, /does not resolve/), describe_(elsewhere)).to.deep.equal([]);
    // the CLI's and the service's fetchers cannot say: external values are not judged
    const files = await validate(patient(bad), { fetcher: new InMemoryResourceFetcher() });
    expect(issuesWith(files, /does not resolve/), describe_(files)).to.deep.equal([]);
  });

  it('reports an unresolved external canonical by the reference policy: information when it is not checked, an error when existence is', async () => {
    const url = 'http://hl7.org/fhir/invalid/PlanDefinition/p';
    const ignore = await validate(carePlan(url), { fetcher: new TestRunnerFetcher() });
    expect(unresolved(ignore, /^Canonical URL '.*' does not resolve$/, 'CarePlan.instantiatesCanonical[0]'), describe_(ignore)).to.deep.equal(['information']);
    const exists = await validate(carePlan(url), { fetcher: new TestRunnerFetcher(), referencePolicy: 'CHECK_EXISTS' });
    expect(unresolved(exists, /^Canonical URL '.*' does not resolve$/, 'CarePlan.instantiatesCanonical[0]'), describe_(exists)).to.deep.equal(['error']);
  });

  it('checks the type a resolved canonical names when the policy checks types', async () => {
    const valueSet = 'http://hl7.org/fhir/ValueSet/administrative-gender';
    const typed = await validate(carePlan(valueSet), { fetcher: new TestRunnerFetcher(), referencePolicy: 'CHECK_EXISTS_AND_TYPE' });
    const wrong = issuesWith(typed, /refers to a resource that has the wrong type\. Found ValueSet expecting one of \[.*PlanDefinition.*\]/, 'CarePlan.instantiatesCanonical[0]');
    expect(wrong.map((i) => i.severity), describe_(typed)).to.deep.equal(['error']);
    const ignored = await validate(carePlan(valueSet), { fetcher: new TestRunnerFetcher() });
    expect(issuesWith(ignored, /wrong type/), describe_(ignored)).to.deep.equal([]);
    // a contained PlanDefinition is of an allowed type
    const contained = { ...carePlan('#pd'), contained: [{ resourceType: 'PlanDefinition', id: 'pd', status: 'active' }] };
    const ok = await validate(contained, { fetcher: new TestRunnerFetcher(), referencePolicy: 'CHECK_EXISTS_AND_TYPE' });
    expect(issuesWith(ok, /wrong type|does not resolve/), describe_(ok)).to.deep.equal([]);
    // CHECK_VALID: a canonical that resolves by URL but whose resource is not loaded cannot be checked
    const unloaded = await validate(carePlan('http://plans.hospital.test/PlanDefinition/p'), { fetcher: new TestRunnerFetcher(), referencePolicy: 'CHECK_VALID' });
    expect(unresolved(unloaded, /exists, but can't be loaded/, 'CarePlan.instantiatesCanonical[0]'), describe_(unloaded)).to.deep.equal(['warning']);
  });

  it('never asks about a canonical resource\'s own url or a Bundle entry\'s fullUrl', async () => {
    const plan = { resourceType: 'PlanDefinition', id: 'pd', text: narrative, url: 'http://hl7.org/fhir/invalid/PlanDefinition/pd', status: 'active' };
    const o = await validate({ resourceType: 'Bundle', id: 'b', type: 'collection', entry: [{ fullUrl: 'http://hl7.org/fhir/invalid/PlanDefinition/pd', resource: plan }] }, { fetcher: new TestRunnerFetcher() });
    expect(issuesWith(o, /does not resolve/), describe_(o)).to.deep.equal([]);
  });

  describe('the harness\'s fetcher (the HL7 test runner\'s unless a check names `standalone`)', () => {
    let dir: string;
    before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'url-references-')); });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the manifest\'s fetcher key', () => {
      expect(settingsFromManifest({}).fetcher).to.equal('test-runner');
      expect(settingsFromManifest({ fetcher: 'standalone' }).fetcher).to.equal('standalone');
      expect(settingsFromManifest({ fetcher: 'standalone' }).ignored).to.deep.equal([]);
    });

    it('--harness judges external URLs as the runner does, and not under `fetcher: standalone` nor outside the harness', async () => {
      const file = path.join(dir, 'patient.json');
      writeFileSync(file, JSON.stringify(patient('http://hl7.org/fhir/invalid/rules')));
      const run = async (argv: string[]) => {
        const out: string[] = [];
        await main(argv, (s) => out.push(s), () => undefined);
        return JSON.parse(out.join('\n')) as ValidationOutcome;
      };
      const runner = await run(['--harness', file, '', '', '--options', '{}']);
      expect(issuesWith(runner, /does not resolve/, 'Patient.implicitRules').map((i) => i.severity), describe_(runner)).to.deep.equal(['error']);
      const standalone = await run(['--harness', file, '', '', '--options', '{"fetcher":"standalone"}']);
      expect(issuesWith(standalone, /does not resolve/), describe_(standalone)).to.deep.equal([]);
      const cli = await run(['--no-extension-pack', file]);
      expect(issuesWith(cli, /does not resolve/), describe_(cli)).to.deep.equal([]);
    });
  });
});
