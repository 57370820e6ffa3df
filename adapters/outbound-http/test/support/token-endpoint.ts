import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OAuth 2.0 authorization server's token endpoint for tests, speaking RFC 6749 section 4.4
 * (client credentials grant): `POST /token`, form-encoded, client authenticated by HTTP Basic
 * (section 2.3.1: form-encoded id and secret, then base64) or by `client_id`/`client_secret` in the body.
 * Errors as section 5.2: 400 `invalid_request`/`unsupported_grant_type`, 401 `invalid_client` with a
 * Basic challenge. Issues `tok-1`, `tok-2`, … with the configured `expires_in`.
 */
export interface TokenRequestSeen {
  readonly grantType: string | null;
  readonly scope: string | null;
  /** How the client authenticated and as whom. */
  readonly clientAuthentication: 'basic' | 'post' | 'none';
  readonly clientId?: string;
  readonly contentType?: string;
}

export class TokenEndpoint {
  readonly requests: TokenRequestSeen[] = [];
  /** Seconds; undefined = no expires_in in the answer. */
  expiresIn: number | undefined = 3600;
  private server!: Server;
  private issued = 0;
  url = '';

  constructor(private readonly clientId: string, private readonly clientSecret: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void readBody(req).then((text) => {
        const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache', ...headers }).end(JSON.stringify(body));
        if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/token') return answer(404, { error: 'not_found' });
        const form = new URLSearchParams(text);
        const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
        let id: string | undefined;
        let secret: string | undefined;
        let how: TokenRequestSeen['clientAuthentication'] = 'none';
        if (basic) {
          const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          id = formDecode(decoded.slice(0, colon));
          secret = formDecode(decoded.slice(colon + 1));
          how = 'basic';
        } else if (form.has('client_id')) {
          id = form.get('client_id') ?? undefined;
          secret = form.get('client_secret') ?? undefined;
          how = 'post';
        }
        this.requests.push({ grantType: form.get('grant_type'), scope: form.get('scope'), clientAuthentication: how, clientId: id, contentType: req.headers['content-type'] });
        if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return answer(400, { error: 'invalid_request', error_description: 'form body expected' });
        if (id !== this.clientId || secret !== this.clientSecret) return answer(401, { error: 'invalid_client', error_description: 'client authentication failed' }, { 'www-authenticate': 'Basic realm="token"' });
        if (form.get('grant_type') !== 'client_credentials') return answer(400, { error: 'unsupported_grant_type' });
        this.issued += 1;
        answer(200, { access_token: `tok-${this.issued}`, token_type: 'Bearer', ...(this.expiresIn === undefined ? {} : { expires_in: this.expiresIn }) });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/token`;
    return this;
  }

  /** Forgets the requests seen and numbers tokens from tok-1 again. */
  reset(): void {
    this.requests.length = 0;
    this.issued = 0;
    this.expiresIn = 3600;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => { text += chunk; });
    req.on('end', () => resolve(text));
  });
}
