import type { Logger } from '../observability/logger.js';
import { createHttpClient, type HttpClient } from './client.js';
import type { AuthorizationSource, OutboundCredentials } from './credential-types.js';

type ClientCredentials = Extract<OutboundCredentials, { kind: 'client-credentials' }>;

/** Renew this long before `expires_in` runs out (half the lifetime for tokens shorter than twice that). */
const RENEW_BEFORE_EXPIRY_MS = 30_000;

/**
 * An OAuth 2.0 client-credentials access token (RFC 6749 section 4.4): `POST tokenUrl` with
 * `grant_type=client_credentials` (and `scope` when configured), the client authenticated by HTTP Basic
 * (`client_secret_basic`, section 2.3.1, form-encoded id and secret) or in the body (`client_secret_post`).
 * The answer's `access_token` (token_type Bearer) is kept until shortly before `expires_in` runs out, or,
 * without `expires_in`, until a server refuses it; callers waiting meanwhile share one request. A refused
 * token (401 from the server it was sent to) is dropped so the next call gets a new one.
 *
 * Errors name the endpoint's answer (status, RFC 6749 section 5.2 `error`), never the secret or a token.
 */
export class ClientCredentialsToken implements AuthorizationSource {
  private current?: { header: string; renewAt: number };
  private pending?: Promise<string>;
  private readonly http: HttpClient;
  private readonly now: () => number;

  constructor(private readonly credentials: ClientCredentials, options: { logger: Logger; timeoutMs?: number; now?: () => number }) {
    this.now = options.now ?? Date.now;
    // Its own client: no caller token and no other credentials go to the token endpoint.
    this.http = createHttpClient({
      baseUrl: credentials.tokenUrl, timeoutMs: options.timeoutMs ?? 10_000, retries: 1, retryBaseDelayMs: 200,
      // A token request changes nothing: repeating it after a network error is harmless.
      retryNonIdempotent: true, maxResponseBytes: 1024 * 1024, logger: options.logger,
    });
  }

  async header(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return this.current.header;
    this.pending ??= this.request().finally(() => { this.pending = undefined; });
    return this.pending;
  }

  rejected(header: string): boolean {
    if (this.current?.header !== header) return this.current !== undefined;
    this.current = undefined;
    return true;
  }

  private async request(): Promise<string> {
    const { clientId, clientSecret, scope, tokenUrl } = this.credentials;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (this.credentials.clientAuthentication === 'post') {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`, 'utf8').toString('base64')}`;
    }
    const requestedAt = this.now();
    const response = await this.http.post<unknown>(tokenUrl, form.toString(), { headers });
    const body: Record<string, unknown> = isRecord(response.body) ? response.body : {};
    if (response.status !== 200) {
      const error = typeof body.error === 'string' ? `: ${body.error}${typeof body.error_description === 'string' ? ` (${body.error_description})` : ''}` : '';
      throw new Error(`the token endpoint ${tokenUrl} answered ${response.status}${error}`);
    }
    if (typeof body.access_token !== 'string' || body.access_token === '') throw new Error(`the token endpoint ${tokenUrl} answered without an access_token`);
    if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
      throw new Error(`the token endpoint ${tokenUrl} answered token_type ${JSON.stringify(body.token_type)}; only Bearer tokens can be sent`);
    }
    const lifetimeMs = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000
      : typeof body.expires_in === 'string' && /^\d+$/.test(body.expires_in) ? Number(body.expires_in) * 1000 : undefined;
    const renewAt = lifetimeMs === undefined ? Infinity : requestedAt + lifetimeMs - Math.min(RENEW_BEFORE_EXPIRY_MS, lifetimeMs / 2);
    const header = `Bearer ${body.access_token}`;
    this.current = { header, renewAt };
    return header;
  }
}

/** application/x-www-form-urlencoded encoding of one value (what RFC 6749 section 2.3.1 asks for the Basic credentials). */
function formEncode(value: string): string {
  return new URLSearchParams([['v', value]]).toString().slice(2);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
