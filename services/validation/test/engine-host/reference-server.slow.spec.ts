/**
 * The fetcher in the workers (adapters/engine/artifact-fetcher.ts, fhir-server-fetcher.ts): with a
 * reference policy that checks existence, a reference outside the resource resolves from the stored
 * RESOURCE artifacts, then — only when `validation.reference-server-url` is configured — from that
 * FHIR server (a small real server here), read with `GET [base]/Type/id` and never with the caller's
 * token; references to other hosts are never fetched. Without a server, nothing goes to the network.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import type { ArtifactRepository } from '#validation/domain/ports/artifact-repository.js';
import type { Artifact, ArtifactType } from '#validation/domain/artifacts/artifact.js';

const narrative = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' };
const cantResolve = (o: ValidationOutcome) => o.issue.filter((i) => i.severity === 'error' && i.details.text.startsWith('Unable to resolve resource with reference')).map((i) => i.details.text);

describe('engine host: references fetched from the artifact store and a configured FHIR server', function () {
  this.timeout(60_000);
  let server: http.Server;
  let base: string;
  const requests: { path: string; authorization?: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
      if (req.url === '/fhir/Patient/on-server') res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(JSON.stringify({ resourceType: 'Patient', id: 'on-server' }));
      else res.writeHead(404, { 'content-type': 'application/fhir+json' }).end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/fhir`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** No package (R4 core only) and one RESOURCE artifact: a Patient the store knows. */
  const artifacts = (): ArtifactRepository => ({
    async forEachContent(type: ArtifactType, visit: (artifact: Artifact) => Promise<void>) {
      if (type !== 'RESOURCE') return;
      const content = Buffer.from(JSON.stringify({ resourceType: 'Patient', id: 'in-store', text: narrative }));
      await visit({ id: 1, type, name: 'patient-in-store', content, size: content.length, updatedAt: new Date().toISOString() } as unknown as Artifact);
    },
  }) as unknown as ArtifactRepository;
  const observation = (subject: string) => ({ resourceType: 'Observation', id: 'o', text: narrative, status: 'final', code: { text: 'x' }, subject: { reference: subject } });

  it('resolves from the stored artifacts, then the server; a reference neither knows is an error; the caller\'s token never goes there', async () => {
    const host = new EngineHost({ artifacts: artifacts(), workers: 1, terminology: {}, logger: silentLogger(), referenceServer: { url: base, timeoutMs: 2_000 } });
    await host.start();
    try {
      const settings = { referencePolicy: 'CHECK_EXISTS_AND_TYPE' as const };
      expect(cantResolve(await host.validate(observation('Patient/in-store'), { settings, authorization: 'Bearer caller' }))).to.deep.equal([]);
      expect(cantResolve(await host.validate(observation('Patient/on-server'), { settings, authorization: 'Bearer caller' }))).to.deep.equal([]);
      expect(cantResolve(await host.validate(observation(`${base}/Patient/on-server`), { settings }))).to.deep.equal([]);
      expect(cantResolve(await host.validate(observation('Patient/nowhere'), { settings }))).to.deep.equal(["Unable to resolve resource with reference 'Patient/nowhere'"]);
      // another host is never asked, so it does not resolve
      const before = requests.length;
      expect(cantResolve(await host.validate(observation('http://other.host.test/fhir/Patient/on-server'), { settings }))).to.have.length(1);
      expect(requests.length).to.equal(before);
      expect(requests.map((r) => r.path)).to.include.members(['/fhir/Patient/on-server', '/fhir/Patient/nowhere']);
      expect(requests.map((r) => r.path)).not.to.include('/fhir/Patient/in-store');
      expect(requests.every((r) => r.authorization === undefined)).to.equal(true);
      // the policy's default (IGNORE) asks nobody
      const count = requests.length;
      expect(cantResolve(await host.validate(observation('Patient/nowhere')))).to.deep.equal([]);
      expect(requests.length).to.equal(count);
    } finally {
      await host.close();
    }
  });

  it('without a configured server nothing is fetched from the network: only the artifacts resolve', async () => {
    const host = new EngineHost({ artifacts: artifacts(), workers: 1, terminology: {}, logger: silentLogger() });
    await host.start();
    try {
      const count = requests.length;
      const settings = { referencePolicy: 'CHECK_EXISTS' as const };
      expect(cantResolve(await host.validate(observation('Patient/in-store'), { settings }))).to.deep.equal([]);
      expect(cantResolve(await host.validate(observation('Patient/on-server'), { settings }))).to.deep.equal(["Unable to resolve resource with reference 'Patient/on-server'"]);
      expect(requests.length).to.equal(count);
    } finally {
      await host.close();
    }
  });
});
