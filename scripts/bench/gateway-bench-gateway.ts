/** The gateway of the gateway benchmark, verifying every request's bearer token (JWT mode). */
import { createTokenVerifier } from '#adapters/auth/index.js';
import { listen } from '#adapters/http/index.js';
import { silentLogger } from '#adapters/observability/logger.js';
import { createGatewayApp } from '#gateway/gateway-app.js';

const gateway = createGatewayApp({
  upstreams: { tenant: process.env.BENCH_UPSTREAM! },
  upstreamTimeoutMs: 10_000,
  authMode: 'jwt',
  verifier: createTokenVerifier({ issuer: 'https://idp.bench', audience: 'nhsn', jwks: { keys: [JSON.parse(process.env.BENCH_JWK!)] } }),
  logger: silentLogger(),
});
await listen(gateway.finish(), Number(process.env.BENCH_PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
