import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CanonicalResource } from '#validation/domain/ports/conformance-resources.js';
import { LocalTerminology } from '#validation/domain/terminology/local-terminology.js';
import { InMemoryConformanceSource } from './terminology-sources.js';

/**
 * A small real FHIR terminology server for tests: `POST {basePath}/ValueSet/$validate-code` and
 * `POST {basePath}/CodeSystem/$validate-code` with FHIR Parameters, answering from the
 * CodeSystems and ValueSets it is given. It records every call (path, parameters, Authorization)
 * and can be told to fail (500), to be slow, or to fail the test if it is called at all.
 */
export interface RecordedCall {
  path: string;
  parameters: Record<string, string>;
  authorization?: string;
}

export type ServerBehaviour =
  | { kind: 'answer'; delayMs?: number }
  | { kind: 'status'; status: number }
  /** `status` for the next `times` calls, then answers. */
  | { kind: 'fail-then-answer'; status: number; times: number; retryAfterSeconds?: number }
  | { kind: 'must-not-be-called' };

export class TestTerminologyServer {
  readonly calls: RecordedCall[] = [];
  behaviour: ServerBehaviour = { kind: 'answer' };
  /** Set when a must-not-be-called server was called. */
  unexpectedCall?: RecordedCall;
  private readonly terminology: LocalTerminology;
  private server?: Server;

  constructor(resources: CanonicalResource[], readonly basePath = '/fhir') {
    this.terminology = new LocalTerminology(new InMemoryConformanceSource(resources));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  callsTo(operation: 'ValueSet' | 'CodeSystem'): RecordedCall[] {
    return this.calls.filter((call) => call.path.endsWith(`/${operation}/$validate-code`));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '').split('?')[0]!;
    let parameters: Record<string, string> = {};
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { parameter?: Array<Record<string, unknown>> };
      parameters = Object.fromEntries((body.parameter ?? []).map((p) => [String(p.name), String(Object.entries(p).find(([k]) => k.startsWith('value'))?.[1] ?? '')]));
    } catch {
      // recorded with no parameters; answered 400 below
    }
    const call: RecordedCall = { path, parameters, authorization: req.headers.authorization };
    this.calls.push(call);
    const behaviour = this.behaviour;
    if (behaviour.kind === 'must-not-be-called') {
      this.unexpectedCall = call;
      return send(res, 500, outcome('this server must not be called'));
    }
    if (behaviour.kind === 'status') return send(res, behaviour.status, outcome(`configured to answer ${behaviour.status}`));
    if (behaviour.kind === 'fail-then-answer' && behaviour.times > 0) {
      behaviour.times--;
      if (behaviour.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(behaviour.retryAfterSeconds));
      return send(res, behaviour.status, outcome(`configured to answer ${behaviour.status}`));
    }
    if (behaviour.kind === 'answer' && behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (req.method !== 'POST') return send(res, 405, outcome('POST only'));

    if (path === `${this.basePath}/ValueSet/$validate-code`) {
      if (!this.terminology.resolveValueSet(parameters.url ?? '')) return send(res, 404, outcome(`ValueSet ${parameters.url} not found`));
      const result = this.terminology.validateCode({
        valueSet: parameters.url, strength: 'required',
        coding: { system: parameters.system, code: parameters.code, display: parameters.display },
        elementKind: parameters.system ? 'Coding' : 'code',
      }) as ReturnType<LocalTerminology['validateCode']>;
      return send(res, 200, answer(result.valid === true, result.issues.map((i) => i.text).join('; '), result.display));
    }
    if (path === `${this.basePath}/CodeSystem/$validate-code`) {
      if (!this.terminology.codeSystem(parameters.url ?? '')) return send(res, 404, outcome(`CodeSystem ${parameters.url} not found`));
      const result = this.terminology.validateCode({ coding: { system: parameters.url, code: parameters.code, display: parameters.display } }) as ReturnType<LocalTerminology['validateCode']>;
      return send(res, 200, answer(result.valid === true, result.issues.map((i) => i.text).join('; '), result.display));
    }
    return send(res, 404, outcome(`no route ${path}`));
  }
}

function answer(result: boolean, message: string, display: string | undefined) {
  const parameter: Array<Record<string, unknown>> = [{ name: 'result', valueBoolean: result }];
  if (message) parameter.push({ name: 'message', valueString: message });
  if (display) parameter.push({ name: 'display', valueString: display });
  return { resourceType: 'Parameters', parameter };
}

function outcome(text: string) {
  return { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: text }] };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/fhir+json' });
  res.end(JSON.stringify(body));
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
