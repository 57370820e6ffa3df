/**
 * Terminology in the worker pool: with a terminology server configured, each worker calls it
 * directly (the documented choice), with the credentials configured for it (never the caller's token:
 * test/terminology/terminology-credentials.int.spec.ts covers whose token goes where); without one, no
 * worker opens a socket.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { silentLogger } from '#adapters/observability/logger.js';
import { EngineHost } from '#validation/adapters/engine/index.js';
import type { ValidationOutcome } from '#validation/domain/ports/resource-validator.js';
import { folderArtifacts } from '../flow/support/flow-harness.js';
import { sharedDir } from '#test-support/shared-dir.js';

/** A sample ServiceRequest whose NHSN profile binds its LOINC code: local terminology cannot check LOINC. */
function sampleServiceRequest(): Record<string, unknown> {
  const bundle = JSON.parse(readFileSync(sharedDir('samples', 'nhsn-ach', 'patient-0VmZaB90pc5yRSefoK6sW9C9WVOvPARAgquBFNtGr6LXk.json'), 'utf8')) as { entry: { resource: Record<string, unknown> }[] };
  return bundle.entry.map((e) => e.resource).find((r) => JSON.stringify(r).includes('24325-3'))!;
}
const observation = sampleServiceRequest();
const texts = (o: ValidationOutcome) => o.issue.map((i) => i.details.text);

describe('engine host: terminology in the worker pool', function () {
  this.timeout(60_000);
  let server: http.Server;
  let url: string;
  const calls: { path: string; authorization?: string; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => {
        calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
        res.writeHead(200, { 'content-type': 'application/fhir+json' })
          .end(JSON.stringify({ resourceType: 'Parameters', parameter: [{ name: 'result', valueBoolean: false }, { name: 'message', valueString: 'Unknown code 24325-3 (remote says)' }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('local only: workers make no call and say terminology was not checked', async () => {
    const host = new EngineHost({ artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: 2, terminology: {}, logger: silentLogger() });
    await host.start();
    try {
      const outcome = await host.validate(observation);
      expect(texts(outcome).join('\n')).to.match(/Unable to validate code '24325-3' in system 'http:\/\/loinc.org' because the validator is running without terminology services/);
      expect(calls).to.have.length(0);
    } finally {
      await host.close();
    }
  });

  it('with a terminology server: the worker asks it, with the configured credential, and reports its answer', async () => {
    const host = new EngineHost({
      artifacts: folderArtifacts(sharedDir('fhir-packages')), workers: 2, logger: silentLogger(),
      terminology: { fhirTerminologyServiceUrl: url, timeoutMs: 2_000, retries: 0, credentials: { kind: 'bearer', token: 'tx-token' } },
    });
    await host.start();
    try {
      const outcome = await host.validate(observation, { authorization: 'Bearer caller-token' });
      expect(calls.length).to.be.greaterThan(0);
      expect(calls.every((c) => c.path.endsWith('/$validate-code'))).to.equal(true);
      expect(calls.some((c) => c.body.includes('24325-3'))).to.equal(true);
      expect(calls.every((c) => c.authorization === 'Bearer tx-token')).to.equal(true);
      expect(texts(outcome).join('\n')).to.match(/remote says/);
    } finally {
      await host.close();
    }
  });
});
