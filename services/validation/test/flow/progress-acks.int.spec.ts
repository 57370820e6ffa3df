/**
 * A report-service fetch that takes longer than the consumer's ack wait (production: up to 60 s per
 * request, twice with a payloadUri, against a 60 s ack wait) keeps its message with progress acks:
 * real NATS JetStream with a 1 s ack wait, a real HTTP report service that answers after 3.5 s.
 * Without progress acks during the fetch, the server delivers the message again after 1 s: a second
 * request reaches the report service and the consumer counts a redelivery.
 */
import { expect } from 'chai';
import type { SubmissionKey } from '#validation/domain/flow/index.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';
import { measureReportOf, sampleSubmissions } from './support/sample-submissions.js';

describe('validation flow: progress acks cover a report-service fetch longer than the ack wait', function () {
  this.timeout(120_000);
  let h: FlowHarness;

  before(async () => {
    h = await startFlowHarness({ maxDeliver: 3, ackWaitMs: 1_000, progressIntervalMs: 300 });
  });
  after(async () => {
    await h?.close();
  });

  it('fetches once, is never redelivered, and announces once', async () => {
    const key: SubmissionKey = { facilityId: 'slow-facility', reportId: 'slow-report', patientId: 'slow-patient' };
    h.reportService.put(key.facilityId, key.reportId, key.patientId, measureReportOf(sampleSubmissions()[0]!.bundle));
    h.reportService.delayMs = 3_500;
    await h.publishReady({ facilityId: key.facilityId, reportTrackingId: key.reportId, patientId: key.patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'] });

    await eventually(() => h.completions.some((c) => c.patientId === key.patientId), 'the ValidationComplete', 60_000);
    await eventually(() => h.idle(), 'the consumer to be idle', 10_000);
    // Past another ack wait: a late redelivery would show now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(h.reportService.requestsFor(key.facilityId, key.reportId, key.patientId)).to.equal(1);
    const info = await h.nats.jsm.consumers.info(h.catalog.byName('ReadyForValidation').stream!, 'validation-ready-for-validation');
    expect(info.config.ack_wait).to.equal(1_000_000_000);
    expect(info.num_redelivered).to.equal(0);
    expect(h.completions.filter((c) => c.patientId === key.patientId)).to.have.length(1);
  });
});
