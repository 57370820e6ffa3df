/**
 * `npx tsx scripts/bench/gateway-upload-memory.ts`: the gateway's memory under large uploads (issue 28's
 * probe: four concurrent 45 MB POSTs took the gateway from 120 to 334 MB, its pod limit being 256 Mi).
 *
 * The gateway runs as its own process (JWT mode, as in gateway-bench) in front of a sink service in
 * this process that hashes what it receives. Three rounds of four concurrent 45 MiB POSTs:
 * unauthenticated to a service's route (answered 401 without the body being read), unauthenticated to a
 * path no service has (the gateway's own routes: they used to parse up to http.raw-limit before the
 * 404), then authenticated and chunked (streamed to the service, which must receive every byte). Prints the gateway's resident memory before and its
 * peak during each round (sampled from /proc every 10 ms; Linux), and the time to the answers.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const here = path.dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;
const BODY_MIB = 45;
const CONCURRENT = 4;
const GATEWAY_PORT = Number(process.env.BENCH_PORT ?? 18480);

const pair = await generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'probe', alg: 'ES256' };
const token = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', kid: 'probe', typ: 'at+jwt' })
  .setSubject('probe').setIssuer('https://idp.bench').setAudience('nhsn').setExpirationTime('1h').sign(pair.privateKey);

const received: Array<{ bytes: number; sha: string }> = [];
const sink = http.createServer((req, res) => {
  const hash = createHash('sha256');
  let bytes = 0;
  req.on('data', (chunk: Buffer) => { hash.update(chunk); bytes += chunk.length; });
  req.on('end', () => {
    received.push({ bytes, sha: hash.digest('hex') });
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const upstream = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const gateway = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'gateway-bench-gateway.ts')], {
  env: { ...process.env, BENCH_PORT: String(GATEWAY_PORT), BENCH_UPSTREAM: upstream, BENCH_JWK: JSON.stringify(jwk) },
  stdio: ['ignore', 'inherit', 'inherit'],
});

const rssMiB = (): number => {
  const line = readFileSync(`/proc/${gateway.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:')) ?? 'VmRSS: 0 kB';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) / 1024;
};

/** The body: 1 MiB chunks whose bytes depend on their index, so the hash checks order and completeness. */
const chunk = (index: number) => Buffer.alloc(MiB, index % 251);
const expectedSha = (() => {
  const hash = createHash('sha256');
  for (let i = 0; i < BODY_MIB; i++) hash.update(chunk(i));
  return hash.digest('hex');
})();

/**
 * One upload; its answer's status, or `closed` when the gateway hung up before node's client read the
 * answer (node's client reports the broken pipe of its unfinished upload first; curl shows the 401).
 */
function upload(authorized: boolean, target: string): Promise<number | 'closed'> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/octet-stream' };
    if (authorized) headers.authorization = `Bearer ${token}`;
    else headers['content-length'] = BODY_MIB * MiB;
    const req = http.request({ host: '127.0.0.1', port: GATEWAY_PORT, method: 'POST', path: target, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') resolve('closed');
      else reject(error);
    });
    const closed = new Promise((r) => req.once('close', r));
    void (async () => {
      for (let i = 0; i < BODY_MIB && !req.destroyed; i++) {
        if (!req.write(chunk(i))) await Promise.race([new Promise((r) => req.once('drain', r)), closed]);
      }
      if (!req.destroyed) req.end();
    })();
  });
}

async function round(title: string, authorized: boolean, target: string): Promise<void> {
  const before = rssMiB();
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB()); }, 10);
  const started = performance.now();
  const statuses = await Promise.all(Array.from({ length: CONCURRENT }, () => upload(authorized, target)));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB());
  console.log(`| ${title} | ${statuses.join(', ')} | ${seconds.toFixed(2)} | ${before.toFixed(0)} | ${peak.toFixed(0)} | +${(peak - before).toFixed(0)} |`);
}

try {
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${GATEWAY_PORT}/health`)).ok) break; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`\n${CONCURRENT} concurrent POSTs of ${BODY_MIB} MiB through the gateway (resident memory of the gateway process, MiB)`);
  console.log('| round | statuses | seconds | RSS before | RSS peak | growth |\n|---|---|---|---|---|---|');
  await round('no token, POST /api/tenant/upload (content-length declared)', false, '/api/tenant/upload');
  await round('no token, POST /api/nothing (no service: the gateway\'s own routes)', false, '/api/nothing');
  await round('valid token, chunked, POST /api/tenant/upload', true, '/api/tenant/upload');
  const intact = received.filter((r) => r.bytes === BODY_MIB * MiB && r.sha === expectedSha).length;
  console.log(`the service received ${received.length} bodies, ${intact} of them whole and intact (${CONCURRENT} expected, from the authenticated round only)`);
} finally {
  gateway.kill('SIGTERM');
  sink.closeAllConnections();
  sink.close();
}
