/**
 * Runbook tool for the dead-letter stream:
 *
 *     npx tsx adapters/messaging/dead-letter-cli.ts list [--subject <original subject>] [--from <seq>] [--limit <n>]
 *     npx tsx adapters/messaging/dead-letter-cli.ts show <seq>
 *     npx tsx adapters/messaging/dead-letter-cli.ts replay <seq> [--remove]
 *     npx tsx adapters/messaging/dead-letter-cli.ts remove <seq>
 *
 * Connection from the services' own variables, so it runs in any service pod as it is: NATS_SERVERS
 * (comma-separated, default nats://127.0.0.1:4222), NATS_USER with NATS_PASSWORD, or NATS_TOKEN. The
 * earlier names NATS_URL and NATS_PASS are still read when the services' names are unset.
 * `show` prints the payload, which may contain patient data: do not paste it into tickets.
 */
import { pathToFileURL } from 'node:url';
import { exitOnConfigError, loadConfig, natsSettings } from '../config/index.js';
import { createLogger } from '../observability/logger.js';
import { connectNats } from './connection.js';
import { DeadLetterQueue } from './dead-letter.js';

const USAGE = 'usage: dead-letter-cli list [--subject S] [--from SEQ] [--limit N] | show SEQ | replay SEQ [--remove] | remove SEQ';

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function seqArg(value: string | undefined): number {
  const seq = Number(value);
  if (!Number.isInteger(seq) || seq < 1) throw new Error(`Expected a dead-letter sequence number, got "${value ?? ''}"`);
  return seq;
}

/** Runs one command; returns the process exit code. Separated from main() so it can be tested in-process. */
export async function runDeadLetterCommand(args: string[], dlq: DeadLetterQueue, write: (line: string) => void): Promise<number> {
  const [command, ...rest] = args;
  try {
    switch (command) {
      case 'list': {
        const from = flag(rest, '--from');
        const limit = flag(rest, '--limit');
        const letters = await dlq.list({
          originalSubject: flag(rest, '--subject'), fromSeq: from ? seqArg(from) : undefined, limit: limit ? seqArg(limit) : undefined,
        });
        for (const dl of letters) write([dl.seq, dl.at, dl.originalSubject, `deliveries=${dl.deliveries}`, `consumer=${dl.consumer}`, dl.reason].join('\t'));
        write(`${letters.length} dead letter(s)`);
        return 0;
      }
      case 'show': {
        const dl = await dlq.read(seqArg(rest[0]));
        if (!dl) { write(`no dead letter ${rest[0]}`); return 1; }
        for (const [k, v] of Object.entries(dl.headers)) write(`${k}: ${v}`);
        write('');
        write(dl.text);
        return 0;
      }
      case 'replay': {
        const result = await dlq.replay(seqArg(rest[0]), { remove: rest.includes('--remove') });
        write(`replayed to ${result.subject} as ${result.stream}#${result.seq}${result.duplicate ? ' (duplicate: already replayed within the duplicate window)' : ''}`);
        return 0;
      }
      case 'remove': {
        const removed = await dlq.remove(seqArg(rest[0]));
        write(removed ? `removed ${rest[0]}` : `no dead letter ${rest[0]}`);
        return removed ? 0 : 1;
      }
      default:
        write(USAGE);
        return 2;
    }
  } catch (err) {
    write(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

type Env = Readonly<Record<string, string | undefined>>;
const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * The NATS connection settings from the services' variables (nats.servers, nats.user, nats.password,
 * nats.token: same parsing and checks), with this tool's earlier NATS_URL and NATS_PASS as fallbacks.
 */
export function deadLetterCliNatsConfig(env: Env) {
  return loadConfig(natsSettings(), {
    ...env,
    NATS_SERVERS: isSet(env.NATS_SERVERS) ? env.NATS_SERVERS : env.NATS_URL,
    NATS_PASSWORD: isSet(env.NATS_PASSWORD) ? env.NATS_PASSWORD : env.NATS_PASS,
  });
}

async function main(): Promise<void> {
  const logger = createLogger('dead-letter-cli', 'warn');
  const config = exitOnConfigError(() => deadLetterCliNatsConfig(process.env), logger);
  const handle = await connectNats({
    servers: [...config.natsServers], user: config.natsUser, pass: config.natsPassword, token: config.natsToken, name: 'dead-letter-cli', logger,
  });
  try {
    process.exitCode = await runDeadLetterCommand(process.argv.slice(2), new DeadLetterQueue(handle.js, handle.jsm), (line) => console.log(line));
  } finally {
    await handle.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => { console.error(err); process.exitCode = 1; });
}
