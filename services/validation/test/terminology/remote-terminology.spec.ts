import { expect } from 'chai';
import sinon from 'sinon';
import { resolveTerminologyEndpoint, validateCodeCacheKey, type TerminologySettings, type TerminologyWiring } from '#validation/adapters/terminology/index.js';
import { defaultCategories } from '#validation/application/default-categories.js';
import { parseMatcherAsField } from '#validation/domain/categorization/category.js';
import { Categorizer } from '#validation/domain/categorization/categorizer.js';
import { assessValidity } from '#validation/domain/categorization/validity.js';
import { BP_VALUE_SET, LOINC, SERVER_ONLY_VALUE_SET, serverResources } from './support/remote-fixtures.js';
import { GENDER_VS, systolic, wire } from './support/remote-wiring.js';
import { closedPort, TestTerminologyServer } from './support/test-terminology-server.js';

describe('terminology endpoint resolution (specification order of precedence)', () => {
  it('prefers the FHIR terminology server, then the platform service + /api/terminology/fhir, else local', () => {
    expect(resolveTerminologyEndpoint({ fhirTerminologyServiceUrl: 'http://tx.example/fhir/', terminologyServiceUrl: 'http://platform' }))
      .to.deep.equal({ mode: 'fhir-terminology-server', baseUrl: 'http://tx.example/fhir' });
    expect(resolveTerminologyEndpoint({ terminologyServiceUrl: 'http://platform:8080/' }))
      .to.deep.equal({ mode: 'platform-terminology-service', baseUrl: 'http://platform:8080/api/terminology/fhir' });
    expect(resolveTerminologyEndpoint({ fhirTerminologyServiceUrl: ' ', terminologyServiceUrl: '' })).to.deep.equal({ mode: 'local' });
  });

  it('keys the cache on the whole tuple, without collisions between neighbouring tuples', () => {
    const key = validateCodeCacheKey({ codeSystem: 'a', code: 'bc', valueSetUrl: 'v' });
    expect(key).to.match(/^[0-9a-f]{64}$/);
    expect(validateCodeCacheKey({ codeSystem: 'ab', code: 'c', valueSetUrl: 'v' })).not.to.equal(key);
    expect(validateCodeCacheKey({ codeSystem: 'a', code: 'bc', display: '', valueSetUrl: 'v' })).not.to.equal(key);
    expect(validateCodeCacheKey({ codeSystem: 'a', code: 'bc', valueSetUrl: 'v' })).to.equal(key);
  });
});

describe('remote terminology: (1) svc.fhir-terminology-service-url', () => {
  const server = new TestTerminologyServer(serverResources, '/fhir');
  let wiring: TerminologyWiring;

  before(async () => {
    const origin = await server.start();
    wiring = wire({ fhirTerminologyServiceUrl: `${origin}/fhir` });
  });
  after(() => server.close());
  beforeEach(() => {
    server.calls.length = 0;
    server.behaviour = { kind: 'answer' };
  });

  it('sends ValueSet/$validate-code with a Parameters body (without the caller\'s token: the server is external) and accepts a code the server knows', async () => {
    const result = await wiring.terminology.validateCode({ ...systolic('Systolic blood pressure'), authorization: 'Bearer incoming-token' });
    expect(result).to.deep.include({ valid: true, source: 'remote', display: 'Systolic blood pressure' });
    expect(result.issues).to.deep.equal([]);
    expect(server.calls).to.have.length(1);
    expect(server.calls[0]).to.deep.equal({
      path: '/fhir/ValueSet/$validate-code',
      parameters: { url: BP_VALUE_SET, code: '8480-6', system: LOINC, display: 'Systolic blood pressure' },
      authorization: undefined,
    });
  });

  it('splits a versioned value set canonical into url and valueSetVersion, and sends the coding version as systemVersion', async () => {
    const result = await wiring.terminology.validateCode({
      valueSet: `${BP_VALUE_SET}|1.0.0`, coding: { system: LOINC, version: '2.77', code: '8462-4' }, elementKind: 'Coding', strength: 'required',
    });
    expect(result.valid).to.equal(true);
    expect(server.calls[0]!.parameters).to.deep.equal({ url: BP_VALUE_SET, valueSetVersion: '1.0.0', code: '8462-4', system: LOINC, systemVersion: '2.77' });
  });

  it('words a code the server rejects with the HL7 message and the local title of the value set', async () => {
    const result = await wiring.terminology.validateCode({ valueSet: BP_VALUE_SET, codings: [{ system: LOINC, code: '2339-0' }], strength: 'required' });
    expect(result.valid).to.equal(false);
    expect(result.issues[0]).to.deep.include({ severity: 'error', messageId: 'Terminology_TX_NoValid_1_CC' });
    expect(result.issues[0]!.text).to.equal(
      `None of the codings provided are in the value set 'Blood Pressure Codes' (${BP_VALUE_SET}|1.0.0), and a coding from this value set is required (codes = ${LOINC}#2339-0)`,
    );
  });

  it('answers locally, without a call, what local terminology holds completely', async () => {
    const result = await wiring.terminology.validateCode({ valueSet: GENDER_VS, coding: { code: 'female' } });
    expect(result).to.deep.include({ valid: true, source: 'local' });
    const wrong = await wiring.terminology.validateCode({ coding: { system: 'http://hl7.org/fhir/administrative-gender', code: 'f' } });
    expect(wrong.valid).to.equal(false);
    expect(server.calls).to.have.length(0);
  });

  it('asks about a value set only the server holds, and says "Can\'t find value set" when neither does', async () => {
    const known = await wiring.terminology.validateCode({ valueSet: SERVER_ONLY_VALUE_SET, coding: { system: LOINC, code: '2339-0' }, elementKind: 'Coding' });
    expect(known.valid).to.equal(true);
    const missing = await wiring.terminology.validateCode({ valueSet: 'http://example.org/fhir/ValueSet/nowhere', coding: { system: LOINC, code: '2339-0' } });
    expect(missing.valid).to.equal(undefined);
    expect(missing.issues.map((i) => [i.severity, i.text])).to.deep.equal([['warning', "Can't find value set http://example.org/fhir/ValueSet/nowhere"]]);
    expect(server.callsTo('ValueSet')).to.have.length(2);
  });

  it('sends CodeSystem/$validate-code for a code-system check of a system it does not hold', async () => {
    const valid = await wiring.terminology.validateCode({ coding: { system: LOINC, code: '8462-4' } });
    expect(valid).to.deep.include({ valid: true, source: 'remote' });
    const invalid = await wiring.terminology.validateCode({ coding: { system: LOINC, code: '99999-9' } });
    expect(invalid.valid).to.equal(false);
    expect(invalid.issues[0]!.severity).to.equal('error');
    expect(server.callsTo('CodeSystem').map((c) => c.parameters)).to.deep.equal([
      { url: LOINC, code: '8462-4' }, { url: LOINC, code: '99999-9' },
    ]);
  });
});

