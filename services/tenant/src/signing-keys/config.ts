import {
  defineSetting, durationSetting, SettingParseError, stringSetting, type ConfigOf,
} from '../../../../adapters/config/index.js';

/** Name of the master-key setting, quoted in the error that refuses key creation without it. */
export const MASTER_KEY_SETTING = 'signing-keys.master-key';

/**
 * Settings of the signing-key registry (spread into the tenant service's schema by main.ts).
 *
 * - `signing-keys.master-key` (secret, optional): base64 of 32 random bytes, e.g. `openssl rand -base64 32`.
 *   AES-256-GCM key that encrypts every private signing key at rest. Without it the registry still
 *   lists keys and serves the JWKS, but refuses to create keys or sign assertions and says why.
 * - `signing-keys.jwks-path`: where the JWKS document is written (atomically) for the proxy that
 *   exposes it; default `.cache/jwks/jwks.json`.
 * - `signing-keys.disabled-retention`: how long a disabled key stays in the JWKS; default 24 h, so a token
 *   signed just before the disable (assertions live ≤ 5 min, EHRs cache the JWKS ≤ 5 min) still verifies.
 * - `signing-keys.expiry-interval`: how often the expiry job marks keys past `expiresAt` as expired
 *   and rewrites the JWKS (reads compute the effective status anyway); default 60 s.
 */
export const signingKeySettings = () => ({
  signingKeysMasterKey: defineSetting(MASTER_KEY_SETTING,
    'AES-256-GCM master key (base64 of exactly 32 bytes) encrypting the private signing keys at rest; without it keys cannot be created',
    'base64 of 32 bytes', parseMasterKey, () => '***').optional().secret(),
  signingKeysJwksPath: stringSetting('signing-keys.jwks-path', 'File the JWKS document is written to (temp file + rename)').default('.cache/jwks/jwks.json'),
  signingKeysDisabledRetentionMs: durationSetting('signing-keys.disabled-retention',
    'How long a disabled key stays published in the JWKS (bare number = milliseconds; e.g. 24h)', 'ms', { min: 0 }).default(24 * 3_600_000),
  signingKeysExpiryIntervalMs: durationSetting('signing-keys.expiry-interval',
    'How often keys past their expiry are marked expired and the JWKS rewritten (bare number = milliseconds)', 'ms', { min: 1000 }).default(60_000),
});

export type SigningKeyConfig = ConfigOf<ReturnType<typeof signingKeySettings>>;

function parseMasterKey(raw: string): string {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(raw)) throw new SettingParseError('must be base64 (e.g. the output of `openssl rand -base64 32`)');
  const bytes = Buffer.from(raw, 'base64');
  if (bytes.length !== 32) throw new SettingParseError(`must decode to exactly 32 bytes for AES-256-GCM; decodes to ${bytes.length}`);
  return raw;
}
