import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { generateTraceContext } from '../observability/trace-context.js';
import { problemType, PROBLEM_CONTENT_TYPE } from './problem.js';

export interface HttpServerHandle {
  readonly server: Server;
  /** The bound port (useful with port 0 in tests). */
  readonly port: number;
  readonly url: string;
  /**
   * Graceful stop: refuse new connections, let in-flight requests finish, close keep-alive
   * sockets as soon as they are idle, and after `graceMs` destroy whatever is still open.
   */
  close(graceMs?: number): Promise<void>;
}

/** Serves `app` (an express app, or any request listener: the gateway's pass-through in front of one). */
export function listen(app: RequestListener, port: number, host = '0.0.0.0'): Promise<HttpServerHandle> {
  return new Promise((resolve, reject) => {
    const server = createServer(app).listen(port, host);
    // Sockets with a response under way: a parser error on them is not answered (it would land inside that response).
    const answering = new WeakSet<Duplex>();
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      answering.add(req.socket);
      res.once('close', () => answering.delete(req.socket));
    });
    server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
      answerClientError(error, socket, answering.has(socket));
    });
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address();
      // A TCP server (listen with a port) answers an AddressInfo; a string is a pipe's name.
      if (address === null || typeof address === 'string') {
        reject(new Error(`The HTTP server is listening on ${String(address)}, not on a TCP port`));
        return;
      }
      const bound = address.port;
      const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
      let closing: Promise<void> | undefined;
      resolve({
        server,
        port: bound,
        url: `http://${urlHost}:${bound}`,
        close: (graceMs = 10_000) => {
          closing ??= new Promise<void>((done) => {
            // Sockets that finish their last response become idle; sweep them until the server closes.
            const sweep = setInterval(() => server.closeIdleConnections(), 50);
            const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearInterval(sweep);
              clearTimeout(deadline);
              done();
            });
            server.closeIdleConnections();
          });
          return closing;
        },
      });
    });
  });
}

/** What Node's HTTP parser refuses before express sees the request, as status, problem slug and title. */
const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'request-header-fields-too-large', 'Request header fields too large', 'The request line and headers are larger than the server accepts'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'payload-too-large', 'Payload too large', 'The chunk extensions of the request body are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request-timeout', 'Request timeout', 'The request was not received in time'],
};

const CLIENT_ERROR_DRAIN_MS = 5_000;

/**
 * Node's HTTP parser answers what it cannot read (a request line or headers over its limit, a
 * malformed request) itself, with a status and no body. This answers the same status as Problem
 * Details instead (a new trace id: the request never reached the app), as every other refusal is;
 * a connection already reset, or with a response under way, is just closed. (Node answers only on a
 * connection that never wrote anything, so a keep-alive connection's second request got no answer.)
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex, responding: boolean): void {
  if (!socket.writable || responding) {
    socket.destroy(error);
    return;
  }
  const [status, slug, title, detail] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'bad-request', 'Bad request', 'The request is not a well-formed HTTP request'];
  const body = JSON.stringify({ type: problemType(slug), title, status, detail, traceId: generateTraceContext().traceId });
  // Read (and drop) what the client is still sending: closing on unread data resets the connection,
  // and the client would lose the answer. A client that keeps sending is cut off after a few seconds.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.resume();
  setTimeout(() => socket.destroy(), CLIENT_ERROR_DRAIN_MS).unref();
  // the answer to a HEAD request has the headers of the one to a GET and no body (the client would read the body as a next answer)
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(`HTTP/1.1 ${String(status)} ${title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${String(Buffer.byteLength(body))}\r\nConnection: close\r\n\r\n${head ? '' : body}`);
}