describe('remote terminology: (2) svc.terminology-service-url', () => {
  const server = new TestTerminologyServer(serverResources, '/api/terminology/fhir');
  after(() => server.close());

  it('calls the platform terminology service under /api/terminology/fhir, passing the caller\'s token on', async () => {
    const origin = await server.start();
    const wiring = wire({ terminologyServiceUrl: origin });
    expect(wiring.endpoint).to.deep.equal({ mode: 'platform-terminology-service', baseUrl: `${origin}/api/terminology/fhir` });
    const result = await wiring.terminology.validateCode({ ...systolic(), authorization: 'Bearer incoming-token' });
    expect(result.valid).to.equal(true);
    expect(server.calls.map((c) => [c.path, c.authorization])).to.deep.equal([['/api/terminology/fhir/ValueSet/$validate-code', 'Bearer incoming-token']]);
  });
});

describe('remote terminology: a server that cannot answer', () => {
  const server = new TestTerminologyServer(serverResources, '/fhir');
  let baseUrl: string;
  before(async () => {
    baseUrl = `${await server.start()}/fhir`;
  });
  beforeEach(() => {
    server.calls.length = 0;
  });
  after(() => server.close());

  const expectCouldNotValidate = (result: Awaited<ReturnType<TerminologyWiring['terminology']['validateCode']>>) => {
    expect(result.valid).to.equal(undefined);
    expect(result.issues).to.have.length(1);
    expect(result.issues[0]).to.deep.include({ severity: 'warning', messageId: 'Terminology_TX_Error_Coding2' });
    expect(result.issues[0]!.text).to.contain(`the terminology server could not be reached, so the code ${LOINC}#8480-6 could not be validated`);
  };

  it('server down (nothing listening): a warning, validation completes', async () => {
    const wiring = wire({ fhirTerminologyServiceUrl: `http://127.0.0.1:${await closedPort()}/fhir`, retries: 1 });
    expectCouldNotValidate(await wiring.terminology.validateCode(systolic()));
  });

  it('slow server: the timeout gives a warning', async () => {
    server.behaviour = { kind: 'answer', delayMs: 1_000 };
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, timeoutMs: 100, retries: 0 });
    expectCouldNotValidate(await wiring.terminology.validateCode(systolic()));
  });

  it('500: retried with backoff, then a warning', async () => {
    server.behaviour = { kind: 'status', status: 500 };
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, retries: 2 });
    expectCouldNotValidate(await wiring.terminology.validateCode(systolic()));
    expect(server.calls).to.have.length(3);
  });

  it('429 (with Retry-After) and 503 are retried with backoff, then the answer is used', async () => {
    server.behaviour = { kind: 'fail-then-answer', status: 429, times: 1, retryAfterSeconds: 0 };
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, retries: 2 });
    expect((await wiring.terminology.validateCode(systolic())).valid).to.equal(true);
    expect(server.calls).to.have.length(2);
    server.behaviour = { kind: 'fail-then-answer', status: 503, times: 2 };
    expect((await wiring.terminology.validateCode(systolic('Systolic BP'))).valid).to.equal(true);
    expect(server.calls).to.have.length(5);
  });

  it('opens the circuit after consecutive failures: no more calls until it half-opens', async () => {
    server.behaviour = { kind: 'status', status: 500 };
    const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, retries: 0, circuitBreaker: { failureThreshold: 2, openSeconds: 60 } });
    for (let i = 0; i < 4; i++) expectCouldNotValidate(await wiring.terminology.validateCode(systolic(`attempt ${i}`)));
    expect(server.calls).to.have.length(2);
  });

  it('says the submission is not fully checked, never naming the server, with the severity operators chose (terminology.unavailable-severity)', async () => {
    server.behaviour = { kind: 'status', status: 500 };
    const checks: Array<[TerminologySettings['unavailableSeverity'], 'warning' | 'error']> = [[undefined, 'warning'], ['warning', 'warning'], ['error', 'error']];
    let results: Awaited<ReturnType<TerminologyWiring['terminology']['validateCode']>>[] = [];
    for (const [configured, severity] of checks) {
      server.calls.length = 0;
      const wiring = wire({ fhirTerminologyServiceUrl: baseUrl, retries: 0, circuitBreaker: { failureThreshold: 2, openSeconds: 60 }, unavailableSeverity: configured });
      // Two failing calls open the circuit; the third coding is refused without a call.
      results = [];
      for (let i = 0; i < 3; i++) results.push(await wiring.terminology.validateCode(systolic(`attempt ${i}`)));
      expect(server.calls, String(configured)).to.have.length(2);
      for (const result of results) {
        expect(result.valid).to.equal(undefined);
        expect(result.issues).to.have.length(1);
        expect(result.issues[0]).to.deep.include({ severity, messageId: 'Terminology_TX_Error_Coding2' });
        const text = result.issues[0]!.text;
        expect(text).to.contain('the submission is not fully checked');
        expect(text).to.match(/^Error .* validating Coding/); // the default category terminology_service_error still matches
        for (const internal of [baseUrl, new URL(baseUrl).host, '127.0.0.1', 'HTTP 500', 'circuit']) expect(text, internal).not.to.contain(internal);
      }
    }
    // The bundled categories put the issue in terminology_service_error, which is not acceptable: the
    // submission is invalid whatever the severity (docs/operations.md, when the terminology server cannot answer).
    const categorizer = new Categorizer(defaultCategories().map((snapshot) => ({ category: snapshot, matcher: parseMatcherAsField(snapshot.matcher) })));
    const issue = results[0]!.issues[0]!;
    const categories = categorizer.categoriesOf({ severity: issue.severity, code: issue.code, message: issue.text, messageId: issue.messageId });
    expect(categories.map((category) => [category.id, category.acceptable])).to.deep.equal([['terminology_service_error', false]]);
    expect(assessValidity([{ severity: 'warning', categories }]).valid).to.equal(false);
    // Nothing listening at all: the connection error (which names host and port) stays out of the text too.
    const port = await closedPort();
    const down = wire({ fhirTerminologyServiceUrl: `http://127.0.0.1:${port}/fhir`, retries: 0, unavailableSeverity: 'error' });
    const result = await down.terminology.validateCode(systolic());
    expect(result.issues[0]).to.deep.include({ severity: 'error' });
    expect(result.issues[0]!.text).not.to.contain(String(port));
  });
});

