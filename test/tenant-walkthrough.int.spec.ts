/**
 * The README's tenant walk-through, as a user runs it: examples/tenant/walkthrough.sh (curl through
 * the gateway with the example bodies, in order) against the real services as processes
 * (test/contract/support/platform.ts: real PostgreSQL and NATS JetStream), with the settings of the
 * local trial: the measure check on (the default), the scheduler on, and the local-only master key
 * `npm start` generates. The README quotes the script, so the two cannot part.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { withLocalMasterKey } from '#scripts/local-master-key.js';
import { projectRoot } from '#test-support/shared-dir.js';
import { startPlatform, type Platform } from './contract/support/platform.js';

const SCRIPT = path.join(projectRoot, 'examples/tenant/walkthrough.sh');

/** The script's steps: its lines from the first `echo '1.` on. */
export function walkthroughSteps(): string {
  const text = readFileSync(SCRIPT, 'utf8');
  return text.slice(text.indexOf("echo '1.")).trim();
}

describe('the README\'s tenant walk-through through the gateway, against the real services', function () {
  this.timeout(240_000);
  let platform: Platform;
  let localDir: string;

  before(async () => {
    localDir = mkdtempSync(path.join(os.tmpdir(), 'walkthrough-'));
    const { env } = withLocalMasterKey({}, localDir);
    platform = await startPlatform({
      tenant: {
        MEASURECONFIG__CHECKIFMEASUREEXISTS: 'true', SCHEDULER_ENABLED: 'true',
        SIGNING_KEYS_MASTER_KEYS_FILE: env.SIGNING_KEYS_MASTER_KEYS_FILE!, SIGNING_KEYS_CURRENT_MASTER_KEY: env.SIGNING_KEYS_CURRENT_MASTER_KEY!,
      },
    });
  });
  after(async () => {
    await platform?.stop();
    rmSync(localDir, { recursive: true, force: true });
  });

  it('is quoted in the README as the script runs it', () => {
    const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
    expect(readme).to.contain(walkthroughSteps());
  });

  it('refuses the facility while its measure has no mapping: the order matters', async () => {
    const body = readFileSync(path.join(projectRoot, 'examples/tenant/2-facility.json'), 'utf8');
    const refused = await fetch(`${platform.gateway}/api/tenant/facilities`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(refused.status).to.equal(400);
    expect(JSON.stringify(await refused.json())).to.contain('ACH');
  });

  it('creates the mapping, the facility, the plan and a signing key, publishes the key and shows the next ReportScheduled', async () => {
    const { stdout } = await promisify(execFile)('bash', [SCRIPT], { cwd: projectRoot, env: { ...process.env, GATEWAY: platform.gateway }, timeout: 60_000 })
      .catch((error: { stdout?: string; stderr?: string }) => { throw new Error(`walkthrough.sh failed:\n${error.stdout}\n${error.stderr}\n${platform.output('tenant').slice(-2000)}`); });
    // Each step's answers: one JSON document a line, but the JWKS, which the gateway serves indented.
    const answers = stdout.split(/^\d\. .*$/m).slice(1).flatMap((section, index) => {
      const text = section.trim();
      try {
        return index === 4 ? [JSON.parse(text)] : text.split('\n').map((line) => JSON.parse(line));
      } catch {
        throw new Error(`step ${index + 1} did not answer JSON:\n${stdout}`);
      }
    }) as Record<string, unknown>[];
    const [mapping, facility, plan, key, assignment, jwks, nextRuns] = answers as [
      { id: string }, { facilityId: string }, { measureMappingId: string; facilityId: string }, { kid: string; algorithm: string; status: string },
      { facilityId: string; kid: string }, { keys: { kid: string; kty: string; d?: string }[] }, { frequency: string; measures: string[]; timeZone: string; nextFireAt: string; nextFireAtLocal: string; periods: { start: string }[] }[],
    ];
    expect(answers, stdout).to.have.length(7);
    expect(mapping.id).to.be.a('string');
    expect(facility.facilityId).to.equal('riverside-general');
    expect(plan).to.include({ facilityId: 'riverside-general', measureMappingId: mapping.id });
    expect(key).to.include({ algorithm: 'ES256', status: 'active' });
    expect(assignment).to.deep.include({ facilityId: 'riverside-general', kid: key.kid });
    // The JWKS publishes the new key's public half only.
    const published = jwks.keys.find((k) => k.kid === key.kid);
    expect(published?.kty).to.equal('EC');
    expect(published).not.to.have.property('d');
    // The next ReportScheduled: the facility's monthly ACH report at its next local midnight of a month.
    expect(nextRuns).to.have.length(1);
    expect(nextRuns[0]).to.include({ frequency: 'Monthly', timeZone: 'America/Chicago' });
    expect(nextRuns[0]!.measures).to.deep.equal(['ACH']);
    expect(nextRuns[0]!.nextFireAtLocal).to.match(/^\d{4}-\d{2}-01T00:\d{2}:00-0[56]:00$/);
    expect(Date.parse(nextRuns[0]!.nextFireAt)).to.be.greaterThan(Date.now() - 60_000);
  });
});
