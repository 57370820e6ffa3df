/**
 * What the validation flow relies on from the report-service port (SubmissionSource), checked
 * against every implementation: the HTTP adapter against the stand-in report service of the tests
 * (a real HTTP server, ReportServiceStub) and the in-memory source of the flow's unit tests. A
 * stored submission is found, as stored; a missing one is a definite not-found naming it; a report
 * service that is down, or does not answer in time, is SubmissionUnavailableError (the shared
 * vocabulary's UnavailableError, which the consumer holds the message for), and the submission is
 * found again once it is back.
 * Adapter-specific behaviour (URL template, tokens, payloadUri) stays in report-service.spec.ts and payload-uri.spec.ts.
 */
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { UnavailableError } from '#shared-kernel/domain/errors.js';
import { HttpReportService } from '#validation/adapters/report-service/http-report-service.js';
import { SubmissionUnavailableError, type SubmissionKey, type SubmissionSource } from '#validation/domain/flow/index.js';
import { InMemorySubmissionSource } from './support/in-memory-submission-source.js';
import { ReportServiceStub } from './support/report-service-stub.js';

interface SourceUnderTest {
  open(): Promise<SubmissionSource>;
  put(key: SubmissionKey, body: unknown): void;
  /** The report service is down (answers 503) for the next `times` requests of this submission. */
  failFirst(key: SubmissionKey, times: number): void;
  /** The report service never answers for this submission. */
  stall(key: SubmissionKey): void;
  close(): Promise<void>;
}

/** How long an implementation waits for an answer, in these suites. */
const TIMEOUT_MS = 300;

/** The body's bytes (what the port hands on: bytes, never a parsed value) read as JSON. */
function read(body: Uint8Array): unknown {
  expect(body).to.be.instanceOf(Uint8Array);
  return JSON.parse(Buffer.from(body).toString('utf8'));
}

function submissionSourceContract(name: string, setUp: () => SourceUnderTest): void {
  describe(`report-service port contract: ${name}`, () => {
    let subject: SourceUnderTest;
    let source: SubmissionSource;
    let patients = 0;
    const nextKey = (): SubmissionKey => ({ facilityId: 'fac-contract', reportId: 'rep-contract', patientId: `patient-${++patients}` });
    const submissionOf = (key: SubmissionKey) => ({
      resourceType: 'MeasureReport', id: `mr-${key.patientId}`, status: 'complete', type: 'individual',
      contained: [{ resourceType: 'Patient', id: key.patientId }],
    });
    const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected the fetch to fail'), (error: unknown) => error);

    before(async () => {
      subject = setUp();
      source = await subject.open();
    });
    after(async () => subject.close());

    it('finds a stored submission, as stored', async () => {
      const key = nextKey();
      subject.put(key, submissionOf(key));
      const fetched = await source.fetch(key);
      expect(fetched.kind).to.equal('found');
      expect(fetched.kind === 'found' && read(fetched.body)).to.deep.equal(submissionOf(key));
    });

    it('keeps submissions apart: another patient of the same report gets its own', async () => {
      const [first, second] = [nextKey(), nextKey()];
      subject.put(first, submissionOf(first));
      subject.put(second, submissionOf(second));
      const fetched = await source.fetch(second);
      expect(fetched.kind === 'found' && read(fetched.body)).to.deep.equal(submissionOf(second));
    });

    it('answers a submission it does not hold as a definite not-found naming it', async () => {
      const key = nextKey();
      const fetched = await source.fetch(key);
      expect(fetched.kind).to.equal('not-found');
      expect(fetched.kind === 'not-found' && fetched.detail).to.contain(key.patientId).and.to.contain(key.reportId);
    });

    it('a report service that is down is SubmissionUnavailableError (unavailable: retry later); once back, the submission is found', async () => {
      const key = nextKey();
      subject.put(key, submissionOf(key));
      subject.failFirst(key, 1);
      const error = await failure(source.fetch(key));
      expect(error).to.be.instanceOf(SubmissionUnavailableError).and.to.be.instanceOf(UnavailableError);
      expect(error).to.include({ failure: 'unavailable', dependency: 'report service' });
      const again = await source.fetch(key);
      expect(again.kind === 'found' && read(again.body)).to.deep.equal(submissionOf(key));
    });

    it('a report service that does not answer in time is SubmissionUnavailableError too, within the timeout', async () => {
      const key = nextKey();
      subject.put(key, submissionOf(key));
      subject.stall(key);
      const started = performance.now();
      const error = await failure(source.fetch(key));
      expect(error).to.be.instanceOf(SubmissionUnavailableError);
      expect((error as Error).message).to.match(/timed out/);
      expect(performance.now() - started).to.be.lessThan(TIMEOUT_MS * 10);
    });
  });
}

submissionSourceContract('HTTP adapter against the stand-in report service', () => {
  const stub = new ReportServiceStub();
  return {
    async open() {
      await stub.start();
      return new HttpReportService({ baseUrl: stub.url, serviceToken: 'svc-token', retries: 0, timeoutMs: TIMEOUT_MS, logger: silentLogger() });
    },
    put: (key, body) => stub.put(key.facilityId, key.reportId, key.patientId, body),
    failFirst: (key, times) => stub.failFirst(key.facilityId, key.reportId, key.patientId, times, 503),
    stall: (key) => stub.stall(key.facilityId, key.reportId, key.patientId),
    close: () => stub.stop(),
  };
});

submissionSourceContract('in-memory source of the unit tests', () => {
  const fake = new InMemorySubmissionSource(TIMEOUT_MS);
  return {
    open: async () => fake,
    put: (key, body) => fake.put(key, body),
    failFirst: (key, times) => fake.failFirst(key, times),
    stall: (key) => fake.stall(key),
    close: async () => undefined,
  };
});
