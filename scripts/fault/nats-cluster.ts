/**
 * A three-node NATS JetStream cluster of the run's own on loopback: the machine's nats-server binary
 * (NATS_SERVER_BIN, else `nats-server` on the PATH), each node with its own configuration file and
 * store directory under one temporary directory, client, route and monitoring ports that were free a
 * moment ago. A node can be killed (SIGKILL, as a crashed pod) and started again with the same
 * configuration and store, as a restarted pod is. The monitoring port answers `/jsz`, which names the
 * JetStream meta leader.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { createServer } from 'node:net';

export interface ClusterNode {
  /** server_name, also what stream and meta cluster information call the node. */
  readonly name: string;
  readonly url: string;
  readonly monitorUrl: string;
  running(): boolean;
}

export interface NatsCluster {
  readonly nodes: readonly ClusterNode[];
  /** The client URLs of every node, comma-separated (what NATS_SERVERS takes). */
  readonly servers: string;
  /** SIGKILL: no goodbye to the cluster or the clients. */
  kill(name: string): Promise<void>;
  /** Starts a killed node again with its configuration and store; resolves once it accepts clients. */
  restart(name: string): Promise<void>;
  /** Permission violations the nodes logged (a service doing what its NATS user may not). */
  violations(): string[];
  /** The JetStream meta leader as a running node reports it (undefined while there is none). */
  metaLeader(): Promise<string | undefined>;
  stop(): Promise<void>;
}

interface NodeState extends ClusterNode {
  readonly configFile: string;
  child?: ChildProcess;
  exited?: Promise<void>;
  output: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface NatsClusterOptions {
  size?: number;
  binary?: string;
  maxFileStore?: string;
  /** Configuration every node includes (the platform's NATS users: deploy/nats-accounts), written next to the nodes' files. */
  include?: string;
  /** Environment of the nodes (the users' password variables). */
  env?: Record<string, string>;
}

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const binary = options.binary ?? process.env.NATS_SERVER_BIN ?? 'nats-server';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fault-cluster-nats-'));
  if (options.include !== undefined) writeFileSync(path.join(dir, 'accounts.conf'), options.include);
  const ports: { client: number; route: number; monitor: number }[] = [];
  const taken = new Set<number>();
  for (let i = 0; i < size; i++) ports.push({ client: await listenablePort(taken), route: await listenablePort(taken), monitor: await listenablePort(taken) });
  const nodes: NodeState[] = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const store = path.join(dir, name);
    mkdirSync(store);
    const routes = ports.filter((_, j) => j !== i).map((other) => `nats-route://127.0.0.1:${other.route}`);
    const configFile = path.join(dir, `${name}.conf`);
    writeFileSync(configFile, [
      `server_name: ${name}`,
      `listen: 127.0.0.1:${p.client}`,
      `http: 127.0.0.1:${p.monitor}`,
      `jetstream { store_dir: ${JSON.stringify(store)}, max_memory_store: 64MB, max_file_store: ${options.maxFileStore ?? '1GB'} }`,
      `cluster { name: fault, listen: 127.0.0.1:${p.route}, routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}] }`,
      ...(options.include !== undefined ? ['include accounts.conf'] : []),
      '',
    ].join('\n'));
    const node: NodeState = {
      name, url: `nats://127.0.0.1:${p.client}`, monitorUrl: `http://127.0.0.1:${p.monitor}`, configFile, output: '',
      running: () => node.child !== undefined && node.child.exitCode === null && node.child.signalCode === null,
    };
    return node;
  });

  const violations: string[] = [];
  const launch = (node: NodeState) => {
    const child = spawn(binary, ['-c', node.configFile], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    const keep = (d: Buffer) => {
      const text = d.toString();
      node.output = (node.output + text).slice(-5_000);
      for (const line of text.split('\n')) if (/(Publish|Subscription|Permissions) Violation/i.test(line) && violations.length < 100) violations.push(`${node.name}: ${line.trim()}`);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (error) => { node.output += `\n${error.message}`; });
    node.child = child;
    node.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  };
  const accepting = async (node: NodeState) => {
    const until = Date.now() + 15_000;
    for (;;) {
      try {
        const nc = await connect({ servers: node.url, timeout: 1_000, reconnect: false, ignoreClusterUpdates: true });
        await nc.close();
        return;
      } catch (error) {
        // With the platform's users a client without credentials is refused: the node is up.
        if (/Authorization Violation/i.test(String(error))) return;
        if (Date.now() > until || !node.running()) throw new Error(`nats-server ${node.name} did not start (${(error as Error).message}):\n${node.output}`, { cause: error });
        await sleep(100);
      }
    }
  };
  const byName = (name: string) => {
    const node = nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name} in the cluster (${nodes.map((n) => n.name).join(', ')})`);
    return node;
  };
  const kill = async (node: NodeState) => {
    if (!node.running()) return;
    node.child!.kill('SIGKILL');
    await node.exited;
  };

  const cluster: NatsCluster = {
    nodes,
    servers: nodes.map((n) => n.url).join(','),
    kill: (name) => kill(byName(name)),
    violations: () => [...violations],
    async restart(name) {
      const node = byName(name);
      if (node.running()) return;
      launch(node);
      await accepting(node);
    },
    async metaLeader() {
      for (const node of nodes.filter((n) => n.running())) {
        try {
          const res = await fetch(`${node.monitorUrl}/jsz`, { signal: AbortSignal.timeout(2_000) });
          const body = await res.json() as { meta_cluster?: { leader?: string } };
          if (body.meta_cluster?.leader) return body.meta_cluster.leader;
        } catch { /* try the next node */ }
      }
      return undefined;
    },
    async stop() {
      await Promise.all(nodes.map(async (node) => {
        if (!node.running()) return;
        node.child!.kill('SIGTERM');
        const timer = setTimeout(() => node.child!.kill('SIGKILL'), 5_000);
        await node.exited;
        clearTimeout(timer);
      }));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (const node of nodes) launch(node);
    await Promise.all(nodes.map(accepting));
    // JetStream answers only once the nodes elected a meta leader.
    const until = Date.now() + 30_000;
    while ((await cluster.metaLeader()) === undefined) {
      if (Date.now() > until) throw new Error(`the cluster elected no JetStream meta leader within 30 s:\n${nodes.map((n) => `${n.name}: ${n.output.slice(-1_000)}`).join('\n')}`);
      await sleep(200);
    }
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/**
 * A port that is free now, below the kernel's ephemeral range (32768 and up on Linux): a port the
 * kernel hands out (listen on 0) can be given again, between our check and the node's bind, to an
 * outgoing connection, such as one node's route to another, and the node then fails with
 * "address already in use" (seen when the cluster was started on a busy machine).
 */
async function listenablePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
}
