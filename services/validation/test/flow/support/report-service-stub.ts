/**
 * A real HTTP report service for the tests: serves `GET /api/Report/Bundle/Patient?facilityId=&patientId=&reportScheduleId=`
 * from an in-memory map, and can be told to fail a submission a number of times first, or never to
 * answer for it (until stopped).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Key = string;
const keyOf = (facilityId: string, reportId: string, patientId: string): Key => `${facilityId}|${reportId}|${patientId}`;

export class ReportServiceStub {
  private readonly bodies = new Map<Key, unknown>();
  private readonly failures = new Map<Key, { status: number; remaining: number }>();
  private readonly stalled = new Set<Key>();
  readonly requests: { key: Key; authorization?: string; traceparent?: string }[] = [];
  private server: http.Server | undefined;
  url = '';
  /** Answers (any answer) only after this long: a slow report service. */
  delayMs = 0;

  put(facilityId: string, reportId: string, patientId: string, body: unknown): void {
    this.bodies.set(keyOf(facilityId, reportId, patientId), body);
  }

  failFirst(facilityId: string, reportId: string, patientId: string, times: number, status = 503): void {
    this.failures.set(keyOf(facilityId, reportId, patientId), { status, remaining: times });
  }

  /** Requests for this submission get no answer at all (the client's timeout must end them). */
  stall(facilityId: string, reportId: string, patientId: string): void {
    this.stalled.add(keyOf(facilityId, reportId, patientId));
  }

  requestsFor(facilityId: string, reportId: string, patientId: string): number {
    const key = keyOf(facilityId, reportId, patientId);
    return this.requests.filter((r) => r.key === key).length;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      if (this.delayMs > 0) {
        setTimeout(() => { if (!res.destroyed) this.answer(req, res); }, this.delayMs);
        return;
      }
      this.answer(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    {
      const url = new URL(req.url ?? '/', 'http://stub');
      if (url.pathname !== '/api/Report/Bundle/Patient') {
        res.writeHead(404).end();
        return;
      }
      const key = keyOf(url.searchParams.get('facilityId') ?? '', url.searchParams.get('reportScheduleId') ?? '', url.searchParams.get('patientId') ?? '');
      this.requests.push({ key, authorization: req.headers.authorization, traceparent: req.headers.traceparent as string | undefined });
      if (this.stalled.has(key)) return;
      const failure = this.failures.get(key);
      if (failure && failure.remaining > 0) {
        failure.remaining--;
        res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('unavailable');
        return;
      }
      const body = this.bodies.get(key);
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
