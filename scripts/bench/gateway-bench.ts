/**
 * `npm run bench:gateway`: latency and throughput of a paged GET through the admin gateway versus
 * directly against the service, in the same run (issue: overhead ≤ 2 ms at p50).
 *
 * Three processes: a service (the standard HTTP app with a paged route, like the tenant service's
 * facility search), the gateway in front of it (JWT mode: every request's bearer token is verified),
 * and this driver (autocannon). Loopback only; bounded duration.
 *
 * Besides throughput and latency it prints each server's CPU time per request (from /proc, Linux):
 * the machine is shared, so requests/s move with whatever else runs, while the CPU a request costs
 * the gateway, next to what it costs the service, does not.
 */
import autocannon from 'autocannon';
import { printRatio } from './ratio-line.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ownChild } from '../owned-children.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

function startProcess(script: string, env: Record<string, string>): ChildProcess {
  // The server itself (not a tsx wrapper) is the child, so /proc/<pid> is its CPU.
  return ownChild(spawn(process.execPath, ['--import', 'tsx', path.join(here, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] }));
}

/** CPU seconds (user + system) the process has used; undefined off Linux. */
function cpuSeconds(child: ChildProcess): number | undefined {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined;
  }
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(url)).ok) return; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function run(title: string, url: string, headers: Record<string, string>, connections: number) {
  await autocannon({ url, connections: 4, duration: 2, headers }); // warm-up (JIT, connection pools, JWKS)
  const before = [cpuSeconds(gateway), cpuSeconds(service)];
  const result = await autocannon({ url, connections, duration: DURATION, headers });
  const after = [cpuSeconds(gateway), cpuSeconds(service)];
  if (result.non2xx || result.errors) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const perRequestUs = (i: number) => (after[i] === undefined || before[i] === undefined ? NaN : ((after[i]! - before[i]!) * 1e6) / result.requests.total);
  return { title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, gatewayCpuUs: perRequestUs(0), serviceCpuUs: perRequestUs(1) };
}

const pair = await generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'bench', alg: 'ES256' };
const token = await new SignJWT({ permissions: ['IsLinkAdmin'] }).setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
  .setSubject('bench').setIssuer('https://idp.bench').setAudience('nhsn').setExpirationTime('1h').sign(pair.privateKey);

const service = startProcess('gateway-bench-service.ts', { BENCH_PORT: '18281' });
const gateway = startProcess('gateway-bench-gateway.ts', { BENCH_PORT: '18280', BENCH_UPSTREAM: 'http://127.0.0.1:18281', BENCH_JWK: JSON.stringify(jwk) });
try {
  await waitFor('http://127.0.0.1:18281/health');
  await waitFor('http://127.0.0.1:18280/health');
  const headers = { authorization: `Bearer ${token}` };
  const directUrl = 'http://127.0.0.1:18281/api/facilities?pageSize=20&pageNumber=2';
  const gatewayUrl = 'http://127.0.0.1:18280/api/tenant/facilities?pageSize=20&pageNumber=2';
  // Latency at light load (one client) shows the gateway's own cost; the loaded run shows its capacity.
  for (const connections of [1, CONNECTIONS]) {
    const direct = await run('direct', directUrl, headers, connections);
    const viaGateway = await run('via gateway', gatewayUrl, headers, connections);
    console.log(`\nPaged GET, ${connections} connection(s), ${DURATION} s each, loopback, 2 cores shared by all three processes`);
    console.log('| path | requests/s | p50 ms | p99 ms | gateway CPU µs/request | service CPU µs/request |\n|---|---|---|---|---|---|');
    for (const r of [direct, viaGateway]) {
      console.log(`| ${r.title} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.title === 'direct' ? '-' : r.gatewayCpuUs.toFixed(0)} | ${r.serviceCpuUs.toFixed(0)} |`);
    }
    console.log(`gateway overhead: p50 +${(viaGateway.p50 - direct.p50).toFixed(2)} ms, p99 +${(viaGateway.p99 - direct.p99).toFixed(2)} ms, throughput ${(100 * viaGateway.rps / direct.rps).toFixed(0)} % of direct`);
    if (connections === CONNECTIONS) printRatio(`gateway.throughput.gateway/direct`, viaGateway.rps / direct.rps);
  }
} finally {
  service.kill('SIGTERM');
  gateway.kill('SIGTERM');
}
