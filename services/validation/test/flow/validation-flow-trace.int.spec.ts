/**
 * One submission can be followed by its trace id: the ReadyForValidation's traceparent reaches the
 * report-service request (HTTP) and the ValidationComplete message (through the outbox).
 */
import { expect } from 'chai';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { parseTraceparent } from '#adapters/observability/trace-context.js';
import { eventually, startFlowHarness, type FlowHarness } from './support/flow-harness.js';
import { measureReportOf, sampleSubmissions } from './support/sample-submissions.js';

const TRACE_ID = '5d1f3c8a9e2b47c6a0f1e2d3c4b5a697';
const TRACEPARENT = `00-${TRACE_ID}-1a2b3c4d5e6f7081-01`;

describe('validation flow: trace context from ReadyForValidation to ValidationComplete (NATS, PostgreSQL, HTTP)', function () {
  this.timeout(120_000);
  let h: FlowHarness;

  before(async () => { h = await startFlowHarness({ maxDeliver: 3 }); });
  after(async () => { await h?.close(); });

  async function completionTraceparent(patientId: string): Promise<string | undefined> {
    const completion = h.catalog.byName('ValidationComplete');
    const last = await h.nats.jsm.streams.getMessage(completion.stream!, { last_by_subj: completion.subject });
    expect(last?.json<{ patientId: string }>().patientId).to.equal(patientId);
    return last?.header.get('traceparent');
  }

  async function submit(patientId: string, traceparent?: string) {
    const ready = h.catalog.byName('ReadyForValidation');
    const payload = { schemaVersion: ready.version, facilityId: 'fac-trace', reportTrackingId: 'rep-trace', patientId, reportTypes: ['NHSNdQMAcuteCareHospitalInitialPopulation'] };
    const hdrs = natsHeaders();
    if (traceparent) hdrs.set('traceparent', traceparent);
    await h.nats.js.publish(ready.subject, JSON.stringify(payload), traceparent ? { headers: hdrs } : undefined);
    await eventually(() => h.completions.some((c) => c.patientId === patientId), 'the ValidationComplete');
  }

  it('the report-service request and the ValidationComplete carry the trace id of the ReadyForValidation', async () => {
    const sample = sampleSubmissions()[0]!;
    h.reportService.put('fac-trace', 'rep-trace', sample.patientId, measureReportOf(sample.bundle));
    await submit(sample.patientId, TRACEPARENT);

    const request = h.reportService.requests.find((r) => r.key === `fac-trace|rep-trace|${sample.patientId}`);
    const sent = parseTraceparent(request?.traceparent);
    expect(sent?.traceId, 'report-service request').to.equal(TRACE_ID);
    expect(sent?.spanId, 'a span of the consumer, not the producer\'s').to.not.equal('1a2b3c4d5e6f7081');
    expect(parseTraceparent(await completionTraceparent(sample.patientId))?.traceId, 'ValidationComplete').to.equal(TRACE_ID);
  });

  it('without a traceparent the submission gets one trace of its own, shared by the request and the ValidationComplete', async () => {
    const sample = sampleSubmissions()[1]!;
    h.reportService.put('fac-trace', 'rep-trace', sample.patientId, measureReportOf(sample.bundle));
    await submit(sample.patientId);

    const request = h.reportService.requests.find((r) => r.key === `fac-trace|rep-trace|${sample.patientId}`);
    const traceId = parseTraceparent(request?.traceparent)?.traceId;
    expect(traceId).to.match(/^[0-9a-f]{32}$/).and.not.equal(TRACE_ID);
    expect(parseTraceparent(await completionTraceparent(sample.patientId))?.traceId).to.equal(traceId);
  });

  it('an invalid traceparent is replaced by a new trace, and the ValidationComplete carries that one, not the invalid header', async () => {
    const sample = sampleSubmissions()[2]!;
    h.reportService.put('fac-trace', 'rep-trace', sample.patientId, measureReportOf(sample.bundle));
    await submit(sample.patientId, '00-not-a-trace-01');

    const request = h.reportService.requests.find((r) => r.key === `fac-trace|rep-trace|${sample.patientId}`);
    const traceId = parseTraceparent(request?.traceparent)?.traceId;
    expect(traceId).to.match(/^[0-9a-f]{32}$/);
    const sent = await completionTraceparent(sample.patientId);
    expect(sent).to.not.equal('00-not-a-trace-01');
    expect(parseTraceparent(sent)?.traceId).to.equal(traceId);
  });
});
