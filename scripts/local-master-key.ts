/**
 * The local trial's master key for signing keys: `npm start` (scripts/start-all.ts) generates one on
 * its first run and hands the tenant service its file (`SIGNING_KEYS_MASTER_KEYS_FILE`), so that
 * signing keys can be created and the JWKS is served out of the box.
 *
 * LOCAL ONLY. The key lives unencrypted in `.local/` of the working directory (gitignored, mode 0600),
 * which is fine for made-up data on a laptop and nowhere else: a deployment takes its master keys from
 * a Secret (`docs/operations.md`, master keys), and nothing under `deploy/` names this file or its id
 * (test/start-all.spec.ts checks that). An operator's own master key setting always wins.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The id the local key is stored under: stored signing keys name it, so it says what it is. */
export const LOCAL_MASTER_KEY_ID = 'local-only-trial';
export const LOCAL_DIR = '.local';
export const LOCAL_MASTER_KEYS_FILE = 'signing-keys-master-keys.local-only';

const MASTER_KEY_VARIABLES = ['SIGNING_KEYS_MASTER_KEY', 'SIGNING_KEYS_MASTER_KEYS', 'SIGNING_KEYS_MASTER_KEYS_FILE'] as const;

/** True when the operator configured a master key of their own (then the local one is never made). */
export function hasOwnMasterKey(env: NodeJS.ProcessEnv): boolean {
  return MASTER_KEY_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
}

/**
 * The path of the local master key file under `root`, written on first use and read as it is after
 * that (the signing keys stored under it stay readable across restarts).
 */
export function ensureLocalMasterKeyFile(root: string): { file: string; created: boolean } {
  const dir = path.join(root, LOCAL_DIR);
  const file = path.join(dir, LOCAL_MASTER_KEYS_FILE);
  if (existsSync(file) && readFileSync(file, 'utf8').includes(`${LOCAL_MASTER_KEY_ID}:`)) return { file, created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, [
    '# LOCAL TRIAL ONLY: the master key `npm start` generated for signing keys on this machine.',
    '# Never use it in a deployment (deploy/ takes master keys from a Secret); delete this file and',
    '# the local tenant database\'s signing keys to start over.',
    `${LOCAL_MASTER_KEY_ID}:${randomBytes(32).toString('base64')}`,
    '',
  ].join('\n'), { mode: 0o600 });
  chmodSync(file, 0o600);
  return { file, created: true };
}

/** The environment with the local master key file added, unless the operator configured a master key. */
export function withLocalMasterKey(env: NodeJS.ProcessEnv, root: string): { env: NodeJS.ProcessEnv; note?: string } {
  if (hasOwnMasterKey(env)) return { env };
  const { file, created } = ensureLocalMasterKeyFile(root);
  return {
    env: { ...env, SIGNING_KEYS_MASTER_KEYS_FILE: file, SIGNING_KEYS_CURRENT_MASTER_KEY: env.SIGNING_KEYS_CURRENT_MASTER_KEY?.trim() || LOCAL_MASTER_KEY_ID },
    note: `${created ? 'generated' : 'using'} the local-only master key for signing keys in ${path.relative(root, file) || file} (local trial only; set SIGNING_KEYS_MASTER_KEYS to use your own)`,
  };
}
