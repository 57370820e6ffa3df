/**
 * A NATS JetStream server of the run's own (the machine's nats-server binary on a free port, its
 * store in a temporary directory). The services always use the production subjects and stream names
 * (they have no setting for a subject root or stream suffix), so on the machine's shared server any
 * other validation instance started meanwhile (another engineer's test, `npm start`) joins the same
 * durable consumer and takes part of the run's messages. With a server of its own, every instance of
 * the run still shares one NATS, and nothing else can.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { freePort } from './service-process.js';
import { ownChild } from '../owned-children.js';

export interface PrivateNats {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startPrivateNats(binary = process.env.NATS_SERVER_BIN ?? 'nats-server'): Promise<PrivateNats> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'scale-out-nats-'));
  const port = await freePort();
  let output = '';
  const child = ownChild(spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', 'pipe', 'pipe'] }));
  child.stdout!.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-5_000); });
  child.stderr!.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-5_000); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => { output += `\n${error.message}`; });
  const url = `nats://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      const nc = await connect({ servers: url, timeout: 1_000 });
      await nc.close();
      return { url, stop };
    } catch (error) {
      if (Date.now() > until || child.exitCode !== null) {
        await stop();
        throw new Error(`the run's own nats-server did not start (${(error as Error).message}):\n${output}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
