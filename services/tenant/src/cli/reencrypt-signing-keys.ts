/**
 * Re-encrypts every private signing key under the current master key (master key rotation, step 3
 * in docs/operations.md). Run it where the tenant service runs, with the service's configuration:
 *
 *     kubectl exec deploy/tenant -- node dist/services/tenant/src/cli/reencrypt-signing-keys.js
 *     npx tsx services/tenant/src/cli/reencrypt-signing-keys.ts [--dry-run]
 *
 * Reads the database settings (db.url or db.host/port/user/name, db.password) and the master-key
 * settings (signing-keys.master-keys, signing-keys.master-keys-file, signing-keys.master-key,
 * signing-keys.current-master-key) as the service does; other variables are ignored.
 *
 * - One transaction per key (row locked, opened with the master key it records, sealed under the
 *   current one, written back with its audit event): an interruption leaves every key readable.
 * - Idempotent and resumable: keys already under the current master key are left alone, so running
 *   it again after an interruption (or twice at once) finishes the rest and changes nothing else.
 * - Running instances need no restart: each key records its master key, and every instance that has
 *   both the old and the current key in its keyring opens either form.
 *
 * Prints one line per key and a JSON summary `{ total, reencrypted, alreadyCurrent, vanished, failed }`.
 * Exit code 0 when every key is under the current master key (or would be, with --dry-run), 1 when a
 * key could not be opened (its master key is missing: see `failed`) or the database is unreachable,
 * 78 for a bad configuration value (no master key configured, no current key among several, …).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, databaseSettings, exitOnConfigError, loadConfig, loggingSettings, envVarName } from '#adapters/config/index.js';
import { createLogger } from '#adapters/observability/logger.js';
import { databaseConnection, openDatabase } from '#adapters/persistence/index.js';
import { catalog } from '#contracts/catalog.js';
import { tenantDatabaseEntities, tenantServiceMigrations } from '../database-schema.js';
import { keyringFromConfig, MASTER_KEYS_SETTING, signingKeySettings } from '../signing-keys/adapters/config.js';
import { MikroSigningKeyStore } from '../signing-keys/adapters/persistence.js';
import { reencryptPrivateKeys, type ReencryptionReport } from '../signing-keys/application/reencryption.js';

const keySettings = signingKeySettings();

/** The tenant service's own declarations of the settings this command reads (same names, defaults and checks). */
export const reencryptionSchema = {
  ...databaseSettings({ name: 'tenant' }),
  ...loggingSettings(),
  signingKeysMasterKey: keySettings.signingKeysMasterKey,
  signingKeysMasterKeys: keySettings.signingKeysMasterKeys,
  signingKeysMasterKeysFile: keySettings.signingKeysMasterKeysFile,
  signingKeysCurrentMasterKey: keySettings.signingKeysCurrentMasterKey,
};

export async function main(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const bootLogger = createLogger('reencrypt-signing-keys');
  const config = exitOnConfigError(() => loadConfig(reencryptionSchema, env), bootLogger);
  const { values } = parseArgs({ args, options: { 'dry-run': { type: 'boolean', default: false } }, strict: true, allowPositionals: false });
  const masterKeys = exitOnConfigError(() => {
    const ring = keyringFromConfig(config);
    if (!ring) throw new ConfigError([{ property: MASTER_KEYS_SETTING, envVar: envVarName(MASTER_KEYS_SETTING), message: 'is not set: there is no master key to re-encrypt under' }]);
    return ring;
  }, bootLogger);
  const logger = createLogger('reencrypt-signing-keys', config.logLevel);

  const db = await openDatabase({
    ...databaseConnection(config), poolMax: 2, logger, entities: tenantDatabaseEntities, migrations: tenantServiceMigrations,
  });
  let report: ReencryptionReport;
  try {
    // Audit events go to the outbox; the running service instances relay them.
    const store = new MikroSigningKeyStore({ orm: db.orm, catalog });
    report = await reencryptPrivateKeys(store, masterKeys, {
      dryRun: values['dry-run'],
      onKey: (kid, outcome, detail) => process.stdout.write(`${kid}: ${outcome}${detail ? ` (${detail})` : ''}\n`),
    });
  } finally {
    await db.close();
  }
  process.stdout.write(`${JSON.stringify({ currentMasterKey: masterKeys.currentId, dryRun: values['dry-run'], ...report })}\n`);
  return report.failed.length === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  }, (error: unknown) => {
    process.stderr.write(`Re-encryption failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
