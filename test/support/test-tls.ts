/**
 * Test-only TLS in front of the machine's plain PostgreSQL and Redis, so the TLS settings of
 * `db.url` and `data.cache-server.url` are exercised against the real servers (which run without
 * TLS here): a throw-away CA and server certificates made with the openssl CLI, a PostgreSQL proxy
 * that answers the SSLRequest and terminates TLS, and a TLS-terminating TCP proxy for Redis.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export interface TestPki {
  dir: string;
  /** PEM of the CA and the path of its file. */
  ca: string;
  caFile: string;
  /** Server key and certificate for the given subject alternative names. */
  server(name: string, altNames: string): { key: string; cert: string };
  remove(): void;
}

/** A CA valid for two days, signing EC server certificates. Needs the openssl CLI (Debian's `openssl` package). */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'nhsn-test-pki-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt',
    '-days', '2', '-subj', '/CN=nhsn test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  return {
    dir,
    ca: readFileSync(file('ca.crt'), 'utf8'),
    caFile: file('ca.crt'),
    server(name, altNames) {
      openssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
      writeFileSync(file(`${name}.ext`), `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
      openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
      return { key: readFileSync(file(`${name}.key`), 'utf8'), cert: readFileSync(file(`${name}.crt`), 'utf8') };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface TlsProxy {
  port: number;
  /** TLS sessions that completed their handshake (proof the client spoke TLS). */
  readonly handshakes: number;
  close(): Promise<void>;
}

const SSL_REQUEST_CODE = 80877103;

function listen(server: net.Server, sockets: Set<net.Socket>, counter: { handshakes: number }): Promise<TlsProxy> {
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: (server.address() as AddressInfo).port,
    get handshakes() { return counter.handshakes; },
    close: () => new Promise<void>((done) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => done());
    }),
  })));
}

function pipeBoth(a: net.Socket, b: net.Socket): void {
  a.pipe(b).pipe(a);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
}

/**
 * PostgreSQL over TLS in front of a plain server: answers the client's SSLRequest with `S`, runs the
 * TLS handshake with `key`/`cert`, then relays the decrypted protocol to `target` (which sees an
 * ordinary unencrypted client).
 */
export function postgresTlsProxy(target: { host: string; port: number }, credentials: { key: string; cert: string }): Promise<TlsProxy> {
  const counter = { handshakes: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    client.once('data', (first) => {
      if (first.length !== 8 || first.readInt32BE(4) !== SSL_REQUEST_CODE) {
        client.destroy(); // a client that does not ask for TLS is not what these tests want
        return;
      }
      client.pause();
      client.write('S');
      const secure = new tls.TLSSocket(client, { isServer: true, key: credentials.key, cert: credentials.cert });
      secure.on('secure', () => {
        counter.handshakes++;
        pipeBoth(secure, net.connect(target.port, target.host));
      });
      secure.on('error', () => client.destroy());
    });
    client.on('error', () => undefined);
  });
  return listen(server, sockets, counter);
}

/** A TLS server relaying the decrypted stream to `target` (Redis speaks TLS from the first byte). */
export function tlsTerminatingProxy(target: { host: string; port: number }, credentials: { key: string; cert: string }): Promise<TlsProxy> {
  const counter = { handshakes: 0 };
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key: credentials.key, cert: credentials.cert }, (secure) => {
    counter.handshakes++;
    pipeBoth(secure, net.connect(target.port, target.host));
  });
  server.on('tlsClientError', () => undefined);
  return listen(server, sockets, counter);
}

/**
 * Adds a CA to Node's default trust store for the duration of a test (what NODE_EXTRA_CA_CERTS does
 * for a whole process); returns the function that restores the previous store.
 */
export function trustCaTemporarily(caPem: string): () => void {
  const previous = tls.getCACertificates('default');
  tls.setDefaultCACertificates([...previous, caPem]);
  return () => tls.setDefaultCACertificates(previous);
}
