/**
 * A TCP proxy (node:net) that stands between a service and a server it depends on, so a run can
 * take the server away without touching it: the machine's PostgreSQL is shared with everybody and
 * must never be stopped. `cut()` destroys every live connection (both sides, as a crashed or
 * failed-over server would) and stops listening, so new connections are refused; `restore()`
 * listens again on the same port, and the service's pool reconnects through it.
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections made through the proxy so far (each reconnection counts). */
  readonly connections: number;
  /** True while connections are refused. */
  readonly isCut: boolean;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const live = new Set<net.Socket>();
  let connections = 0;
  let cut = false;
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(target.port, target.host);
    live.add(client);
    live.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      live.delete(client);
      live.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const stopListening = () => new Promise<void>((resolve) => {
    server.close(() => resolve());
    for (const socket of live) socket.destroy();
    live.clear();
  });

  return {
    port,
    get connections() { return connections; },
    get isCut() { return cut; },
    async cut() {
      if (cut) return;
      cut = true;
      await stopListening();
    },
    async restore() {
      if (!cut) return;
      await listen(port);
      cut = false;
    },
    async close() {
      if (!cut) await stopListening();
      cut = true;
    },
  };
}