describe('terminology: (3) local only makes no network call', () => {
  const server = new TestTerminologyServer(serverResources, '/fhir');
  afterEach(() => sinon.restore());
  after(() => server.close());

  it('answers everything locally; fetch is never used and a server that must not be called is not', async () => {
    await server.start();
    server.behaviour = { kind: 'must-not-be-called' };
    const fetch = sinon.stub(globalThis, 'fetch').rejects(new Error('no network call allowed in local mode'));
    const wiring = wire({});
    expect(wiring.endpoint).to.deep.equal({ mode: 'local' });
    const results = await Promise.all([
      wiring.terminology.validateCode(systolic()),
      wiring.terminology.validateCode({ coding: { system: LOINC, code: '8480-6' } }),
      wiring.terminology.validateCode({ valueSet: SERVER_ONLY_VALUE_SET, coding: { system: LOINC, code: '2339-0' } }),
      wiring.terminology.validateCode({ valueSet: GENDER_VS, coding: { code: 'other' } }),
    ]);
    expect(results.map((r) => r.valid)).to.deep.equal([undefined, undefined, undefined, true]);
    expect(results.every((r) => r.source === 'local')).to.equal(true);
    expect(results[2]!.issues.map((i) => i.text)).to.deep.equal([`Can't find value set ${SERVER_ONLY_VALUE_SET}`]);
    expect(fetch.callCount).to.equal(0);
    expect(server.calls).to.have.length(0);
    expect(server.unexpectedCall).to.equal(undefined);
  });
});
