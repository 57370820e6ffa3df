import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

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

export function listen(app: Express, port: number, host = '0.0.0.0'): Promise<HttpServerHandle> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const bound = (server.address() as AddressInfo).port;
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
