/**
 * A small real HTTP report service for the scale-out run (as scripts/bench/flow-bench.ts has): it
 * answers the validation service's patient-submission request (the default
 * `svc.report-service.patient-path`, `...?facilityId=&patientId=&reportScheduleId=`) with a
 * MeasureReport whose other resources are contained, built from the NHSN sample Bundles. Every copy
 * has its resource ids suffixed with its own key, so each submission is a distinct patient.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { sharedDir } from '#test-support/shared-dir.js';

interface Sample {
  text: string;
  ids: string[];
  patientId: string;
  resources: number;
}

let samples: Sample[] | undefined;

function loadSamples(): Sample[] {
  const dir = sharedDir('samples', 'nhsn-ach');
  return readdirSync(dir).filter((f) => f.startsWith('patient-') && f.endsWith('.json')).sort().flatMap((f) => {
    const bundle = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { resourceType: string; entry?: { resource?: Record<string, unknown> }[] };
    if (bundle.resourceType !== 'Bundle') return []; // patient-list.json is a List of the patients
    const resources = (bundle.entry ?? []).map((e) => e.resource).filter((r): r is Record<string, unknown> => !!r);
    const report = resources.find((r) => r.resourceType === 'MeasureReport');
    if (!report) return [];
    const measureReport = { ...report, contained: resources.filter((r) => r !== report) };
    // Short ids (e.g. "1") would also match inside unrelated text; the sample ids that matter are long.
    const ids = [...new Set(resources.map((r) => r.id).filter((id): id is string => typeof id === 'string' && id.length >= 8))];
    const patientId = String(resources.find((r) => r.resourceType === 'Patient')?.id);
    return [{ text: JSON.stringify(measureReport), ids, patientId, resources: resources.length }];
  });
}

export interface ReportService {
  readonly url: string;
  /** Registers a submission under a new patient id derived from `key`; returns that id and its resource count. */
  add(key: string): { patientId: string; resources: number };
  /** Delay before answering, e.g. to stand in for a slower report service. */
  delayMs: number;
  /** Requests answered 200 per patient id. */
  readonly served: Map<string, number>;
  /** Goes away as a deploy or crash would: open connections closed, new ones refused (scripts/fault). */
  stop(): Promise<void>;
  /** Listens again on the same port after stop(). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startReportService(): Promise<ReportService> {
  samples ??= loadSamples();
  if (samples.length === 0) throw new Error(`no patient Bundles in ${sharedDir('samples', 'nhsn-ach')}`);
  const bodies = new Map<string, string>();
  const served = new Map<string, number>();
  let copies = 0;
  const server = http.createServer((req, res) => {
    const patientId = new URL(req.url ?? '/', 'http://report').searchParams.get('patientId') ?? '';
    const body = bodies.get(patientId);
    const answer = () => {
      if (res.destroyed) return; // stopped while the answer was delayed
      if (body === undefined) return void res.writeHead(404).end();
      served.set(patientId, (served.get(patientId) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(body);
    };
    if (service.delayMs > 0) setTimeout(answer, service.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    if (!server.listening) return;
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  };
  const service: ReportService = {
    url: `http://127.0.0.1:${port}`,
    delayMs: 0,
    served,
    add(key) {
      const sample = samples![copies++ % samples!.length]!;
      let body = sample.text;
      for (const id of sample.ids) body = body.split(id).join(`${id}-${key}`);
      const patientId = `${sample.patientId}-${key}`;
      bodies.set(patientId, body);
      return { patientId, resources: sample.resources };
    },
    stop,
    async restart() {
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: stop,
  };
  return service;
}
