/**
 * The local trial's master key for signing keys: `npm start` (scripts/start-all.ts) generates one on
 * its first run and hands the tenant service its file (`SIGNING_KEYS_MASTER_KEYS_FILE`), so that
 * signing keys can be created and the JWKS is served out of the box.
 *
 * LOCAL ONLY. The key lives unencrypted in `.local/` under `localTrialRoot` (mode 0600): the user's
 * `~/.nhsn-platform` by default, machine-wide like the local databases whose rows it protects, so a second
 * clone (or a clone made again) reads the signing keys an earlier one stored; a working copy that already
 * has its own `.local/` key (gitignored) keeps it. Fine for made-up data on a laptop and nowhere else: a deployment takes its master keys from
 * a Secret (`docs/operations.md`, master keys), and nothing under `deploy/` names this file or its id
 * (test/start-all.spec.ts checks that). An operator's own master key setting always wins.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The id the local key is stored under: stored signing keys name it, so it says what it is. */
export const LOCAL_MASTER_KEY_ID = 'local-only-trial';
export const LOCAL_DIR = '.local';
export const LOCAL_MASTER_KEYS_FILE = 'signing-keys-master-keys.local-only';

const MASTER_KEY_VARIABLES = ['SIGNING_KEYS_MASTER_KEY', 'SIGNING_KEYS_MASTER_KEYS', 'SIGNING_KEYS_MASTER_KEYS_FILE'] as const;

/**
 * Where the local trial keeps its key: the working copy when it already holds one (an earlier start of
 * this copy), else `NHSN_LOCAL_TRIAL_HOME` or `~/.nhsn-platform`. Machine-wide because the local
 * PostgreSQL is: a key per clone would leave a new clone unable to read the keys an earlier one stored,
 * and the tenant service refuses to start on stored keys it cannot decrypt.
 */
export function localTrialRoot(workingCopy: string, env: NodeJS.ProcessEnv): string {
  if (existsSync(path.join(workingCopy, LOCAL_DIR, LOCAL_MASTER_KEYS_FILE))) return workingCopy;
  return env.NHSN_LOCAL_TRIAL_HOME?.trim() || path.join(os.homedir(), '.nhsn-platform');
}

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
