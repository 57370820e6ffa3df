/**
 * Test support: a catalog with a random subject root and stream suffix per test file, so that
 * concurrent runs (and other engineers' tests) never share a stream, plus a real connection.
 */
import { randomBytes } from 'node:crypto';
import { buildCatalog, type Catalog } from '#contracts/catalog.js';
import { silentLogger } from '../../observability/logger.js';
import { connectNats, type NatsHandle } from '../connection.js';
import { provisionCatalog } from '../provisioning.js';

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface TestBroker extends NatsHandle {
  catalog: Catalog;
  /** Deletes this run's streams and closes the connection. */
  cleanup(): Promise<void>;
}

export function testCatalog(): Catalog {
  const id = randomBytes(4).toString('hex');
  return buildCatalog({ subjectRoot: `test-${id}`, streamSuffix: `_T${id.toUpperCase()}`, streamLimits: 'test' });
}

export async function testBroker(options: { provision?: boolean } = {}): Promise<TestBroker> {
  const catalog = testCatalog();
  const handle = await connectNats({ servers: NATS_URL, name: `messaging-test-${catalog.subjectRoot}`, logger: silentLogger() });
  if (options.provision ?? true) await provisionCatalog(handle.jsm, catalog);
  return {
    ...handle,
    catalog,
    async cleanup() {
      for (const s of [...catalog.streams, catalog.deadLetterStream]) await handle.jsm.streams.delete(s.name).catch(() => undefined);
      await handle.close();
    },
  };
}

/** Polls until the condition holds (for waiting on asynchronous effects; never used to assert timing). */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}
